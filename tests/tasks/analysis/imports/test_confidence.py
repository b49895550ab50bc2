"""Released judges' confidences, each checked against a computation from the raw published files: a reward
model's score gap (sigmoid of the mean margin of both orders), the o1-mini Arena-Hard judge's verdict strength
when its orders agree, AlpacaEval's preference distance from 1.5."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import debate_eval
from debate_eval.tasks.cli.main import main

from .test_judgebench import O1_MINI, PAIRS, shared_file

SKYWORK = "judgebench/outputs/reward_model_Skywork-Reward-Gemma-2-27B.jsonl"
ALPACA = "alpaca_eval/annotations/alpaca-7b.json"


def imported(shared_data_dir: Path, tmp_path: Path, outputs: str) -> dict[str, debate_eval.Record]:
    out = tmp_path / Path(outputs).stem
    pairs, judged = shared_file(shared_data_dir, PAIRS), shared_file(shared_data_dir, outputs)
    assert main(["import", "judgebench", str(pairs), str(judged), "--out", str(out)]) == 0
    return {record.key: record for record in debate_eval.load_run(out).records}


def test_a_reward_models_margin(shared_data_dir: Path, tmp_path: Path) -> None:
    records = imported(shared_data_dir, tmp_path, SKYWORK)
    for line in shared_file(shared_data_dir, SKYWORK).read_text().splitlines()[:60]:
        row = json.loads(line)
        gaps = []
        for index, judgment in enumerate(row["judgments"]):
            scores = judgment["judgment"]["scores"]
            scores = json.loads(scores) if isinstance(scores, str) else scores
            gaps.append(scores[0] - scores[1] if index == 0 else scores[1] - scores[0])
        record = records[row["pair_id"]]
        if record.consistent is False:
            assert record.confidence == 0.0
        else:
            expected = 1 / (1 + math.exp(-abs(sum(gaps) / len(gaps))))
            assert record.confidence == pytest.approx(expected, abs=1e-6)
            assert "reward margin" in record.details["confidence_basis"]


def test_an_llm_judges_verdict_strength(shared_data_dir: Path, tmp_path: Path) -> None:
    records = imported(shared_data_dir, tmp_path, O1_MINI)
    seen = set()
    for line in shared_file(shared_data_dir, O1_MINI).read_text().splitlines():
        row = json.loads(line)
        record = records[row["pair_id"]]
        strengths = []
        for judgment in row["judgments"]:
            found = re.findall(r"\[\[([AB])(>>|>|=)([AB])\]\]", judgment["judgment"]["response"])
            strengths.append({">>": 1.0, ">": 0.5, "=": 0.0}[found[-1][1]] if found else 1.0)
        if record.consistent is True:
            assert record.confidence == pytest.approx(sum(strengths) / 2)
        elif record.consistent is False:
            assert record.confidence == 0.0
        seen.add(record.confidence)
    assert {0.0, 0.5, 1.0} <= seen


def test_alpaca_evals_preference(shared_data_dir: Path, tmp_path: Path) -> None:
    path = shared_file(shared_data_dir, ALPACA)
    out = tmp_path / "alpaca"
    assert main(["import", "alpaca-eval", str(path), "--out", str(out)]) == 0
    rows = json.loads(path.read_text())
    records = debate_eval.load_run(out).records
    assert len(records) == len(rows)
    for row, record in zip(rows, records, strict=True):
        preference = float(row["preference"]) if row["preference"] not in (None, 0, "0") else 1.5
        assert record.confidence == pytest.approx(0.5 + abs(preference - 1.5), abs=1e-6)
