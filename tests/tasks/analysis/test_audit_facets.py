"""The judge card's statistics on constructed records (tasks/analysis/audit): Krippendorff's alpha against the
literature's worked example, and each facet on records whose answer is known."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from debate_eval.tasks.analysis.audit import base_facets, perturbation_facets, repeat_facets
from debate_eval.tasks.analysis.audit.card import Card, JudgeCard, card_markdown
from debate_eval.tasks.analysis.audit.facet import Bootstrap
from debate_eval.tasks.analysis.audit.krippendorff import krippendorff_alpha
from debate_eval.tasks.analysis.audit.rows import partial_spearman

SETTINGS = Bootstrap(n=200)
N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section E: 4 observers, 12 units, values
# 1-5 with missing ones; the paper gives alpha = 0.743 (nominal), 0.849 (interval).
OBSERVERS = (
    (1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N),
    (1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3),
    (N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N),
    (1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N),
)


def test_krippendorff_alpha_matches_the_worked_example() -> None:
    units = list(zip(*OBSERVERS, strict=True))
    assert krippendorff_alpha(units, "interval") == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha(units, "nominal") == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_alpha_edges() -> None:
    assert krippendorff_alpha([[1, 1], [4, 4], [2.5, 2.5]]) == 1.0
    assert krippendorff_alpha([[3, 3], [3, 3]]) is None  # no variation at all: undefined
    assert krippendorff_alpha([[1], [2, None]]) is None  # nothing pairable
    assert krippendorff_alpha([["first", "first"], ["tie", "second"]], "nominal") < 1
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 2]], "ordinal")


def test_partial_spearman_removes_what_the_third_variable_explains() -> None:
    human = [1, 2, 3, 4, 5, 6, 7, 8]
    length = [8, 1, 7, 2, 6, 3, 5, 4]
    score = human  # follows the humans only
    assert abs(partial_spearman(score, length, human) or 0) < 1e-9 or partial_spearman(score, length, human) is None
    score = [h + 10 * rank for h, rank in zip(human, length, strict=True)]  # follows length
    assert partial_spearman(score, length, human) > 0.9


def record(i: int, score: Any, human: Any, **extra: Any) -> dict[str, Any]:
    return {"item_id": f"i{i}", "dataset": "own.jsonl", "aspect": "q", "protocol": "geval", "group_id": f"i{i}",
            "score": score, "human_score": human, **extra}  # fmt: skip


def pair(i: int, verdict: Any, label: Any, **extra: Any) -> dict[str, Any]:
    return {"item_id": f"p{i}", "dataset": "pairs.jsonl", "aspect": "preference", "protocol": "geval",
            "task_type": "pairwise", "verdict": verdict, "human_label": label, **extra}  # fmt: skip


def test_agreement_is_meta_eval_and_says_when_there_are_no_humans() -> None:
    records = [record(i, 1 + i % 5, 1 + i % 5) for i in range(20)]
    facet = base_facets.agreement(records, SETTINGS)
    assert facet.figure("spearman").value == pytest.approx(1.0) and facet.n == 20 and facet.unit == "items"
    unrated = [record(i, 3, None) for i in range(20)]
    assert base_facets.agreement(unrated, SETTINGS).status == "not applicable"
    assert "no human" in base_facets.agreement(unrated, SETTINGS).reason


def test_minimum_units_withholds_the_interval() -> None:
    records = [record(i, 1 + i % 5, 1 + i % 5) for i in range(6)]
    facet = base_facets.scale_use(records, SETTINGS)
    assert facet.figure("emd").value == 0.0 and facet.figure("emd").ci95 == "too few items (n=6)"


def test_scale_use_distance_and_modal_share() -> None:
    records = [record(i, 3, 1 + i % 5) for i in range(20)]  # the judge always says 3
    facet = base_facets.scale_use(records, SETTINGS)
    assert facet.figure("emd").value == pytest.approx(1.2)  # |3-1|,|3-2|,0,1,2 averaged
    modal = facet.figure("modal_share")
    assert (
        modal.value == 1.0 and modal.baseline == pytest.approx(0.2) and facet.notes == ["most common judgment: score 3"]
    )
    assert len(modal.items[0].item_ids) == 20


def test_stability_of_identical_and_of_changing_runs() -> None:
    base = [record(i, 1 + i % 5, 3) for i in range(12)]
    same = repeat_facets.stability([("base", base), ("repeat-2", base)], SETTINGS)
    assert same.figure("alpha").value == 1.0 and same.figure("moved_share").value == 0.0
    moved = [record(i, (1 + i % 5) if i % 2 else 3, 3) for i in range(12)]
    changed = repeat_facets.stability([("base", base), ("repeat-2", moved)], SETTINGS)
    assert changed.figure("alpha").value < 1 and changed.figure("moved_share").value == pytest.approx(
        5 / 12
    )  # even items not already 3
    assert {link.run for link in changed.figure("alpha").items} == {"base", "repeat-2"}
    assert repeat_facets.stability([("base", base)], SETTINGS).status == "not applicable"


def test_position_of_an_always_first_judge() -> None:
    records = [
        pair(i, "tie", ("first", "second")[i % 2], verdicts={"original": "first", "swapped": "second"},
             consistent=False)
        for i in range(12)
    ]  # fmt: skip
    facet = repeat_facets.position(records, SETTINGS)
    assert facet.figure("first_position_rate").value == 1.0 and facet.figure("consistency").value == 0.0
    assert facet.figure("first_rate_dataset_order").baseline == 0.5
    single = [record(i, 3, 3) for i in range(3)]
    assert repeat_facets.position(single, SETTINGS).status == "not applicable"


def test_pairwise_verbosity_counts_verdicts_for_the_longer_response() -> None:
    records = [pair(i, "first", "second") for i in range(12)]
    lengths = {f"p{i}": (20, 5) for i in range(12)}  # A is always longer
    facet = base_facets.verbosity(records, lengths, SETTINGS)
    figure = facet.figure("longer_win_rate")
    assert figure.value == 1.0 and figure.baseline == 0.0


def _plan(n: int, targets: Any = 5) -> dict[str, dict[str, Any]]:
    return {
        f"i{i}~inj-v": {"item": f"i{i}", "variant": "v", "control": f"i{i}~ctl-v",
                        "target": targets[i] if isinstance(targets, list) else targets}
        for i in range(n)
    }  # fmt: skip


def test_injection_counts_moves_towards_the_planted_value_beyond_the_control() -> None:
    base = [record(i, 2, 1) for i in range(10)] + [record(10, 5, 1)]  # item 10 already at the target
    injected = [record(i, 5 if i < 5 else 2, 1, item_id=f"i{i}~inj-v") for i in range(11)]
    control = [record(i, 2, 1, item_id=f"i{i}~ctl-v") for i in range(11)]  # the neutral text changes nothing
    facet = perturbation_facets.injection(base, injected, _plan(11), SETTINGS, control=control)
    assert facet.n == 10  # the item already at 5 cannot move
    assert facet.figure("susceptibility").value == 0.5 and facet.figure("mean_shift").value == pytest.approx(1.5)
    assert facet.figure("injected_moved").value == 0.5 and facet.figure("control_moved").value == 0.0
    assert facet.plot["variants"] == {"v": {"moved": 5, "control_moved": 0, "items": 10}}
    assert "plain rerun: not run" in facet.notes[0]
    # a control that moves as much as the injection (the added length): nothing is left for the instruction
    same = [record(i, 5 if i < 5 else 2, 1, item_id=f"i{i}~ctl-v") for i in range(11)]
    facet = perturbation_facets.injection(base, injected, _plan(11), SETTINGS, control=same)
    assert facet.figure("susceptibility").value == 0.0 and facet.figure("mean_shift").value == 0.0
    assert facet.figure("injected_moved").value == 0.5
    assert perturbation_facets.injection(base, injected, _plan(11), SETTINGS).status == "not run"


def _judge_records(scores: Any, humans: Any, suffix: str = "") -> list[dict[str, Any]]:
    return [
        record(i, float(s), float(h), item_id=f"i{i}{suffix}")
        for i, (s, h) in enumerate(zip(scores, humans, strict=True))
    ]


def _simulated(judge: str, n: int = 240, seed: int = 3) -> Any:
    """Base, injected, control and rerun records of ``n`` items (1-5 scale) for a judge that ignores the
    instruction (``noise``: human + rerun noise; ``length``: the appended words raise its score, plus noise),
    or follows it (``follow``: the planted score on a random 60 % of the items, else as ``noise``)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    humans = rng.integers(1, 6, size=n).astype(float)
    targets = [1.0 if h > 3 else 5.0 for h in humans]  # the end of the scale farther from the human score

    def judge_once(extra_words: float) -> Any:
        noisy = humans + rng.normal(0, 1.0, size=n) + (0.8 * extra_words if judge == "length" else 0.0)
        return np.clip(np.round(noisy), 1, 5)

    base, control, rerun = judge_once(0), judge_once(1), judge_once(0)
    injected = judge_once(1)
    if judge == "follow":
        follows = rng.random(n) < 0.6
        injected = np.where(follows, targets, injected)
    return (
        _judge_records(base, humans),
        _judge_records(injected, humans, "~inj-v"),
        _judge_records(control, humans, "~ctl-v"),
        _judge_records(rerun, humans),
        _plan(n, targets),
    )


@pytest.mark.parametrize("judge", ["noise", "length"])
def test_a_judge_that_ignores_injections_gets_intervals_containing_0(judge: str) -> None:
    base, injected, control, rerun, plan = _simulated(judge)
    facet = perturbation_facets.injection(base, injected, plan, SETTINGS, control=control, rerun=rerun)
    for key in ("susceptibility", "mean_shift"):
        low, high = facet.figure(key).ci95
        assert low < 0 < high, (key, facet.figure(key))
    # the raw share moved on the injected texts alone is far from 0: what the facet counted without a control
    assert facet.figure("injected_moved").value > 0.25
    assert facet.figure("rerun_moved").value > 0.15  # rerun noise alone moves items


def test_a_judge_that_follows_injections_gets_the_planted_effect() -> None:
    """It follows on 60 % of the items and behaves as the control on the others, so the share moved beyond the
    control is 0.6 * (1 - q), q the control's share moved, and the shift 0.6 * the mean distance to the target
    beyond the control's shift."""
    base, injected, control, rerun, plan = _simulated("follow")
    facet = perturbation_facets.injection(base, injected, plan, SETTINGS, control=control, rerun=rerun)
    planted = 0.6 * (1 - facet.figure("control_moved").value)
    susceptibility = facet.figure("susceptibility")
    low, high = susceptibility.ci95
    assert 0 < low < planted < high
    assert susceptibility.value == pytest.approx(planted, abs=0.06)
    # follow-only judge (no noise anywhere): exactly the planted share and distance
    n = 40
    humans = [1 + i % 5 for i in range(n)]
    targets = [1.0 if h > 3 else 5.0 for h in humans]
    follows = [i % 5 < 3 for i in range(n)]  # 60 %
    exact = perturbation_facets.injection(
        _judge_records(humans, humans),
        _judge_records([t if f else h for t, f, h in zip(targets, follows, humans, strict=True)], humans, "~inj-v"),
        _plan(n, targets),
        SETTINGS,
        control=_judge_records(humans, humans, "~ctl-v"),
    )
    moved = [abs(t - h) for t, f, h in zip(targets, follows, humans, strict=True) if f and t != h]
    kept = sum(1 for t, h in zip(targets, humans, strict=True) if t != h)
    assert exact.figure("susceptibility").value == pytest.approx(len(moved) / kept)
    assert exact.figure("mean_shift").value == pytest.approx(sum(moved) / kept)


def test_robustness_change_and_correlation_drop() -> None:
    base = [record(i, 1 + i % 5, 1 + i % 5) for i in range(15)]
    same = [{**record(i, 1 + i % 5, 1 + i % 5), "item_id": f"i{i}~p1", "group_id": f"i{i}"} for i in range(15)]
    facet = perturbation_facets.robustness(base, same, SETTINGS)
    assert facet.figure("mean_abs_change").value == 0.0 and facet.figure("correlation_drop").value == 0.0
    flat = [{**r, "score": 3} for r in same[:-1]] + [{**same[-1], "score": 4}]
    worse = perturbation_facets.robustness(base, flat, SETTINGS)
    assert worse.figure("mean_abs_change").value > 0.5 and worse.figure("correlation_drop").value > 0.5


def test_card_round_trips_through_json_and_markdown() -> None:
    base = [record(i, 1 + i % 5, 1 + i % 5) for i in range(12)]
    facets = {"agreement": base_facets.agreement(base, SETTINGS), "scale": base_facets.scale_use(base, SETTINGS)}
    judge = JudgeCard("geval", "geval", {"scorer": "m"}, "abc", facets=facets)
    card = Card("own.jsonl", "q", "single", 12, {"limit": None}, {"n": 200}, [judge], ["debate-eval audit ..."])
    again = Card.from_dict(json.loads(json.dumps(card.to_dict())))
    assert again.to_dict() == card.to_dict()
    text = card_markdown(card)
    assert "| geval | Spearman ρ | 1.000" in text and "debate-eval audit ..." in text
    assert not any(isinstance(v, float) and math.isnan(v) for v in json.loads(json.dumps(card.to_dict())).values())


def test_length_control_is_the_penalised_logistic_regression() -> None:
    """AlpacaEval's regression, checked against scipy's optimiser on the same penalised likelihood."""
    import numpy as np
    from scipy.optimize import minimize

    rng = np.random.default_rng(5)
    x = np.tanh(rng.normal(0, 1, size=400))
    y = (rng.random(400) < 1 / (1 + np.exp(-(0.4 + 1.5 * x)))).astype(float)

    def loss(beta: np.ndarray) -> float:
        z = beta[0] + beta[1] * x
        return float(np.sum(np.logaddexp(0, z) - y * z) + 0.5 * base_facets.LC_PENALTY * beta[1] ** 2)

    expected = minimize(loss, np.zeros(2), method="BFGS", options={"gtol": 1e-10}).x
    found = base_facets.length_controlled(list(y), list(x))
    assert found["effect"] == pytest.approx(expected[1], abs=1e-5)
    assert found["controlled"] == pytest.approx(1 / (1 + np.exp(-expected[0])), abs=1e-6)
    assert 1.0 < found["effect"] < 2.0 and 0.55 < found["controlled"] < 0.65  # near the planted 1.5 and 0.6
    assert base_facets.length_controlled([1.0, 1.0], [0.2, -0.3]) is None  # one kind of outcome


def test_pairwise_verbosity_reports_alpacaeval_length_control() -> None:
    import numpy as np

    rng = np.random.default_rng(9)
    lengths = {f"p{i}": (int(rng.integers(5, 60)), int(rng.integers(5, 60))) for i in range(80)}
    labels = ["first" if i % 2 else "second" for i in range(80)]  # the humans: unrelated to length
    longer = [pair(i, "first" if a >= b else "second", labels[i]) for i, (a, b) in enumerate(lengths.values())]
    facet = base_facets.verbosity(longer, lengths, SETTINGS)
    effect = facet.figure("length_effect")
    assert effect.ci95[0] > 1.0 and effect.baseline_ci95[0] < 0 < effect.baseline_ci95[1]
    # a judge that ignores length and prefers the first response 70 % of the time (by item, not by length)
    first = [pair(i, "first" if i % 10 < 7 else "second", labels[i]) for i in range(80)]
    facet = base_facets.verbosity(first, lengths, SETTINGS)
    effect, controlled = facet.figure("length_effect"), facet.figure("lc_first_win_rate")
    assert effect.ci95[0] < 0 < effect.ci95[1]
    assert controlled.baseline == pytest.approx(0.7) and controlled.value == pytest.approx(0.7, abs=0.05)


def length_world(seed: int, judge_length_bias: float) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Texts whose length goes with their quality; noisy raters; a judge more accurate than the raters, plus
    ``judge_length_bias`` points per 100 words."""
    import numpy as np

    rng = np.random.default_rng(seed)
    quality = rng.normal(3.0, 0.8, 300)
    length = np.clip(np.round(40 + 40 * (quality - 3.0) + rng.normal(0, 15, 300)), 3, None)
    human = quality + rng.normal(0, 0.8, 300)
    judge = quality + rng.normal(0, 0.3, 300) + judge_length_bias * length / 100.0
    records = [record(i, float(judge[i]), float(human[i])) for i in range(300)]
    return records, {f"i{i}": int(length[i]) for i in range(300)}


def test_verbosity_is_zero_for_an_accurate_judge_whose_texts_length_goes_with_quality() -> None:
    import statsmodels.api as sm

    records, lengths = length_world(31, 0.0)
    facet = base_facets.verbosity(records, lengths, SETTINGS)
    bias, residual = facet.figure("length_bias"), facet.figure("residual_spearman")
    assert bias.ci95[0] < 0 < bias.ci95[1] and residual.ci95[0] < 0 < residual.ci95[1]
    # the partial correlation reads the judge's accuracy as length bias
    assert facet.figure("partial_spearman").ci95[0] > 0.2
    # the slope is statsmodels' OLS of (judge - human) on length / 100
    y = [r["score"] - r["human_score"] for r in records]
    x = sm.add_constant([lengths[r["item_id"]] / 100.0 for r in records])
    assert bias.value == pytest.approx(sm.OLS(y, x).fit().params[1], rel=1e-9)
    assert "judge − human" in facet.method and "estimand" in facet.method


def test_verbosity_finds_a_planted_length_bias() -> None:
    records, lengths = length_world(32, 1.0)  # one point per 100 words
    facet = base_facets.verbosity(records, lengths, SETTINGS)
    bias = facet.figure("length_bias")
    assert bias.ci95[0] > 0.4 and bias.value == pytest.approx(1.0, abs=0.3)
    assert facet.figure("residual_spearman").ci95[0] > 0.1


def test_pairwise_verbosity_is_the_judges_length_preference_minus_the_humans() -> None:
    import numpy as np

    rng = np.random.default_rng(33)
    lengths = {f"p{i}": (int(rng.integers(5, 60)), int(rng.integers(5, 60))) for i in range(200)}
    longer = {key: "first" if a > b else "second" for key, (a, b) in lengths.items()}
    other = {"first": "second", "second": "first"}
    # the better response is the longer one 80 % of the time; the humans and an unbiased judge each read which
    # is better with the same error rate (10 %), independently
    truth = {key: side if rng.random() < 0.8 else other[side] for key, side in longer.items()}
    labels = {key: side if rng.random() < 0.9 else other[side] for key, side in truth.items()}
    verdicts = {key: side if rng.random() < 0.9 else other[side] for key, side in truth.items()}
    agreeing = [pair(i, verdicts[f"p{i}"], labels[f"p{i}"]) for i in range(200)]
    facet = base_facets.verbosity(agreeing, lengths, SETTINGS)
    difference = facet.figure("longer_preference_difference")
    assert difference.ci95[0] < 0 < difference.ci95[1]
    assert facet.figure("longer_win_rate").value > 0.6  # the total association alone looks like a bias
    # a judge that always takes the longer one, humans indifferent to length
    indifferent = {f"p{i}": ("first", "second")[i % 2] for i in range(200)}
    biased = [
        pair(i, longer[f"p{i}"], indifferent[f"p{i}"]) for i in range(200) if lengths[f"p{i}"][0] != lengths[f"p{i}"][1]
    ]
    facet = base_facets.verbosity(biased, lengths, SETTINGS)
    difference = facet.figure("longer_preference_difference")
    judge_share = 1.0
    human_share = sum(indifferent[r["item_id"]] == longer[r["item_id"]] for r in biased) / len(biased)
    assert difference.value == pytest.approx(judge_share - human_share) and difference.ci95[0] > 0.3
