"""``debate-eval robustness`` end to end on a scripted endpoint: two languages of xdial_fed_turn,
paraphrases stored and reused, and the one-line refusals."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main


def robustness(server: ScriptedOpenAIServer, out: Path, *extra: str) -> int:
    args = ["robustness", "--out", str(out), "--base-url", server.base_url, "--model", "scripted", "--no-progress"]
    return main([*args, *extra])


def last_text(request: Mapping[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def by_script(request: Mapping[str, Any]) -> str:
    """'2' for a context with CJK characters, '4' otherwise; numbered rewrites for a paraphrase request."""
    text = last_text(request)
    if text.startswith("Rewrite the text below"):
        return "1. First rewrite of the reply.\n2. Second rewrite of the reply."
    if "First rewrite" in text:
        return "2"
    return "2" if any("\u4e00" <= char <= "\u9fff" for char in text) else "4"


def rows(out: Path) -> list[dict[str, str]]:
    with (out / "robustness.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_two_languages_of_xdial_fed_turn(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("xdial_fed_turn")
    out = isolated_env / "languages"
    with ScriptedOpenAIServer(reply=by_script) as server:
        assert (
            robustness(server, out, "--dataset", "xdial_fed_turn", "--languages", "chinese,english", "--limit", "4")
            == 0
        )
        first = server.count
        assert (
            robustness(server, out, "--dataset", "xdial_fed_turn", "--languages", "chinese,english", "--limit", "4")
            == 0
        )
        assert server.count == first  # both runs resumed: no model call
    table = rows(out)
    assert [(r["variant"], r["aspect"], r["items"]) for r in table] == [
        ("english", "overall", "4"),
        ("chinese", "overall", "4"),
    ]
    assert float(table[0]["mean_abs_diff"]) == 0.0 and float(table[1]["mean_abs_diff"]) == 2.0
    for language in ("english", "chinese"):
        records = [json.loads(x) for x in (out / language / "results.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(records) == 4 and {r["dataset"] for r in records} == {
            "xdial_fed_turn" if language == "english" else "xdial_fed_turn-chinese"
        }
    document = json.loads((out / "robustness.json").read_text(encoding="utf-8"))
    assert document["languages"] == ["english", "chinese"] and len(document["rows"]) == 2
    assert (out / "robustness.png").stat().st_size > 0


def test_paraphrases_are_stored_judged_and_reused(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("fed_turn")
    out = isolated_env / "paraphrases"
    args = ["--dataset", "fed_turn", "--aspect", "relevant", "--paraphrases", "2", "--limit", "3"]
    with ScriptedOpenAIServer(reply=by_script) as server:
        assert robustness(server, out, *args, "--paraphrase-model", "scripted-writer") == 0
        paraphrase_requests = [r for r in server.requests if last_text(r).startswith("Rewrite the text below")]
        assert len(paraphrase_requests) == 3 and {r["model"] for r in paraphrase_requests} == {"scripted-writer"}
        first = server.count
        assert robustness(server, out, *args, "--paraphrase-model", "scripted-writer") == 0
        assert server.count == first  # paraphrases reused from paraphrases.jsonl, both runs resumed
    stored = [json.loads(x) for x in (out / "paraphrases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(stored) == 3 and stored[0]["paraphrases"] == [
        "First rewrite of the reply.",
        "Second rewrite of the reply.",
    ]
    judged = [json.loads(x) for x in (out / "paraphrased" / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r["item_id"] for r in judged)[:2] == ["turn-001~p1", "turn-001~p2"] and len(judged) == 6
    assert any("First rewrite of the reply." in r["transcript"][0]["content"] for r in judged)
    table = {r["variant"]: r for r in rows(out)}
    assert set(table) == {"original", "paraphrased", "paraphrase 1", "paraphrase 2"}
    # originals scored 4, "First rewrite" 2, "Second rewrite" 4: spread 2 per item, drift (2 + 0) / 2
    assert float(table["paraphrased"]["mean_spread"]) == 2.0 and float(table["paraphrased"]["mean_abs_diff"]) == 1.0
    assert float(table["paraphrase 1"]["mean_abs_diff"]) == 2.0 and float(table["paraphrase 2"]["mean_abs_diff"]) == 0.0


def test_refusals_are_one_line(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        assert robustness(server, isolated_env / "x", "--dataset", "xdial_fed_turn") == 2
        assert "either --languages" in capsys.readouterr().err
        assert robustness(server, isolated_env / "x", "--dataset", "summeval", "--languages", "english") == 2
        assert "give --aspect" in capsys.readouterr().err
        code = robustness(
            server, isolated_env / "x", "--dataset", "summeval", "--aspect", "coherence", "--languages", "german"
        )
        assert code == 2 and "--language is for xdial" in capsys.readouterr().err


def test_an_unknown_language_is_refused_before_any_run(
    isolated_env: Path, dataset_path: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """English is the first run: a typo later in --languages must not cost its calls first."""
    dataset_path("xdial_fed_turn")
    args = ["--dataset", "xdial_fed_turn", "--aspect", "overall", "--limit", "2", "--languages", "english,klingon"]
    with ScriptedOpenAIServer() as server:
        assert robustness(server, isolated_env / "x", *args) == 2
        assert server.count == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "klingon" in err[0] and "chinese" in err[0]
    assert not (isolated_env / "x" / "english").exists()
