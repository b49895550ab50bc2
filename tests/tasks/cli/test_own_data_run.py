"""``run --dataset FILE``: the user's own CSV end to end (G-Eval on the scripted server, meta-eval by group),
``--language`` for xDial-Eval, and ``datasets`` / ``aspects`` listing all nine sets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data import registry

ROWS = [  # (group, article, summary, human rating)
    ("a", "The cat sat on the mat. It was warm.", "A cat sat.", 4),
    ("a", "The cat sat on the mat. It was warm.", "Dogs bark loudly.", 1),
    ("a", "The cat sat on the mat. It was warm.", "The cat was on a warm mat.", 5),
    ("b", "Rain fell all day in the city.", "It rained.", 4),
    ("b", "Rain fell all day in the city.", "Sunny skies.", 1),
    ("b", "Rain fell all day in the city.", "The city had rain all day long.", 5),
    ("c", "Stocks rose 3% on Monday.", "Markets up.", 3),
    ("c", "Stocks rose 3% on Monday.", "Stocks fell.", 1),
    ("c", "Stocks rose 3% on Monday.", "Stocks rose three percent Monday.", 5),
]
TEMPLATE = """Read the article and its summary.

Evaluation Criteria:

Faithfulness (1-5) - does the summary say only what the article says?

Article:

{{source}}

Summary:

{{output}}

Evaluation Form (scores ONLY):

- Faithfulness:"""
# The judge's answer per summary: the human rating, except 2 for a 1 (same order within each group, other values).
ANSWERS = {summary: str(rating) if rating > 1 else "2" for _, _, summary, rating in ROWS}


def _reply(request: dict) -> str:
    prompt = str(request["messages"][-1]["content"])
    found = [summary for summary in ANSWERS if re.search(rf"Summary:\s*{re.escape(summary)}\s", prompt)]
    return ANSWERS[found[0]] if len(found) == 1 else "OK"  # "OK": the endpoint check before the run


def _write_own(folder: Path) -> tuple[Path, Path]:
    csv = folder / "my ratings.csv"
    lines = ["doc,article,summ,rating"] + [f'{g},"{a}","{s}",{r}' for g, a, s, r in ROWS]
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    template = folder / "faithfulness.txt"
    template.write_text(TEMPLATE, encoding="utf-8")
    return csv, template


def test_own_csv_runs_with_geval_and_meta_evaluates_by_group(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv, template = _write_own(isolated_env)
    args = [
        "run",
        "--dataset",
        str(csv),
        "--fields",
        "source=article,output=summ,human=rating,group=doc",
        "--aspect",
        "faithfulness",
        "--template",
        str(template),
        "--scale",
        "1-5",
        "--protocol",
        "geval",
        "--no-progress",
    ]
    with ScriptedOpenAIServer(reply=_reply) as server:
        assert main([*args, "--base-url", server.base_url, "--model", "m"]) == 0
    out = isolated_env / "runs" / "my_ratings_faithfulness_geval"
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    records.sort(key=lambda record: int(record["item_id"].removeprefix("row-")))  # written as they finish
    assert len(records) == 9 and [r["group_id"] for r in records] == list("aaabbbccc")
    assert [r["human_score"] for r in records] == [float(r[3]) for r in ROWS]
    assert [r["score"] for r in records] == pytest.approx([float(ANSWERS[r[2]]) for r in ROWS])
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)[str(csv)]["faithfulness"]
    config = json.loads((out / "config.json").read_text())["result_config"]
    assert (
        config["dataset_options"]["fields"]["human"] == "rating" and len(config["dataset_options"]["git_blob_id"]) == 40
    )
    registry._OWN_FILES.clear()  # as in a new process: rescore registers the file again from config.json
    assert main(["rescore", str(out)]) == 0
    assert json.loads((out / "results.jsonl").read_text().splitlines()[0])["score"] is not None
    assert stats["n_groups"] == 3 and stats["n_items"] == 9 and stats["level"] == "group"
    assert stats["spearman"] == pytest.approx(1.0)  # within every group the judge ranks as the humans do
    assert stats["ci95"] == "too few groups (n=3)"  # three groups: no interval (the minimum-units rule)
    assert stats["paper"] == {"per-group": None}  # the user's own data: no paper row


def test_own_file_errors_are_one_line_each_before_any_call(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv, template = _write_own(isolated_env)
    csv.write_text(csv.read_text().replace(",1\n", ",low\n", 1), encoding="utf-8")
    with ScriptedOpenAIServer(reply=_reply) as server:
        code = main(
            [
                "run",
                "--dataset",
                str(csv),
                "--fields",
                "source=article,output=summ,human=rating,group=doc",
                "--aspect",
                "faithfulness",
                "--template",
                str(template),
                "--protocol",
                "geval",
                "--base-url",
                server.base_url,
                "--model",
                "m",
            ]
        )
        assert server.requests == []
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f'{csv}: row 2 (counted from 1, the header line not counted): column "rating": expected a number' in err
    with ScriptedOpenAIServer() as server:
        code = main(
            [
                "run",
                "--dataset",
                str(csv),
                "--fields",
                "source=article,output=summ,human=rating",
                "--aspect",
                "q",
                "--base-url",
                server.base_url,
                "--model",
                "m",
            ]
        )
    assert code == 2


def test_own_file_needs_criteria_or_a_template(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv, _ = _write_own(isolated_env)
    with ScriptedOpenAIServer() as server:
        code = main(
            [
                "run",
                "--dataset",
                str(csv),
                "--fields",
                "source=article,output=summ,human=rating",
                "--aspect",
                "faithfulness",
                "--base-url",
                server.base_url,
                "--model",
                "m",
            ]
        )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "{{source}}" in err[0]
    assert 'needs --criteria "one sentence: what is a good answer?" with --scale LO-HI, or --template FILE' in err[0]


def test_datasets_lists_all_ten(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datasets", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in rows] == [
        "summeval",
        "topical_chat",
        "fed_turn",
        "fed_dialogue",
        "xdial_fed_turn",
        "xdial_fed_dialogue",
        "faireval",
        "pandalm",
        "autoj_pairwise",
        "judgebench",
    ]
    by_name = {row["name"]: row for row in rows}
    assert by_name["summeval"]["shipped"] and not by_name["pandalm"]["shipped"]
    assert by_name["fed_turn"]["level"] == "item" and by_name["autoj_pairwise"]["task_type"] == "pairwise"
    assert by_name["xdial_fed_turn"]["variants"]["language"][0] == "english"
    assert main(["aspects"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10 and lines[0].startswith("summeval: coherence (1-5)")
    assert "faireval: preference (first/second/tie)" in lines
    assert main(["datasets"]) == 0
    assert "read from:" in capsys.readouterr().out


def test_language_picks_the_xdial_variant(isolated_env: Path, capsys: pytest.CaptureFixture[str], dataset_path) -> None:  # type: ignore[no-untyped-def]
    dataset_path("xdial_fed_turn")
    with ScriptedOpenAIServer() as server:
        code = main(
            [
                "run",
                "--dataset",
                "xdial_fed_turn",
                "--language",
                "german",
                "--aspect",
                "overall",
                "--protocol",
                "geval",
                "--limit",
                "1",
                "--no-progress",
                "--base-url",
                server.base_url,
                "--model",
                "m",
            ]
        )
        prompt = str(server.requests[-1]["messages"][-1]["content"])
    assert code == 0 and "Es ist wahrscheinlich langweilig" in prompt
    [record] = [
        json.loads(line)
        for line in (isolated_env / "runs" / "xdial_fed_turn-german_overall_geval" / "results.jsonl")
        .read_text()
        .splitlines()
    ]
    assert record["dataset"] == "xdial_fed_turn-german" and record["item_id"] == "turn-001"
    with ScriptedOpenAIServer() as server:
        code = main(
            [
                "run",
                "--dataset",
                "summeval",
                "--language",
                "german",
                "--aspect",
                "coherence",
                "--base-url",
                server.base_url,
                "--model",
                "m",
            ]
        )
    assert code == 2 and "--language is for xdial_fed_turn" in capsys.readouterr().err
