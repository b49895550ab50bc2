"""The cascade with a guarantee: the exact bound against scipy, the threshold search against a brute force
over scipy's binomial test, planted judges of known accuracy (the guarantee holds over seeded splits; a judge at
chance decides nothing), and ``debate-eval cascade`` over planted run directories."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from support.planted_judges import answers_right, planted, planted_runs, population_agreement, write_run

from debate_eval.tasks.analysis.cascade import (
    ABSTAINED,
    agreement_lower_bound,
    apply_cascade,
    assign,
    calibrate_threshold,
    simulate,
    threshold_grid,
)
from debate_eval.tasks.cli.main import main


@pytest.mark.parametrize(("agreed", "decided"), [(8, 10), (30, 40), (1, 1), (97, 100), (0, 5), (5, 5)])
@pytest.mark.parametrize("level", [0.05, 0.1])
def test_the_lower_bound_is_scipys_exact_interval(agreed: int, decided: int, level: float) -> None:
    # a one-sided level-δ Clopper-Pearson bound is the low end of the two-sided exact interval at 1 - 2δ
    expected = binomtest(agreed, decided).proportion_ci(confidence_level=1 - 2 * level, method="exact").low
    assert agreement_lower_bound(agreed, decided, level) == pytest.approx(expected, abs=1e-9)


def brute_force_threshold(conf: np.ndarray, right: np.ndarray, alpha: float, level: float, min_decided: int) -> float:
    """The same search written plainly, each bound from scipy's binomtest."""
    chosen = float("inf")
    for value in threshold_grid(201):
        above = conf >= value
        if above.sum() < min_decided:
            continue
        low = binomtest(int(right[above].sum()), int(above.sum())).proportion_ci(1 - 2 * level, "exact").low
        if low < alpha:
            break
        chosen = float(value)
    return chosen


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_threshold_search_matches_a_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    conf = rng.uniform(0.5, 1.0, 150)
    right = rng.uniform(size=150) < conf  # calibrated: right with probability = confidence
    found = calibrate_threshold(conf, right, 0.8, 0.1, grid=201, min_decided=20)
    assert found.value == brute_force_threshold(conf, right, 0.8, 0.1, 20)
    if found.decides:
        above = conf >= found.value
        assert (found.decided, found.agreed) == (int(above.sum()), int(right[above].sum()))


def test_a_judge_at_chance_decides_nothing_and_a_perfect_one_everything() -> None:
    rng = np.random.default_rng(3)
    conf = rng.uniform(size=200)
    coin = rng.uniform(size=200) < 0.5
    assert not calibrate_threshold(conf, coin, 0.8, 0.1).decides
    perfect = calibrate_threshold(conf, np.ones(200, dtype=bool), 0.8, 0.1)
    assert perfect.value == 0.0 and perfect.decided == 200
    assert not calibrate_threshold(np.full(200, np.nan), coin, 0.8, 0.1).decides  # no confidence: never


def test_the_cascade_calls_judge_2_on_what_judge_1_left_and_counts_costs() -> None:
    conf1 = np.array([0.9, 0.2, 0.95, 0.1, np.nan])
    conf2 = np.array([0.0, 0.8, 0.0, 0.3, 0.9])
    who = assign([conf1, conf2], [0.5, 0.5])
    assert who.tolist() == [0, 1, 0, ABSTAINED, 1]
    right = [np.array([1, 0, 1, 0, 0], bool), np.array([0, 1, 0, 0, 1], bool)]
    costs = [np.full(5, 10.0), np.full(5, 100.0)]
    outcome = apply_cascade(["cheap", "strong"], [conf1, conf2], [0.5, 0.5], corrects=right, costs=costs)
    assert outcome.agreed == 4 and outcome.decided == 4 and outcome.agreement == 1.0
    assert outcome.cost_per_item == pytest.approx((5 * 10 + 3 * 100) / 5)  # judge 2 on the 3 items judge 1 left
    assert outcome.shares() == {"cheap": 0.4, "strong": 0.4, "abstained": 0.2}


@pytest.mark.parametrize("thresholds", [(0.8, 0.9), (0.95, 0.6), (float("inf"), 0.7), (0.3, float("inf"))])
def test_the_planted_population_agreement_matches_a_large_sample(thresholds: tuple[float, float]) -> None:
    confidences, corrects = planted(200_000, seed=9)
    outcome = apply_cascade(["a", "b"], confidences, list(thresholds), corrects=corrects)
    assert outcome.agreement == pytest.approx(population_agreement(thresholds), abs=0.005)


@pytest.mark.parametrize("alpha", [0.7, 0.8, 0.9])
def test_planted_judges_keep_the_guarantee_over_seeded_splits(alpha: float) -> None:
    """The guarantee is about the population: the agreement of the decided items, known by construction for the
    planted judges (``population_agreement``), reaches alpha in at least 1 - delta of the calibration draws."""
    confidences, corrects = planted(350, seed=0)
    result = simulate(["cheap", "strong"], confidences, corrects, alpha, 0.1, splits=20, seed=5)
    reached = [population_agreement([t.value for t in split.thresholds]) for split in result.splits]
    assert sum(value is None or value >= alpha for value in reached) >= 0.9 * len(reached)
    assert any(value is not None for value in reached)  # it decides items, not only abstains
    for split in result.splits:
        assert sum(split.test.shares().values()) == pytest.approx(1.0)
        assert all(t.level == pytest.approx(0.05) for t in split.thresholds)  # delta split over two judges


def test_cascade_command_reports_the_held_out_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two, _ = planted_runs(tmp_path)
    assert main(["cascade", str(one), str(two), "--alpha", "0.8", "--delta", "0.1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["judges"] == ["cheap", "strong"] and report["calibration_items"] == 200
    assert report["test_items"] == 200
    shares = report["test"]["shares"]
    assert sum(shares.values()) == pytest.approx(1.0)
    assert len(report["abstained"]) == round(shares["abstained"] * 200)
    assert report["cost"]["tokens_per_item"] == {"cheap": 100.0, "strong": 100.0}
    expected = 100 + 100 * (1 - shares["cheap"])  # judge 2 only on what judge 1 left
    assert report["cost"]["cascade_tokens_per_item"] == pytest.approx(expected)
    assert main(["cascade", str(one), str(two), "--alpha", "0.8"]) == 0
    text = capsys.readouterr().out
    assert "held out: agreement" in text and "left for a person" in text


def test_cascade_reads_a_labels_file_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two, labels = planted_runs(tmp_path)
    file = tmp_path / "labels.jsonl"
    file.write_text("".join(json.dumps({"item_id": f"q{i}", "verdict": v}) + "\n" for i, v in enumerate(labels)))
    assert main(["cascade", str(one), str(two), "--alpha", "0.7", "--labels", str(file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["test_items"] == 200
    file.write_text('{"item_id": "q1", "verdict": "maybe"}\n')
    bare = write_run(tmp_path / "bare", labels, labels, [None] * len(labels))
    cases = [
        (
            [str(one), str(two), "--alpha", "0.7", "--labels", str(file)],
            r"labels.jsonl: line 1 \(counted from 1\): verdict",
        ),
        ([str(bare), str(two), "--alpha", "0.7"], "bare records no confidence"),
        ([str(one), "--alpha", "0.7"], "two runs or more"),
        ([str(one), str(two), "--alpha", "1.5"], "alpha must be between 0 and 1"),
    ]
    for argv, message in cases:
        assert main(["cascade", *argv]) == 2
        error = capsys.readouterr().err
        assert len(error.strip().splitlines()) == 1 and re.search(message, error), error


def test_a_judge_never_trusted_has_no_bound_in_text_or_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sure judge that is always wrong accepts no item: its bound over no items is not printed as a number."""
    human = [("first", "second")[i % 2] for i in range(200)]
    wrong = write_run(tmp_path / "wrong", answers_right(human, [False] * 200), human, [1.0] * 200)
    right = write_run(tmp_path / "right", human, human, [1.0] * 200)
    assert main(["cascade", str(wrong), str(right), "--alpha", "0.8", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    first, second = report["thresholds"]
    assert (first["threshold"], first["decided"], first["lower_bound"]) == (None, 0, "n/a (no item accepted)")
    assert second["lower_bound"] == pytest.approx(0.05 ** (1 / 100), abs=1e-6)  # the closed form for all agreeing
    assert main(["cascade", str(wrong), str(right), "--alpha", "0.8"]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("wrong"))
    assert "never" in row and "n/a" in row and "0.000" not in row
    assert "bound n/a (no item accepted)" in text


def test_too_few_labels_for_alpha_and_delta_is_an_error_not_an_empty_cascade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With 6 labelled items (3 to calibrate on), no threshold can pass alpha 0.8 at delta 0.1 over two judges,
    whatever the judges answer: all 3 agreeing bound the agreement below by 0.05 ** (1/3); 14 are needed
    (0.05 ** (1/13) < 0.8 <= 0.05 ** (1/14)). Said so, instead of a report that the cascade decided nothing."""
    one, two, labels = planted_runs(tmp_path)
    file = tmp_path / "labels.jsonl"
    file.write_text("".join(json.dumps({"item_id": f"q{i}", "verdict": labels[i]}) + "\n" for i in range(6)))
    low = binomtest(3, 3, alternative="greater").proportion_ci(confidence_level=0.95).low
    assert 0.05 ** (1 / 13) < 0.8 <= 0.05 ** (1 / 14)
    assert main(["cascade", str(one), str(two), "--alpha", "0.8", "--labels", str(file), "--min-decided", "1"]) == 2
    error = capsys.readouterr().err
    assert "3 labelled calibration items can pass no threshold" in error and f"is {low:.3f}, under --alpha 0.8" in error
    assert "(14 items needed); label about 28 items" in error and len(error.strip().splitlines()) == 1
    assert main(["cascade", str(one), str(two), "--alpha", "0.8", "--labels", str(file)]) == 2
    assert "label about 60 items (30 to calibrate on" in capsys.readouterr().err  # the default --min-decided 30
    for flag, value, message in [("--min-decided", "0", "give 1 or more"), ("--tolerance", "-1", "distance >= 0")]:
        assert main(["cascade", str(one), str(two), "--alpha", "0.8", flag, value]) == 2
        assert message in capsys.readouterr().err


def test_items_not_judged_by_every_run_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Runs of different item sets: the cascade works on the shared items and says how many it left out."""
    one, two, _ = planted_runs(tmp_path)
    short = tmp_path / "short"
    short.mkdir()
    lines = (two / "results.jsonl").read_text(encoding="utf-8").splitlines()
    (short / "results.jsonl").write_text("\n".join(lines[:-50]) + "\n", encoding="utf-8")
    assert main(["cascade", str(one), str(short), "--alpha", "0.7", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["not_shared_items"] == 50 and report["calibration_items"] + report["test_items"] == 350
    assert main(["cascade", str(one), str(short), "--alpha", "0.7"]) == 0
    assert "; 50 items not judged by every run left out" in capsys.readouterr().out


def test_the_guarantee_on_judgebench_released_judgments(shared_data_dir: Path, tmp_path: Path) -> None:
    """Skywork's reward margin then the o1-mini Arena-Hard judge, 20 seeded splits (scripts/bench_cascade.py
    runs 200): the realised agreement on the decided test items reaches alpha in at least 90% of them."""
    from debate_eval.tasks.analysis.labelled import align, load_judge

    from .imports.test_judgebench import O1_MINI, PAIRS, shared_file

    pairs = shared_file(shared_data_dir, PAIRS)
    runs = []
    for name in ("judgebench/outputs/reward_model_Skywork-Reward-Gemma-2-27B.jsonl", O1_MINI):
        out = tmp_path / Path(name).stem
        assert (
            main(["import", "judgebench", str(pairs), str(shared_file(shared_data_dir, name)), "--out", str(out)]) == 0
        )
        runs.append(load_judge(out))
    aligned = align(runs)
    assert len(aligned.keys) == 350
    for alpha in (0.7, 0.8):
        result = simulate(aligned.names, list(aligned.confidence), list(aligned.correct), alpha, 0.1, splits=20, seed=1)
        assert result.held >= 0.9
        decided = [s.test.agreement for s in result.splits if s.test.agreement is not None]
        assert decided  # the cascade decides items in some splits, not only abstains


def test_a_huge_min_decided_gives_an_exact_count_of_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--min-decided 10**29 needs 10**29 calibration items: the labels to ask for are 10**29 / share rounded up,
    counted exactly (a float division printed 199999999999999982866301714432). A count that is not a whole number
    is refused by the parser."""
    one, two, _ = planted_runs(tmp_path, n=40)
    huge = 10**29
    for share, expected in (("0.5", 2 * huge), ("0.3", -(-huge * 10 // 3))):
        argv = ["cascade", str(one), str(two), "--alpha", "0.8", "--min-decided", str(huge), "--calibration", share]
        assert main(argv) == 2
        error = capsys.readouterr().err
        assert f"label about {expected} items ({huge} to calibrate on at --calibration {share})" in error
        assert len(error.strip().splitlines()) == 1
    for text in ("1e29", "2.5"):
        with pytest.raises(SystemExit) as stopped:
            main(["cascade", str(one), str(two), "--alpha", "0.8", "--min-decided", text])
        assert stopped.value.code == 2
        assert f"argument --min-decided: invalid int value: '{text}'" in capsys.readouterr().err
