"""The JudgeBench reader: JudgeBench's figures for the released judges (checked by a hand count over the raw
JSON, independent of the reader), and every kind of row a JudgeBench output file can hold."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.imports.judgebench import (
    flip_decision,
    judgebench_score,
    read_judgebench,
    read_judgebench_pairs,
)

PAIRS = "judgebench/judgebench_gpt-4o-2024-05-13.jsonl"
O1_MINI = "judgebench/outputs/arena_hard_o1-mini-2024-09-12.jsonl"
INTERNLM = "judgebench/outputs/reward_model_internlm2-7b-reward.jsonl"


def shared_file(shared_data_dir: Path, relative: str) -> Path:
    """A JudgeBench file of the shared data folder, or skip (fail with DEBATE_EVAL_REQUIRE_DATA=1)."""
    path = shared_data_dir / relative
    if not path.is_file():
        reason = f"{path} not found (JudgeBench does not ship); set DEBATE_EVAL_DATA_DIR to the shared data folder"
        if os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def hand_count(path: Path) -> tuple[int, int]:
    """(right, pairs) counted straight from the raw lines, as JudgeBench's utils/metrics.py defines it."""
    right = total = 0
    swap = {"A>B": "B>A", "B>A": "A>B"}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        first, second = row["judgments"]
        d1 = first["decision"] if first else None
        d2 = second["decision"] if second else None
        d2 = swap.get(d2, d2)
        total_points = sum((d == row["label"]) - (d == swap[row["label"]]) for d in (d1, d2))
        right += total_points > 0
        total += 1
    return right, total


@pytest.mark.parametrize(("relative", "published"), [(O1_MINI, 65.71), (INTERNLM, 59.43)])
def test_the_released_judges_score_as_judgebench_publishes(
    shared_data_dir: Path, relative: str, published: float
) -> None:
    path = shared_file(shared_data_dir, relative)
    pairs = read_judgebench(path, shared_file(shared_data_dir, PAIRS))
    right, total = hand_count(path)
    assert total == len(pairs) == 350
    assert judgebench_score(pairs) == pytest.approx(100 * right / total, abs=1e-12)
    assert round(100 * right / total, 2) == published


def test_reward_scores_are_put_in_the_pair_order(shared_data_dir: Path) -> None:
    path = shared_file(shared_data_dir, INTERNLM)
    pairs = read_judgebench(path)
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for pair, row in zip(pairs, raw, strict=True):
        first, second = (j["judgment"]["scores"] for j in row["judgments"])
        assert pair.scores == ((first[0], first[1]), (second[1], second[0]))
        assert pair.margin == pytest.approx(((first[0] - first[1]) + (second[1] - second[0])) / 2)
    assert all(pair.judge_name == "reward_model" for pair in pairs)
    assert pairs[0].decisions == ("A>B", "A>B") and pairs[0].consistent is True


def test_the_pairs_file_is_read_with_its_sources(shared_data_dir: Path) -> None:
    pairs = read_judgebench_pairs(shared_file(shared_data_dir, PAIRS))
    assert len(pairs) == 350
    sources = {row["source"] for row in pairs.values()}
    assert {"livebench-reasoning", "livebench-math", "livecodebench"} <= sources
    assert any(source.startswith("mmlu-pro-") for source in sources)


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def output_row(pair_id: str, label: str, *judgments: object, **extra: object) -> dict[str, object]:
    return {"pair_id": pair_id, "source": "livecodebench", "label": label, "question": "q",
            "response_A": "a", "response_B": "b", "judgments": list(judgments), **extra}  # fmt: skip


def judgment(decision: object, scores: object = None) -> dict[str, object]:
    inner: dict[str, object] = {"judge_model": "some-judge", "prompt": "p", "response": "r"}
    if scores is not None:
        inner["scores"] = scores
    return {"judgment": inner, "decision": decision}


def test_any_output_row_is_served(tmp_path: Path) -> None:
    """Null decisions, ties, a null judgment, one judgment only, unknown strings, other judge names."""
    path = write_lines(
        tmp_path / "out.jsonl",
        [
            output_row("1", "A>B", judgment("A>B"), judgment(None)),  # +1: right
            output_row("2", "A>B", judgment("A=B"), judgment("A=B")),  # 0: not right
            output_row("3", "B>A", judgment("B>A"), judgment("B>A")),  # swapped B>A is A>B: 0
            output_row("4", "B>A", None, judgment("A>B")),  # flipped back B>A: +1
            output_row("5", "A>B", judgment("A>>B")),  # one judgment, a string JudgeBench does not know: 0
            output_row("6", "B>A", judgment("B>A"), judgment("A>B"), judge_name="my_judge"),  # +2
        ],
    )
    pairs = read_judgebench(path)
    assert [pair.points for pair in pairs] == [1, 0, 0, 1, 0, 2]
    assert judgebench_score(pairs) == pytest.approx(100 * 3 / 6)
    assert pairs[2].decisions == ("B>A", "A>B") and pairs[2].consistent is False
    assert pairs[0].consistent is None and pairs[0].verdicts == ("first", None)
    assert pairs[4].decisions == ("A>>B",) and pairs[4].verdicts == (None,)
    assert pairs[5].judge_name == "my_judge" and pairs[0].judge_name is None
    assert all(pair.margin is None for pair in pairs)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (output_row("1", "A=B", judgment("A>B")), "row 2 (counted from 1): field 'label'"),
        (output_row("1", "A>B"), "row 2 (counted from 1): field 'judgments'"),
        (output_row("1", "A>B", judgment(1)), "row 2 (counted from 1): field 'judgments[0].decision'"),
        (output_row("1", "A>B", judgment("A>B", [1.0])), "'judgments[0].judgment.scores'"),
        (
            output_row("1", "A>B", judgment("A>B", [10**400, 1])),
            "row 2 (counted from 1): field 'judgments[0].judgment.scores'",
        ),
        ({"label": "A>B", "judgments": []}, "row 2 (counted from 1): field 'pair_id'"),
    ],
)
def test_bad_rows_are_one_line_naming_the_row(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = write_lines(tmp_path / "out.jsonl", [output_row("0", "A>B", judgment("A>B")), row])
    with pytest.raises(UserError, match=re.escape(message)):
        read_judgebench(path)


def test_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """A file an editor saved with a BOM reads as without it (was: 'line 1 is not valid JSON')."""
    path = write_lines(tmp_path / "out.jsonl", [output_row("1", "A>B", judgment("A>B"), judgment("B>A"))])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert [pair.points for pair in read_judgebench(path, path)] == [2]  # both orders right: +1 +1


def test_outputs_are_checked_against_the_pairs_file(tmp_path: Path) -> None:
    pairs = write_lines(tmp_path / "pairs.jsonl", [output_row("1", "A>B")])
    other = write_lines(tmp_path / "a.jsonl", [output_row("2", "A>B", judgment("A>B"))])
    with pytest.raises(UserError, match="pair_id '2' is not in the pairs file"):
        read_judgebench(other, pairs)
    relabelled = write_lines(tmp_path / "b.jsonl", [output_row("1", "B>A", judgment("A>B"))])
    with pytest.raises(UserError, match="differs from the pairs file"):
        read_judgebench(relabelled, pairs)


def test_flip_decision_changes_only_strict_preferences() -> None:
    assert [flip_decision(d) for d in ("A>B", "B>A", "A=B", None, "x")] == ["B>A", "A>B", "A=B", None, "x"]


def test_import_writes_a_run_that_rescore_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The import from the outputs file alone (its rows repeat the pairs); rescore has no judge text to read."""
    from debate_eval.tasks.cli.main import main

    path = write_lines(
        tmp_path / "out.jsonl",
        [output_row("1", "A>B", judgment("A>B"), judgment("A>B")), output_row("2", "B>A", judgment("A=B"), None)],
    )
    out = tmp_path / "run"
    assert main(["import", "judgebench", str(path), "--out", str(out)]) == 0
    assert "JudgeBench's score 0.00 % (0 of 2 pairs right)" in capsys.readouterr().out
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["verdicts"] for row in lines] == [
        {"original": "first", "swapped": "second"},
        {"original": "tie", "swapped": None},
    ]
    assert [row["consistent"] for row in lines] == [False, None]
    assert [row["details"]["judgebench"]["points"] for row in lines] == [0, 0]
    assert main(["rescore", str(out), "--dry-run"]) == 2
    assert "nothing to read again" in capsys.readouterr().err


def test_an_imported_run_holds_no_configured_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A secret of the environment quoted in a released judgment is masked in results.jsonl, as a run's lines
    are (it was written in clear)."""
    from debate_eval.tasks.cli.main import main

    monkeypatch.setenv("MY_SERVICE_TOKEN", "envtokenvalue12345")
    quoting = {"judgment": {"judge_model": "j", "prompt": "p", "response": "key envtokenvalue12345"}, "decision": "A>B"}
    path = write_lines(tmp_path / "out.jsonl", [output_row("1", "A>B", quoting, judgment("B>A"))])
    assert main(["import", "judgebench", str(path), "--out", str(tmp_path / "run")]) == 0
    written = (tmp_path / "run" / "results.jsonl").read_text(encoding="utf-8")
    assert "envtokenvalue12345" not in written and "key [redacted]" in written
    assert json.loads(written)["redactions"] == 1
