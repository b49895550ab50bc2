"""Choosing a judge from labels (``debate-eval select``): the best of several configurations, confirmed.

The candidates are finished runs of the same items (methods, personas, rounds, templates, models...), the
simplest first: it is the one kept unless another is shown to be better. The labelled items are split at random
(seeded; by group when the data has groups, so that a document's summaries stay together) into a development
split and a held-out split:

1. On the development split every candidate is compared with the simplest (``compare.compare_runs``, the paired
   comparison of ``meta-eval --compare``, differences only): the primary statistic is the accuracy against the
   human verdicts (pairwise; a missing verdict counts as wrong) or the Spearman correlation with the human
   scores (single scores; per group and averaged when the data has groups). The candidate with the largest
   gain is the one to confirm.
2. On the held-out split that candidate is compared with the simplest again, with the paired test of
   ``meta-eval --compare``: the exact McNemar test (pairwise), or the paired t-test over groups / the paired
   bootstrap over items (single scores). It is chosen only when it is better there with p below ``level``
   (one test, so no correction); otherwise the simplest is kept, and the report says no candidate was shown
   to be better.

Beside each candidate: its statistic on both splits and its tokens (and dollars, when the run was priced) per
item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.compare import Comparison, compare_runs
from debate_eval.tasks.analysis.labelled import LabelledJudge, load_judge
from debate_eval.tasks.analysis.labels import with_label
from debate_eval.tasks.analysis.records import ScoreRow, group_of, iter_checked, results_path

DEFAULT_DEV_SHARE = 0.5
DEFAULT_LEVEL = 0.05
PAIRWISE_STATISTIC, SCORE_STATISTIC = "accuracy", "spearman"


@dataclass(frozen=True)
class Candidate:
    """One configuration: its name, its statistic on the development and held-out splits, its cost."""

    name: str
    dev: float | None
    test: float | None
    tokens_per_item: float
    usd_per_item: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Selection:
    """What ``select`` found: every candidate, the one the development split pointed to, the held-out test of
    it against the simplest (``delta``, ``p_value``) and the one ``chosen``."""

    statistic: str
    candidates: tuple[Candidate, ...]
    simplest: str
    best_on_dev: str
    delta: float | None  # held-out statistic, best on dev minus simplest
    p_value: float | None
    test_name: str
    level: float
    chosen: str
    dev_items: int
    test_items: int
    seed: int
    held_out: tuple[str, ...] = ()  # the held-out items' ids
    not_shared_items: int = 0  # labelled items some candidate did not judge: left out

    @property
    def confirmed(self) -> bool:
        """True when a candidate other than the simplest was shown better on the held-out split."""
        return self.chosen != self.simplest

    def reason(self) -> str:
        """One sentence: why ``chosen``."""
        if all(candidate.dev is None for candidate in self.candidates):
            return (
                f"no candidate has a {self.statistic} on the development split (constant answers, or too few "
                "items): nothing to choose on, the simplest is kept"
            )
        if self.best_on_dev == self.simplest:
            return f"no candidate beat {self.simplest} on the development split: the simplest is kept"
        shown = "not computed" if self.p_value is None else f"{self.p_value:.3g}"
        delta = "-" if self.delta is None else f"{self.delta:+.3f}"
        if self.confirmed:
            return (
                f"{self.chosen} is better than {self.simplest} on the held-out split ({self.statistic} {delta}, "
                f"{self.test_name} p = {shown} < {self.level:g})"
            )
        return (
            f"{self.best_on_dev} was best on the development split but is not significantly better than "
            f"{self.simplest} on the held-out split ({self.statistic} {delta}, {self.test_name} p = {shown}, "
            f"needs < {self.level:g}): the simplest is kept"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``debate-eval select --json``)."""
        out = {key: value for key, value in self.__dict__.items() if key != "candidates"}
        out["candidates"] = [c.to_dict() for c in self.candidates]
        out["reason"] = self.reason()
        return out


def _rows(path: Any, labels: Mapping[str, Any] | None) -> dict[str, ScoreRow]:
    """The run's rows by ``item key<TAB>aspect`` (the last line of each wins)."""
    latest: dict[str, ScoreRow] = {}
    for record in iter_checked(results_path(path)):
        row = ScoreRow.of(record)
        if labels is not None:  # the file's labels are the human ratings (as meta-eval --labels reads them)
            row = with_label(row, labels.get(row.key))
        latest[f"{row.key}\t{row.aspect}"] = row
    return latest


def _labelled(row: ScoreRow) -> bool:
    return (row.human_label if row.pairwise else row.human_score) is not None


def select_judge(
    runs: Sequence[Any],
    *,
    labels: Mapping[str, Any] | None = None,
    dev_share: float = DEFAULT_DEV_SHARE,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    resamples: int = 2000,
) -> Selection:
    """Choose among ``runs`` (run directories of the same items, the simplest first) as the module says."""
    if len(runs) < 2:
        raise UserError("select needs two runs or more (the simplest first)")
    if not 0 < dev_share < 1:
        raise UserError(f"--dev must be between 0 and 1 (exclusive), not {dev_share}")
    if not 0 < level < 1:
        raise UserError(f"--level must be between 0 and 1 (exclusive), not {level}")
    judges: list[LabelledJudge] = [load_judge(path) for path in runs]
    if len({j.name for j in judges}) < len(judges):
        raise UserError("two runs have the same name; give run directories with different names")
    rows = [_rows(path, labels) for path in runs]
    shared = set.intersection(*({key for key, r in part.items() if _labelled(r)} for part in rows))
    labelled_any = set.union(*({key for key, r in part.items() if _labelled(r)} for part in rows))
    if len(shared) < 4:
        raise UserError(f"the runs share {len(shared)} labelled items; select needs labelled items of the same data")
    first = rows[0]
    groups = sorted({group_of(first[key]) for key in shared})
    grouped = len(groups) < len(shared)
    units = groups if grouped else sorted(shared)
    rng = np.random.default_rng(seed)
    dev_units = {units[i] for i in rng.permutation(len(units))[: max(1, round(dev_share * len(units)))]}
    dev_keys = {key for key in shared if (group_of(first[key]) if grouped else key) in dev_units}
    test_keys = shared - dev_keys
    if not test_keys:
        raise UserError("the held-out split is empty; lower --dev or give more labelled items")
    pairwise = first[next(iter(shared))].pairwise
    statistic = PAIRWISE_STATISTIC if pairwise else SCORE_STATISTIC

    def part(index: int, keys: set[str]) -> list[ScoreRow]:
        return [r for key, r in rows[index].items() if key in keys]

    def versus(index: int, keys: set[str], n: int) -> Comparison:
        found = compare_runs(part(0, keys), part(index, keys), n=n)
        if not found:
            raise UserError(f"{judges[0].name} and {judges[index].name} share no dataset/aspect to compare")
        return found[0]

    dev = [versus(i, dev_keys, 0) for i in range(1, len(runs))]
    dev_values = [_value(c, statistic, "a") for c in dev[:1]] + [_value(c, statistic, "b") for c in dev]
    gains = [_value(c, statistic, "delta") for c in dev]
    best = 0
    if any(g is not None and g > 0 for g in gains):
        best = 1 + int(np.nanargmax([g if g is not None else -np.inf for g in gains]))
    tests = [versus(i, test_keys, 0) for i in range(1, len(runs))]
    test_values = [_value(c, statistic, "a") for c in tests[:1]] + [_value(c, statistic, "b") for c in tests]
    delta, p_value, test_name = None, None, "McNemar" if pairwise else "paired test"
    chosen = 0
    if best:
        confirm = versus(best, test_keys, 0 if pairwise else resamples)  # McNemar is exact: no resampling
        delta = _value(confirm, statistic, "delta")
        p_value, test_name = _p(confirm, statistic, pairwise)
        if delta is not None and delta > 0 and p_value is not None and p_value < level:
            chosen = best
    test_list = sorted(test_keys)
    candidates = []
    for index, judge in enumerate(judges):
        tokens, usd = judge.cost_per_item([key.split("\t")[0] for key in test_list])
        candidates.append(Candidate(judge.name, dev_values[index], test_values[index], tokens, usd))
    return Selection(
        statistic=statistic,
        candidates=tuple(candidates),
        simplest=judges[0].name,
        best_on_dev=judges[best].name,
        delta=delta,
        p_value=p_value,
        test_name=test_name,
        level=level,
        chosen=judges[chosen].name,
        dev_items=len(dev_keys),
        test_items=len(test_keys),
        seed=seed,
        held_out=tuple(key.split("\t")[0] for key in test_list),
        not_shared_items=len(labelled_any - shared),
    )


def _value(comparison: Comparison, statistic: str, side: str) -> float | None:
    found = next((d for d in comparison.differences if d.statistic == statistic), None)
    return None if found is None or getattr(found, side) is None else float(getattr(found, side))


def _p(comparison: Comparison, statistic: str, pairwise: bool) -> tuple[float | None, str]:
    """The held-out test's p and its name; a withheld p (too few units) names why in the test's name."""
    if pairwise and comparison.mcnemar is not None:
        value, name = comparison.mcnemar.p_value, "McNemar"
    else:
        found = next((d for d in comparison.differences if d.statistic == statistic), None)
        if found is None:
            return None, "paired test (no test)"
        value, name = found.p_reported, "paired t-test" if found.p_ttest is not None else "paired bootstrap"
    return (value, name) if isinstance(value, float) else (None, f"{name} ({value or 'no test'})")
