"""The ``meta-eval`` command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli import meta_eval


def rec(
    item_id: str,
    group: str,
    human: float | None,
    score: float | None,
    dataset: str = "summeval",
    aspect: str = "coherence",
    protocol: str | None = "debate",
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item_id,
        "dataset": dataset,
        "aspect": aspect,
        "group_id": group,
        "system_id": "M0",
        "human_score": human,
        "score": score,
        "parse_status": "parsed" if score is not None else "no_score",
    }
    if protocol is not None:
        record["protocol"] = protocol
    return record


def group(prefix: str, humans: list[float], scores: list[float | None], **kwargs: Any) -> list[dict[str, Any]]:
    return [rec(f"{prefix}-{i}", prefix, h, s, **kwargs) for i, (h, s) in enumerate(zip(humans, scores, strict=True))]


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail, encoding="utf-8")
    return path


def _run_command(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    meta_eval.add_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    status = args.handler(args)
    return status, capsys.readouterr().out


def test_command_prints_table_json_and_distribution(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5]))
    status, out = _run_command(["meta-eval", str(path)], capsys)
    assert status == 0
    assert "summeval/coherence" in out
    assert "0.610" in out
    status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    assert status == 0
    assert json.loads(out)["summeval"]["coherence"]["spearman"] == pytest.approx(1.0)
    status, out = _run_command(["meta-eval", str(tmp_path), "--distribution"], capsys)
    assert status == 0
    assert "summeval/average" in out
    assert "Score distribution" in out
