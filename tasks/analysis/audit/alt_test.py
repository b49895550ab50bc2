"""Can the judge replace a human annotator? The alternative annotator test (alt-test; Calderon, Reichart and
Dror, ACL 2025), implemented from its definition.

Data: items rated by several annotators, and the judge's score of each. For each annotator *j* in turn
(leave one out), on the items *j* rated that at least one other annotator also rated:

- the judge's alignment with the others, S(f, i, j), and annotator *j*'s, S(h_j, i, j): the negative root mean
  squared difference to the other annotators' ratings of item *i* (``neg_rmse``; for labels, ``accuracy``: the
  share of the others who gave the same label);
- W^f_i = 1 when S(f) ≥ S(h_j) (the judge represents the others at least as well as *j* does), W^h_i = 1 when
  S(h_j) ≥ S(f); ties count for both (scores within 1e-9 are ties, so that a judge's 2.9999999999999996, a
  float sum of probabilities, ties with a rating of 3);
- the one-sided test of H0: mean(W^h − W^f) ≥ ε against H1: mean(W^h − W^f) < ε, by a t-test of the
  differences (the same p as scipy's paired ``ttest_rel(W^h, W^f + ε, alternative="less")``). ε is the
  cost-benefit allowance the judge gets for being cheaper and faster: the paper suggests 0.2 for expert
  annotators, 0.15 for skilled ones and 0.1 for crowd workers (the default here: the strictest).

The p-values of the annotators tested are corrected for the false discovery rate by the Benjamini–Yekutieli
procedure at q = 0.05 (valid under any dependence between the tests, which share items); the **winning rate**
ω is the share of annotators whose null is rejected, and the judge **passes** when ω ≥ 0.5 with at least
``MIN_ANNOTATORS`` (3, as the paper recommends) annotators tested: with fewer, ω stands on too little to pass
(of two, one alone makes it 0.5). The **advantage probability** ρ is the mean over annotators of mean(W^f): how
often the judge is at least as good a stand-in as a randomly chosen annotator (for comparing judges; it does
not depend on ε). Annotators with fewer than
``min_items`` (30, for the t-test's normal approximation, as the paper advises) such items are not tested and
are listed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from debate_eval.tasks.analysis.audit.facet import TITLES, Facet, Figure, not_applicable

DEFAULT_EPSILON = 0.1
DEFAULT_Q = 0.05
MIN_ITEMS = 30
MIN_ANNOTATORS = 3  # annotators tested before the judge can pass
TIE = 1e-9  # alignment scores this close are equal (a score of 2.9999999999999996 ties with 3)
NEG_RMSE, ACCURACY = "neg_rmse", "accuracy"

Annotation = float | str


def neg_rmse(prediction: Annotation, others: Sequence[Annotation]) -> float:
    """−√(mean (prediction − other)²) over the other annotators' ratings."""
    return -math.sqrt(sum((float(prediction) - float(o)) ** 2 for o in others) / len(others))


def accuracy(prediction: Annotation, others: Sequence[Annotation]) -> float:
    """The share of the other annotators who gave the same label."""
    return sum(prediction == o for o in others) / len(others)


SCORING: dict[str, Callable[[Annotation, Sequence[Annotation]], float]] = {NEG_RMSE: neg_rmse, ACCURACY: accuracy}


def benjamini_yekutieli(p_values: Sequence[float], q: float = DEFAULT_Q) -> list[bool]:
    """Which hypotheses the Benjamini–Yekutieli step-up procedure rejects at FDR level ``q``: the largest k
    with p_(k) ≤ k q / (m Σ_{i≤m} 1/i), and every hypothesis with a p-value at most p_(k) (those whose
    BY-adjusted p, ``scipy.stats.false_discovery_control``, is at most ``q``)."""
    if not p_values:
        return []
    return [bool(adjusted <= q) for adjusted in stats.false_discovery_control(p_values, method="by")]


@dataclass
class AnnotatorResult:
    """The test of one left-out annotator."""

    annotator: str
    n: int
    judge_wins: float  # mean W^f: the share of items where the judge aligns with the others at least as well
    annotator_wins: float  # mean W^h
    p: float | None = None
    rejected: bool = False  # the judge is at least as good a stand-in (ε allowed), after the FDR correction


@dataclass
class AltTest:
    """The alt-test of one judge."""

    epsilon: float
    q: float
    scoring: str
    annotators: list[AnnotatorResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # annotators with too few items to test

    @property
    def tested(self) -> list[AnnotatorResult]:
        """The annotators that were tested."""
        return [a for a in self.annotators if a.p is not None]

    @property
    def winning_rate(self) -> float | None:
        """ω: the share of tested annotators whose null is rejected."""
        tested = self.tested
        return sum(a.rejected for a in tested) / len(tested) if tested else None

    @property
    def advantage_probability(self) -> float | None:
        """ρ: the mean over tested annotators of the judge's win share."""
        tested = self.tested
        return float(np.mean([a.judge_wins for a in tested])) if tested else None

    @property
    def passed(self) -> bool:
        """ω ≥ 0.5 over at least ``MIN_ANNOTATORS`` annotators tested."""
        return len(self.tested) >= MIN_ANNOTATORS and self.winning_rate is not None and self.winning_rate >= 0.5

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "epsilon": self.epsilon,
            "q": self.q,
            "scoring": self.scoring,
            "winning_rate": self.winning_rate,
            "advantage_probability": self.advantage_probability,
            "passed": self.passed,
            "annotators": [vars(a) for a in self.annotators],
            "skipped": self.skipped,
        }


def one_sided_p(differences: np.ndarray, epsilon: float) -> float:
    """The p of H0: mean ≥ ε against mean < ε by a one-sample t-test; when every difference is the same (no
    variance, where the t statistic is undefined) 0 when that value is below ε, else 1."""
    if np.all(differences == differences[0]):
        return 0.0 if differences[0] < epsilon else 1.0
    return float(stats.ttest_1samp(differences, epsilon, alternative="less").pvalue)


def alt_test(
    judge: Mapping[str, Annotation],
    annotations: Mapping[str, Mapping[str, Annotation]],
    *,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    scoring: str = NEG_RMSE,
    min_items: int = MIN_ITEMS,
) -> AltTest:
    """The alt-test of ``judge`` (item id -> its score or label) against ``annotations`` (annotator -> item id
    -> rating or label). See the module docstring."""
    score = SCORING[scoring]
    raters_of: dict[str, list[str]] = {}
    for annotator, given in annotations.items():
        for item in given:
            raters_of.setdefault(item, []).append(annotator)
    result = AltTest(epsilon=epsilon, q=q, scoring=scoring)
    p_values: list[float] = []
    for annotator, given in annotations.items():
        items = [i for i in given if i in judge and len(raters_of[i]) >= 2]
        if len(items) < min_items:
            result.skipped.append(annotator)
            continue
        judge_wins, annotator_wins = [], []
        for item in items:
            others = [annotations[other][item] for other in raters_of[item] if other != annotator]
            s_judge, s_annotator = score(judge[item], others), score(given[item], others)
            judge_wins.append(1.0 if s_judge >= s_annotator - TIE else 0.0)
            annotator_wins.append(1.0 if s_annotator >= s_judge - TIE else 0.0)
        w_f, w_h = np.asarray(judge_wins), np.asarray(annotator_wins)
        p = one_sided_p(w_h - w_f, epsilon)
        p_values.append(p)
        result.annotators.append(AnnotatorResult(annotator, len(items), float(w_f.mean()), float(w_h.mean()), p))
    for entry, rejected in zip(result.annotators, benjamini_yekutieli(p_values, q), strict=True):
        entry.rejected = rejected
    return result


ALT_TEST = "alt_test"


def alt_test_facet(
    judge_scores: Mapping[str, float], annotations: Mapping[str, Mapping[str, float]], epsilon: float
) -> Facet:
    """The alt-test as a facet of the judge card: ``judge_scores`` item id -> the judge's score (the base run),
    ``annotations`` annotator -> item id -> rating (the data's ``annotators=`` field)."""
    if len(annotations) < 2:
        return not_applicable(ALT_TEST, "needs several annotators' ratings per item (--fields annotators=A|B|C)")
    result = alt_test(judge_scores, annotations, epsilon=epsilon)
    if not result.tested:
        return not_applicable(
            ALT_TEST,
            f"too few items rated by an annotator and at least one other (fewer than {MIN_ITEMS}): "
            f"{', '.join(result.skipped)}",
        )
    tested = result.tested
    figures = [
        Figure("winning_rate", "winning rate ω (passes at ≥ 0.5)", result.winning_rate, baseline=0.5,
               baseline_label="the bar to pass"),
        Figure("advantage_probability", "advantage probability ρ", result.advantage_probability),
    ]  # fmt: skip
    for entry in result.annotators:
        if entry.p is None:
            continue
        figures.append(
            Figure(f"annotator:{entry.annotator}", f"vs {entry.annotator}: judge's win share (p={entry.p:.3g}, "
                   f"{'rejected' if entry.rejected else 'not rejected'})", entry.judge_wins,
                   baseline=entry.annotator_wins, baseline_label=f"{entry.annotator}'s own win share")
        )  # fmt: skip
    notes = [f"{'passes' if result.passed else 'does not pass'}: ω = {result.winning_rate:.2f} with ε = {epsilon:g}"]
    if len(tested) < MIN_ANNOTATORS:
        notes[0] += f" over {len(tested)} annotator(s) tested; passing needs at least {MIN_ANNOTATORS}"
    if result.skipped:
        notes.append(f"not tested (fewer than {MIN_ITEMS} items): {', '.join(result.skipped)}")
    return Facet(
        name=ALT_TEST,
        title=TITLES[ALT_TEST],
        method=(
            "The alternative annotator test (Calderon, Reichart and Dror 2025). Each annotator left out in turn: on "
            "the items it rated with at least one other, whether the judge's score is at least as close to the "
            "others' ratings (negative RMSE) as the annotator's own (W^f), and the reverse (W^h); H0: mean(W^h − W^f)"
            f" ≥ ε = {epsilon:g}, one-sided t-test; Benjamini–Yekutieli FDR control at q = {DEFAULT_Q:g} over the "
            f"annotators. ω: the share of annotators whose H0 is rejected (the judge passes at ω ≥ 0.5 with at least "
            f"{MIN_ANNOTATORS} annotators tested); ρ: the mean "
            "share of items where the judge is at least as good. No bootstrap: the test is the paper's."
        ),
        n=max(entry.n for entry in tested),
        unit="items",
        runs=["base"],
        figures=figures,
        notes=notes,
    )
