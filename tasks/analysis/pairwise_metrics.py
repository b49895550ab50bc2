"""Pairwise meta-evaluation: how a judge's A-versus-B verdicts agree with the human labels.

Labels and verdicts are ``"first"``, ``"second"`` or ``"tie"``. Per dataset/aspect/protocol:

- ``accuracy``: share of items whose verdict equals the human label (ChatEval's Acc.).
- ``kappa``: Cohen's κ over the three classes, ``(p_o − p_e) / (1 − p_e)`` with ``p_e = Σ_c p_verdict(c) ·
  p_human(c)`` (ChatEval's Kap.); None when ``p_e`` is 1.
- ``macro_f1``: the mean over the classes present (in labels or verdicts) of ``2·TP / (2·TP + FP + FN)``.
- ``n_items`` all records; ``n_missing`` records without a verdict (no verdict parsed, failed item) and
  ``n_unlabelled`` records without a human label: both are left out of the metrics, never imputed.
- With ``--swap`` runs (records with ``consistent``): ``consistency`` = share of the swapped items whose two
  verdicts agree after un-swapping (Fennec); ``agreement`` = accuracy on the consistent items only (Fennec's
  Agreement). ``n_swapped`` items had both orders judged, ``n_consistent`` agreed.
- ``ci95``: bootstrap intervals resampling items (see :mod:`bootstrap`); the minimum-units text
  (``"too few items (n=7)"``) when fewer than ``MIN_UNITS`` items have both a verdict and a human label.
- A verdict of ``NO_VERDICT`` (``"none"``, used by ``--compare --missing wrong``) is a verdict that never
  equals a label: it counts against accuracy and κ, and as a miss of the label's class in macro-F1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, MIN_UNITS, Intervals, bootstrap_ci, too_few_units
from debate_eval.tasks.analysis.records import VERDICTS, RecordLike, resampling_key, score_row, score_rows

METRICS = ("accuracy", "kappa", "macro_f1", "consistency", "agreement")
NO_VERDICT = "none"  # a missing verdict counted as wrong (never equal to a human label)

# (verdict or None, human label or None, consistent or None) per item
Judged = tuple[str | None, str | None, bool | None]


@dataclass
class PairwiseReport:
    """Agreement of one dataset/aspect/protocol's verdicts with the human labels."""

    dataset: str
    aspect: str
    protocol: str
    accuracy: float | None
    kappa: float | None
    macro_f1: float | None
    consistency: float | None
    agreement: float | None
    n_items: int
    n_missing: int
    n_unlabelled: int
    n_swapped: int
    n_consistent: int
    task_type: str = "pairwise"
    ci95: Intervals = field(default=None)
    imported: bool = False  # the records came from ``debate-eval import`` (no paper row unless asked)
    n_scored: int = 0  # items with both a verdict and a human label: what the figures stand on
    systems: dict[str, Any] | None = None  # each system's win rate against the others (``systems.win_rates``)
    judgebench: dict[str, Any] | None = None  # JudgeBench's own figures on its pairs (``judgebench``)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (JSON-serialisable)."""
        return asdict(self)


def accuracy(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Share of (verdict, label) pairs that are equal."""
    return sum(v == h for v, h in pairs) / len(pairs) if pairs else None


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's κ of (verdict, label) pairs over the classes ``first``/``second``/``tie``."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(v == h for v, h in pairs) / n
    verdicts, labels = Counter(v for v, _ in pairs), Counter(h for _, h in pairs)
    expected = sum(verdicts[c] * labels[c] for c in VERDICTS) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def macro_f1(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Macro-averaged F1 over the classes seen in the verdicts or the labels."""
    if not pairs:
        return None
    classes = [c for c in VERDICTS if any(c in pair for pair in pairs)]
    scores = []
    for c in classes:
        tp = sum(v == c and h == c for v, h in pairs)
        fp = sum(v == c and h != c for v, h in pairs)
        fn = sum(v != c and h == c for v, h in pairs)
        scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores)


def metrics(items: Sequence[Judged]) -> dict[str, float | None]:
    """Every metric of :data:`METRICS` over the judged items (see the module docstring)."""
    scored = [(v, h) for v, h, _ in items if v is not None and h is not None]
    swapped = [(v, h, c) for v, h, c in items if c is not None]
    consistent = [(v, h) for v, h, c in swapped if c and v is not None and h is not None]
    return {
        "accuracy": accuracy(scored),
        "kappa": cohen_kappa(scored),
        "macro_f1": macro_f1(scored),
        "consistency": sum(1 for *_, c in swapped if c) / len(swapped) if swapped else None,
        "agreement": accuracy(consistent),
    }


def judged(record: RecordLike) -> Judged:
    """(verdict, human label, consistent) of one pairwise record."""
    row = score_row(record)
    consistent = row.consistent
    return row.verdict, row.human_label, consistent if isinstance(consistent, bool) else None


def evaluate_pairwise(
    dataset: str,
    aspect: str,
    protocol: str,
    records: Sequence[RecordLike],
    bootstrap: int = 0,
    ci_method: str = DEFAULT_CI_METHOD,
    min_units: int = MIN_UNITS,
) -> PairwiseReport:
    """The pairwise report for one dataset/aspect/protocol, with ``bootstrap`` resamples for ``ci95``.

    The minimum-units rule counts the items with both a verdict and a human label.
    """
    items = [judged(record) for record in records]
    values = metrics(items)
    scored = sum(1 for v, h, _ in items if v is not None and h is not None)
    ci95: Intervals = None
    if bootstrap:
        ci95 = too_few_units(scored, "items", min_units) or bootstrap_ci(
            [judged(row) for row in sorted(score_rows(records), key=resampling_key)],
            metrics,
            METRICS,
            bootstrap,
            method=ci_method,
            unit="items",
            min_units=min_units,
        )
    swapped = [c for *_, c in items if c is not None]
    return PairwiseReport(
        dataset=dataset,
        aspect=aspect,
        protocol=protocol,
        **values,
        n_items=len(items),
        n_missing=sum(1 for v, _, _ in items if v is None),
        n_unlabelled=sum(1 for _, h, _ in items if h is None),
        n_swapped=len(swapped),
        n_consistent=sum(swapped),
        ci95=ci95,
        n_scored=scored,
    )
