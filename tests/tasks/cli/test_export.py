"""``debate-eval export RUN --format inspect --out FILE``: an inspect_ai eval log of a run, read back with
``inspect_ai.log.read_eval_log`` (what ``inspect view`` reads)."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support.integrations import REQUIRE_INTEGRATIONS

import debate_eval
from debate_eval.tasks.cli.main import main

SCRIPTED = {"provider": "scripted", "no_progress": True}
REQUIRED = os.environ.get(REQUIRE_INTEGRATIONS) == "1"  # read now: isolated_env removes DEBATE_EVAL_* later


def test_without_inspect_ai_one_line_names_the_extra(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=1, out="r", **SCRIPTED)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # an import of it fails, as when it is not installed
    assert main(["export", "r", "--format", "inspect", "--out", "r.eval"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "debate-eval: error: inspect_ai is not installed: pip install 'debate-eval[inspect]'"
    assert not Path("r.eval").exists()


def test_not_a_run_directory(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "nowhere", "--format", "inspect", "--out", "x.eval"]) == 2
    assert capsys.readouterr().err.strip() == "debate-eval: error: nowhere: no such run directory"


class TestWithInspect:
    """With inspect_ai installed (the ``inspect`` extra; CI's integrations venv)."""

    @pytest.fixture(autouse=True)
    def _inspect(self) -> None:
        if importlib.util.find_spec("inspect_ai") is None:
            if REQUIRED:
                pytest.fail("inspect_ai is not installed")
            pytest.skip("inspect_ai is not installed: pip install 'debate-eval[inspect]'")

    @pytest.mark.parametrize("suffix", [".eval", ".json"])
    def test_a_debate_run_reads_back(self, isolated_env: Path, suffix: str, capsys: pytest.CaptureFixture[str]) -> None:
        from inspect_ai.log import read_eval_log

        run = debate_eval.evaluate("summeval", aspect="coherence", limit=2, max_rounds=2, out="r", **SCRIPTED)
        out = Path("logs") / f"run{suffix}"
        assert main(["export", "r", "--format", "inspect", "--out", str(out)]) == 0
        assert capsys.readouterr().out.strip() == f"wrote {out}"
        log = read_eval_log(str(out))
        assert log.status == "success" and log.eval.model == "scripted/scripted"
        assert log.eval.task == "debate_eval/summeval/coherence" and log.eval.solver == "debate"
        assert log.samples is not None and len(log.samples) == 2 and log.results is not None
        records = {r.item_id: r for r in run.records}
        assert {s.id for s in log.samples} == set(records)
        for sample in log.samples:
            record = records[str(sample.id)]
            assert [m.content for m in sample.messages] == [m.content for m in record.transcript]
            roles = ["assistant" if m.usage is not None else "user" for m in record.transcript]
            assert [m.role for m in sample.messages] == roles and roles.count("assistant") == 5
            assert [(m.metadata or {}).get("agent") for m in sample.messages] == [m.agent for m in record.transcript]
            assert sample.input == record.transcript[0].content and sample.target == str(record.human_score)
            assert sample.scores is not None
            score = sample.scores["debate_eval"]
            answers = [m.content for m in record.transcript if m.agent == "Scorer" and m.usage is not None]
            assert score.value == record.score and score.explanation == answers[-1] == sample.output.completion
            assert score.metadata == {
                "parse_status": "parsed",
                "parse_method": record.parse_method,
                "rounds": 2,
                "agreed": False,
                "stop_reason": "max_rounds",
                "decided_by": "Scorer",
                "human_score": record.human_score,
            }
            tokens = sum(m.usage["prompt_tokens"] for m in record.transcript if m.usage)
            assert sample.model_usage["scripted/scripted"].input_tokens == tokens
        mean = sum(r.score for r in records.values() if r.score is not None) / 2
        assert log.results.scores[0].metrics["mean"].value == pytest.approx(mean)

    def test_a_pairwise_run_exports_its_verdicts(self, isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
        from inspect_ai.log import read_eval_log

        dataset_path("pandalm")  # skips (or fails under DEBATE_EVAL_REQUIRE_DATA=1) without the data
        run = debate_eval.evaluate("pandalm", aspect="preference", method="geval", limit=2, out="p", **SCRIPTED)
        assert main(["export", "p", "--format", "inspect", "--out", "p.eval"]) == 0
        log = read_eval_log("p.eval")
        assert log.samples is not None
        verdicts = {r.item_id: r.verdict for r in run.records}
        assert {str(s.id): s.scores["debate_eval"].value for s in log.samples if s.scores} == verdicts
        assert all(v in ("first", "second", "tie") for v in verdicts.values())
        assert {str(s.id): s.target for s in log.samples} == {r.item_id: str(r.human_label) for r in run.records}

    def test_a_wrong_suffix_is_refused(self, isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
        debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=1, out="r", **SCRIPTED)
        assert main(["export", "r", "--format", "inspect", "--out", "r.txt"]) == 2
        assert capsys.readouterr().err.strip() == "debate-eval: error: r.txt: an inspect log is a .eval or .json file"
