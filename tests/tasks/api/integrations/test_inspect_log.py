"""``debate_eval.integrations.inspect_log``: a run as an inspect_ai eval log from Python (the ``export``
command's tests cover the command line), and the one-line error of a missing extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.integrations import integration_library

import debate_eval
from debate_eval.integrations import require

SCRIPTED = {"provider": "scripted", "no_progress": True}


@pytest.fixture
def inspect_installed() -> None:
    """inspect_ai, or a skip (a failure under DEBATE_EVAL_REQUIRE_INTEGRATIONS=1): asked before isolated_env."""
    integration_library("inspect_ai", "inspect")


def test_a_missing_library_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "deepeval", None)
    with pytest.raises(debate_eval.UserError) as caught:
        require("deepeval", "deepeval")
    assert str(caught.value) == "deepeval is not installed: pip install 'debate-eval[deepeval]'"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_multi_aspect_run_has_one_sample_per_item_and_aspect(inspect_installed: None, isolated_env: Path) -> None:
    from inspect_ai.log import read_eval_log

    from debate_eval.integrations.inspect_log import export_inspect_log

    run = debate_eval.evaluate("summeval", aspect="coherence,fluency", method="geval", limit=2, out="r", **SCRIPTED)
    path = export_inspect_log(run, Path("out") / "log.eval")
    log = read_eval_log(str(path))
    assert log.samples is not None
    assert sorted(str(s.id) for s in log.samples) == sorted(f"{r.item_id}/{r.aspect}" for r in run.records)
    assert len(log.samples) == 4
    by_id = {f"{r.item_id}/{r.aspect}": r for r in run.records}
    assert all(s.scores and s.scores["debate_eval"].value == by_id[str(s.id)].score for s in log.samples)


def test_cached_prompt_tokens_and_the_standard_error_are_exported(inspect_installed: None, isolated_env: Path) -> None:
    """Prompt tokens a provider served from its prompt cache (the roles' billed cached prompt tokens, planted
    here: the scripted server reports none) become ``input_tokens_cache_read``; the results carry ``stderr``
    beside ``mean``."""
    import json
    import math

    from inspect_ai.log import read_eval_log

    from debate_eval.integrations.inspect_log import export_inspect_log

    run = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=4, out="r", **SCRIPTED)
    results = Path("r") / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    planted = {}
    for number, line in enumerate(lines, 1):
        for usage in line["usage"].values():
            usage["billed_cached_prompt_tokens"] = 10 * number
        planted[line["item_id"]] = 10 * number * len(line["usage"])
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    log = read_eval_log(str(export_inspect_log(debate_eval.load_run("r"), Path("out") / "log.eval")))
    model = log.eval.model
    assert {str(s.id): s.model_usage[model].input_tokens_cache_read for s in log.samples} == planted
    assert log.stats.model_usage[model].input_tokens_cache_read == sum(planted.values())
    scores = [float(r.score) for r in run.records if r.score is not None]
    assert len(scores) == 4
    mean = sum(scores) / len(scores)
    by_hand = math.sqrt(sum((x - mean) ** 2 for x in scores) / (len(scores) - 1)) / math.sqrt(len(scores))
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == pytest.approx(mean) and metrics["stderr"].value == pytest.approx(by_hand)
