"""``debate-eval repeat``: the paper's determinism check, with the cache off."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, default_reply, role_of_request
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.cli.repeat import summarize
from debate_eval.tasks.engine.record import Record


def repeat(server: ScriptedOpenAIServer, out: Path, *extra: str) -> int:
    args = ["repeat", "--dataset", "summeval", "--aspect", "coherence", "--items", "2", "--times", "3"]
    return main([*args, "--base-url", server.base_url, "--model", "m", "--out", str(out), "--no-preflight", *extra])


def test_a_deterministic_model_gives_the_same_scores(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        assert repeat(server, isolated_env / "r", "--protocol", "geval") == 0
        assert server.count == 6  # 2 items x 3 times, nothing from the cache
    report = json.loads((isolated_env / "r" / "repeat.json").read_text())
    assert report["items"] == 2 and report["repetitions"] == 3 and report["items_with_differing_scores"] == 0
    assert report["scores_differing_from_the_mode"] == 0
    assert len((isolated_env / "r" / "repeat.jsonl").read_text().splitlines()) == 6
    assert "differed between repetitions: 0" in capsys.readouterr().out


def test_a_drifting_model_is_caught(isolated_env: Path) -> None:
    counter = itertools.count()

    def drifting(request: dict) -> str:  # the evaluator's answer changes on every call
        return f"{1 + next(counter) % 5}" if role_of_request(request) == "evaluator" else default_reply(request)

    with ScriptedOpenAIServer(reply=drifting) as server:
        assert repeat(server, isolated_env / "r", "--protocol", "geval", "--geval-no-logprobs") == 0
    report = json.loads((isolated_env / "r" / "repeat.json").read_text())
    assert report["items_with_differing_scores"] == 2


def test_summary_counts_items_that_varied_and_scores_off_their_items_mode() -> None:
    scores = {"a": [3, 3, 3, 4], "b": [2, 2, 2, 2], "c": [1, 5, 5, None]}
    records = [
        Record(item_id=i, dataset="summeval", aspect="coherence", score=x, extra={"repetition": r})
        for i, xs in scores.items()
        for r, x in enumerate(xs)
    ]
    records.append(
        Record(item_id="b", dataset="summeval", aspect="coherence", error="APITimeoutError", extra={"repetition": 4})
    )
    report = summarize(records)
    assert report["items"] == 3 and report["repetitions"] == 5
    assert report["items_with_differing_scores"] == 3  # b's failed repetition counts as a difference
    assert report["scores_differing_from_the_mode"] == 1 + 1 + 2
    assert report["scores"]["c"] == {"1": 1, "5": 2, "None": 1}
