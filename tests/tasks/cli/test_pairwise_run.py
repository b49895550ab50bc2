"""Pairwise runs end to end: ``debate-eval run`` on PandaLM, FairEval and an own A/B file against a scripted
OpenAI-compatible server, ``--swap``, ``meta-eval`` on the records, ``show``, and the task-type checks."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, default_reply, role_of_request
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import load_items
from debate_eval.tasks.engine.pairwise import check_task_type, pairwise_template


def run_cli(server: ScriptedOpenAIServer, out: Path, *args: str) -> int:
    common = ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress"]
    return main(["run", *args, *common])


def read_records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def meta_eval(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def always_a(request: Any) -> str:
    return "[[A]]"


def test_always_a_geval_on_pandalm(
    isolated_env: Path, dataset_path: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Every verdict is "first"; accuracy is the share of "first" among the six human labels."""
    path = dataset_path("pandalm")
    labels = {item.item_id: item.human_label for item in load_items("pandalm", path.parents[1])[:6]}
    out = isolated_env / "geval"
    with ScriptedOpenAIServer(reply=always_a) as server:
        assert (
            run_cli(
                server, out, "--dataset", "pandalm", "--aspect", "preference", "--protocol", "geval", "--limit", "6"
            )
            == 0
        )
        calls = server.count - 1  # the preflight request
    records = read_records(out)
    assert calls == 6 and len(records) == 6
    assert all(r["task_type"] == "pairwise" and r["verdict"] == "first" for r in records)
    assert {r["item_id"]: r["human_label"] for r in records} == labels  # records come in completion order
    metrics = meta_eval(out, capsys)["pandalm"]["preference"]
    assert metrics["accuracy"] == pytest.approx(list(labels.values()).count("first") / 6)
    assert metrics["n_items"] == 6 and metrics["consistency"] is None


def test_always_a_geval_with_swap_is_never_consistent(
    isolated_env: Path, dataset_path: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset_path("pandalm")
    out = isolated_env / "geval-swap"
    args = ["--dataset", "pandalm", "--aspect", "preference", "--protocol", "geval", "--limit", "6", "--swap"]
    # PandaLM's items 1 and 3 (and 2 and 4) ask the same question with the same two responses: without
    # --no-cache the one answered first may answer the other from the response cache, or not, as the
    # timing goes (11 or 12 requests)
    args.append("--no-cache")
    with ScriptedOpenAIServer(reply=always_a) as server:
        assert run_cli(server, out, *args) == 0
        requests = server.requests[1:]
    records = read_records(out)
    assert len(requests) == 12  # twice the judge calls
    assert all(r["verdict"] == "tie" and r["consistent"] is False for r in records)
    assert all(r["verdicts"] == {"original": "first", "swapped": "second"} for r in records)
    metrics = meta_eval(out, capsys)["pandalm"]["preference"]
    assert metrics["consistency"] == 0 and metrics["n_swapped"] == 6 and metrics["agreement"] is None
    # each item was shown once as given and once with the responses exchanged
    shown_a = [
        re.search(r"\[Response A: start\]\n(.*?)\n\[Response A: end\]", r["messages"][-1]["content"], re.S)
        for r in requests
    ]
    firsts = Counter(match.group(1) for match in shown_a if match)
    for record in records:
        assert firsts[record["inputs"]["output_a"]] >= 1 and firsts[record["inputs"]["output_b"]] >= 1
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["swap"] is True
    capsys.readouterr()
    assert main(["show", str(out), "--item", records[0]["item_id"]]) == 0
    text = capsys.readouterr().out
    assert "=== Response A ===" in text and "=== Response B ===" in text
    assert "original first, swapped second" in text and "=== swapped order" in text


def by_role(request: Any) -> str:
    """Scorer prefers A, the Critic agrees, referees and the single judge prefer B."""
    return {
        "scorer": "Response A answers the question fully; Response B does not.\n[[A]]",
        "critic": "I looked for a flaw in the verdict and found none. NO ISSUE",
        "referee": "Response B is more accurate.\n[[B]]",
        "evaluator": "Both are equally good.\n[[C]]",
    }.get(role_of_request(request), "[[C]]")


@pytest.mark.parametrize(
    ("protocol", "verdict", "calls"), [("debate", "first", 2), ("chateval", "second", 4), ("geval", "tie", 1)]
)
def test_methods_on_faireval(
    isolated_env: Path, dataset_path: Callable[[str], Path], protocol: str, verdict: str, calls: int
) -> None:
    dataset_path("faireval")
    out = isolated_env / protocol
    with ScriptedOpenAIServer(reply=by_role) as server:
        assert (
            run_cli(
                server, out, "--dataset", "faireval", "--aspect", "preference", "--protocol", protocol, "--limit", "2"
            )
            == 0
        )
    records = read_records(out)
    assert len(records) == 2 and all(r["verdict"] == verdict and r["error"] is None for r in records)
    assert all(r["llm_calls"] == calls for r in records)
    assert all(r["human_label"] in ("first", "second", "tie") for r in records)


OWN_CSV = """id,prompt,answer_1,answer_2,winner
a,What is the capital of France?,Paris.,Lyon.,A
b,How many legs has a spider?,Six.,Eight.,B
c,Say hello.,Hello!,Hi!,T
"""


@pytest.mark.parametrize(("protocol", "verdict"), [("debate", "first"), ("chateval", "second"), ("geval", "tie")])
def test_methods_on_an_own_pairwise_csv(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], protocol: str, verdict: str
) -> None:
    data = isolated_env / "ab.csv"
    data.write_text(OWN_CSV, encoding="utf-8")
    out = isolated_env / f"own-{protocol}"
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    args = ["--dataset", str(data), "--aspect", "preference", "--fields", fields, "--labels", "first=A,second=B,tie=T"]
    with ScriptedOpenAIServer(reply=by_role) as server:
        assert run_cli(server, out, *args, "--protocol", protocol) == 0
    records = read_records(out)
    assert {r["item_id"]: r["human_label"] for r in records} == {"a": "first", "b": "second", "c": "tie"}
    assert all(r["verdict"] == verdict and r["task_type"] == "pairwise" for r in records)
    metrics = next(iter(meta_eval(out, capsys).values()))["preference"]
    assert metrics["accuracy"] == pytest.approx(1 / 3) and metrics["n_items"] == 3


def test_swap_on_a_single_text_dataset_is_refused(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        code = run_cli(server, isolated_env / "x", "--dataset", "summeval", "--aspect", "coherence", "--swap")
        assert server.count == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "--swap" in err[0] and "single" in err[0]


def test_task_type_mismatch_is_one_line() -> None:
    with pytest.raises(UserError, match="judges single items only; dataset pandalm is pairwise"):
        check_task_type("fennec-single", ("single",), "pandalm", "pairwise")
    check_task_type("geval", ("single", "pairwise"), "pandalm", "pairwise")


def test_pairwise_template_file_checks(tmp_path: Path) -> None:
    assert "{{output_b}}" in pairwise_template().text
    good = tmp_path / "good.txt"
    good.write_text("Q: {{question}}\nA: {{output_a}}\nB: {{output_b}}\nVerdict?", encoding="utf-8")
    assert pairwise_template(path=good).placeholders == ("question", "output_a", "output_b")
    bad = tmp_path / "bad.txt"
    bad.write_text("{{question}} {{output_a}} {{Summary}}", encoding="utf-8")
    with pytest.raises(UserError, match="not a pairwise input"):
        pairwise_template(path=bad)
    one = tmp_path / "one.txt"
    one.write_text("{{question}} {{output_a}}", encoding="utf-8")
    with pytest.raises(UserError, match="output_b"):
        pairwise_template(path=one)


def test_ablate_on_a_pairwise_dataset(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("pandalm")
    out = isolated_env / "ablation"
    args = [
        "ablate",
        "--dataset",
        "pandalm",
        "--aspect",
        "preference",
        "--limit",
        "3",
        "--grid",
        "protocol=debate,geval",
    ]
    with ScriptedOpenAIServer(reply=always_a) as server:
        assert (
            main([*args, "--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress"]) == 0
        )
    with (out / "ablation.csv").open(encoding="utf-8") as handle:
        rows = {row["protocol"]: row for row in csv.DictReader(handle)}
    labels = [item.human_label for item in load_items("pandalm", dataset_path("pandalm").parents[1])[:3]]
    for protocol in ("debate", "geval"):
        assert float(rows[protocol]["accuracy"]) == pytest.approx(
            labels.count("first") / 3, abs=1e-4
        )  # the CSV rounds to 4 places
        assert rows[protocol]["n_items"] == "3" and rows[protocol]["spearman"] == ""
        assert rows[protocol]["parse_failures"] == "0"


@pytest.mark.parametrize("protocol", ["debate", "tiebreaker"])
def test_authors_code_fidelity_is_refused_for_pairwise_items(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], protocol: str
) -> None:
    """The DEBATE authors' code scores single texts only (ChatEval's has a pairwise form: test_faireval_run)."""
    data = isolated_env / "ab.csv"
    data.write_text(OWN_CSV, encoding="utf-8")
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    args = ["--dataset", str(data), "--aspect", "preference", "--fields", fields, "--labels", "first=A,second=B,tie=T"]
    with ScriptedOpenAIServer() as server:
        code = run_cli(server, isolated_env / "x", *args, "--protocol", protocol, "--fidelity", "authors-code")
        assert server.count == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "no pairwise form" in err[0]


def test_repeat_counts_pairwise_verdicts() -> None:
    from debate_eval.tasks.cli.repeat import summarize
    from debate_eval.tasks.engine.record import Record

    records = [
        Record(item_id=item, dataset="pairs", aspect="preference", task_type="pairwise", verdict=verdict)
        for item, verdict in (("1", "first"), ("1", "tie"), ("2", "second"), ("2", "second"))
    ]
    report = summarize(records)
    assert report["items_with_differing_scores"] == 1 and report["scores"]["1"] == {"first": 1, "tie": 1}


def test_scripted_server_knows_the_pairwise_personas() -> None:
    from debate_eval.agents.personas import get_persona
    from debate_eval.debates.pairwise.prompts import pairwise_persona

    expected = {
        ("commander", "commander"): "commander",
        ("scorer", "scorer"): "scorer",
        ("devils-advocate", "critic"): "critic",
        ("plain", "critic"): "critic",
        ("sophisticated", "critic"): "critic",
        ("tiebreaker", "tiebreaker"): "tiebreaker",
    }
    for (name, role), wanted in expected.items():
        system = pairwise_persona(get_persona(name, role)).text
        assert role_of_request({"messages": [{"role": "system", "content": system}]}) == wanted, name


@pytest.mark.parametrize("protocol", ["debate", "chateval", "geval"])
def test_provider_scripted_gives_pairwise_verdicts(isolated_env: Path, protocol: str) -> None:
    """`--provider scripted` (the offline check of a pipeline) answers a pairwise prompt with a verdict, so a
    pairwise run on it parses one per item instead of "no verdict" everywhere; a single-score run still gets
    scores, even when the judged text itself holds "[[A]]"."""
    data = isolated_env / "ab.csv"
    data.write_text(OWN_CSV, encoding="utf-8")
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    args = ["--dataset", str(data), "--aspect", "preference", "--fields", fields, "--labels", "first=A,second=B,tie=T"]
    out = isolated_env / protocol
    common = ["--provider", "scripted", "--protocol", protocol, "--out", str(out), "--no-progress"]
    assert main(["run", *args, *common]) == 0
    assert [r["verdict"] for r in read_records(out)] == ["first"] * 3
    single = {"role": "user", "content": "Summary: the cat sat. [[A]] Response A\nScore (1-5):"}
    assert "Score: 3" in default_reply({"messages": [{"role": "system", "content": "Score it."}, single]})
