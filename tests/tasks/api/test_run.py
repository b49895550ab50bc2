"""``Run``, ``load_run``, ``meta_evaluate``, ``compare``: the same numbers as the commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.varied_replies import varied_reply

import debate_eval
from debate_eval import UserError
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main


@pytest.fixture
def two_runs(api_env: Path) -> Iterator[tuple[debate_eval.Run, debate_eval.Run]]:
    """Two runs whose scores vary (the report demo's scripted replies), so the correlations are numbers."""
    with ScriptedOpenAIServer(reply=varied_reply) as server:
        common = {"aspect": "coherence", "docs": 2, "base_url": server.base_url, "model": "scripted"}
        common |= {"no_progress": True, "no_preflight": True}
        yield (
            debate_eval.evaluate("summeval", method="geval", out="runs/geval", **common),
            debate_eval.evaluate("summeval", method="debate", max_rounds=1, out="runs/debate", **common),
        )


def test_meta_evaluate_gives_the_numbers_of_meta_eval_json(
    two_runs: tuple[debate_eval.Run, debate_eval.Run], capsys: pytest.CaptureFixture[str]
) -> None:
    geval, _ = two_runs
    capsys.readouterr()
    assert main(["meta-eval", str(geval.path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    meta = geval.meta_evaluate()
    assert isinstance(meta, debate_eval.MetaEval) and meta.to_dict() == printed
    assert debate_eval.meta_evaluate(str(geval.path)).to_dict() == printed
    table = meta.to_pandas()
    assert list(table[["dataset", "aspect"]].itertuples(index=False, name=None)) == [("summeval", "coherence")]
    assert table.loc[0, "n_items"] == printed["summeval"]["coherence"]["n_items"] == 32
    assert isinstance(printed["summeval"]["coherence"]["spearman"], float)  # the scores vary: real numbers
    assert table.loc[0, "spearman"] == pytest.approx(meta["summeval"]["coherence"].spearman)


def test_several_runs_together_as_the_command(
    two_runs: tuple[debate_eval.Run, debate_eval.Run], capsys: pytest.CaptureFixture[str]
) -> None:
    geval, debate = two_runs
    capsys.readouterr()
    assert main(["meta-eval", str(geval.path), str(debate.path), "--json", "--bootstrap", "0"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert debate_eval.meta_evaluate(geval, debate.path, bootstrap=0).to_dict() == printed


def test_compare_is_the_paired_comparison_of_the_command(
    two_runs: tuple[debate_eval.Run, debate_eval.Run], capsys: pytest.CaptureFixture[str]
) -> None:
    geval, debate = two_runs
    capsys.readouterr()
    assert main(["meta-eval", str(geval.path), str(debate.path), "--compare", "--json", "--bootstrap", "50"]) == 0
    printed = json.loads(capsys.readouterr().out)
    comparisons = debate_eval.compare(geval, debate, bootstrap=50)
    assert [c.to_dict() for c in comparisons] == (printed if isinstance(printed, list) else printed["comparisons"])


def test_records_table_transcript_and_report(two_runs: tuple[debate_eval.Run, debate_eval.Run], api_env: Path) -> None:
    _, debate = two_runs
    table = debate.to_pandas()
    assert len(table) == 32 and {"score", "human_score", "parse_status", "prompt_tokens"} <= set(table.columns)
    assert table["prompt_tokens"].gt(0).all() and table["method"].eq("debate").all()
    first = debate.records[0]
    messages = debate.transcript(first.item_id)
    assert all(isinstance(m, debate_eval.Message) for m in messages)
    assert [m.role for m in messages][:2] == ["commander", "scorer"] and messages[1].content
    with pytest.raises(UserError, match="no item 'nope'"):
        debate.transcript("nope")
    page = debate.report(api_env / "page.html")
    assert page.is_file() and "<html" in page.read_text(encoding="utf-8")[:500].lower()


def test_load_run_takes_a_folder_or_its_results_file(two_runs: tuple[debate_eval.Run, debate_eval.Run]) -> None:
    geval, _ = two_runs
    for name in (geval.path, str(geval.path), geval.path / "results.jsonl"):
        loaded = debate_eval.load_run(name)
        assert loaded.path == geval.path and loaded.config_hash == geval.config_hash and len(loaded) == 32
    with pytest.raises(UserError, match="no such run directory"):
        debate_eval.load_run("no/such/run")


def test_compare_passes_ci_method_like_the_command(
    two_runs: tuple[debate_eval.Run, debate_eval.Run], capsys: pytest.CaptureFixture[str]
) -> None:
    geval, debate = two_runs
    capsys.readouterr()
    argv = ["meta-eval", str(geval.path), str(debate.path), "--compare", "--json", "--bootstrap", "50"]
    assert main([*argv, "--ci-method", "bca"]) == 0
    printed = json.loads(capsys.readouterr().out)
    comparisons = debate_eval.compare(geval, debate, bootstrap=50, ci_method="bca")
    assert [c.to_dict() for c in comparisons] == (printed if isinstance(printed, list) else printed["comparisons"])
    with pytest.raises(UserError, match="--missing sometimes"):
        debate_eval.compare(geval, debate, missing="sometimes")


def test_assert_judge_meets_is_the_fail_under_gate(two_runs: tuple[debate_eval.Run, debate_eval.Run]) -> None:
    geval, _ = two_runs
    spearman = geval.meta_evaluate(bootstrap=0)["summeval"]["coherence"].spearman
    assert isinstance(spearman, float)
    # 2 documents: the default coverage requirement (10 groups) fails the gate; min_coverage=0 turns it off
    with pytest.raises(AssertionError, match=r"^meta-eval: summeval/coherence spearman stands on too little: 2 groups"):
        debate_eval.assert_judge_meets(geval, spearman=spearman - 0.01)
    meta = debate_eval.assert_judge_meets(geval, spearman=spearman - 0.01, min_coverage=0)
    assert isinstance(meta, debate_eval.MetaEval) and meta["summeval"]["coherence"].spearman == spearman
    with pytest.raises(AssertionError, match="spearman"):
        debate_eval.assert_judge_meets(geval.path, spearman=spearman + 0.01, min_coverage=0)
    with pytest.raises(UserError, match="the bar for spearman must be a finite number in \\[-1, 1\\], not nan"):
        debate_eval.assert_judge_meets(geval, spearman=float("nan"))
    with pytest.raises(AssertionError):  # 2 documents: the minimum-units rule withholds the interval
        debate_eval.assert_judge_meets(geval, spearman=-1.0, lower_ci=True, bootstrap=50)


def test_run_report_takes_ci_method_like_meta_evaluate(tmp_path: Path) -> None:
    import random
    import re

    rng = random.Random(7)
    lines = []
    for i in range(56):  # 14 documents: enough groups for intervals
        record = {"item_id": f"d{i // 4}/S{i}", "dataset": "summeval", "aspect": "coherence", "protocol": "debate",
                  "group_id": f"d{i // 4}", "system_id": f"S{i}", "score": float(rng.randint(1, 5)),
                  "human_score": float(rng.randint(1, 5)), "parse_status": "parsed", "transcript": []}  # fmt: skip
        lines.append(json.dumps(record) + "\n")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.jsonl").write_text("".join(lines), encoding="utf-8")
    run = debate_eval.load_run(tmp_path / "run")
    ci95 = run.meta_evaluate(ci_method="bca").to_dict()["summeval"]["coherence"]["ci95"]
    page = run.report(tmp_path / "page.html", ci_method="bca").read_text(encoding="utf-8")
    shown = re.findall(r"<span class='ci'>\[([^<]*)\]</span>", page)
    assert shown == [f"{ci95[s][0]:.3f}, {ci95[s][1]:.3f}" for s in ("spearman", "kendall")]
    assert "Intervals: bca bootstrap" in page
    with pytest.raises(UserError, match="ci_method: choose one of percentile, bca"):
        run.report(tmp_path / "other.html", ci_method="basic")
