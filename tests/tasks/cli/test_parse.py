"""``debate-eval parse``: one answer, its score or verdict, and the rule."""

from __future__ import annotations

import io
import json

import pytest

from debate_eval.tasks.cli.main import main


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_leading_number_and_rule(capsys: pytest.CaptureFixture) -> None:
    status, out, _ = run(["parse", "4\n\nThe summary is consistent with the article."], capsys)
    assert status == 0
    assert out.splitlines()[0] == "score: 4  (rule: leading_number; parsed)"


def test_json_with_scale_and_aspect(capsys: pytest.CaptureFixture) -> None:
    _, out, _ = run(["parse", "- Fluency (1-3): 2", "--scale", "1-3", "--aspect", "fluency", "--json"], capsys)
    payload = json.loads(out)
    assert (payload["value"], payload["method"], payload["status"]) == (2.0, "labelled", "parsed")
    assert payload["span"] == [17, 18]
    _, out, _ = run(["parse", "Score: 5", "--scale", "1-3", "--json"], capsys)
    assert json.loads(out)["status"] == "out_of_range"


def test_no_score_and_bad_scale(capsys: pytest.CaptureFixture) -> None:
    _, out, _ = run(["parse", "I cannot judge this."], capsys)
    assert out.startswith("score: no score  (rule: none; no_score)")
    status, _, err = run(["parse", "4", "--scale", "5-1"], capsys)
    assert status == 2
    assert "invalid scale" in err


def test_verdict_and_stdin(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("After weighing both, my verdict: [[B]]"))
    status, out, _ = run(["parse", "-", "--verdict", "--json"], capsys)
    assert status == 0
    assert json.loads(out)["value"] == "second"
    _, out, _ = run(["parse", "Both are fine.", "--verdict"], capsys)
    assert out.startswith("verdict: no verdict")
