"""What a facet of the judge card holds, and the bootstrap every facet shares.

A **facet** (agreement, stability, position, verbosity, scale use, robustness, injection) is a few
**figures**, each a value with its 95 % bootstrap interval (``bootstrap.bootstrap_ci``: the same resampling,
seed, interval methods and minimum-units rule as ``meta-eval``), the text saying how it was computed, its
``n`` and what was resampled (``unit``: groups for SummEval documents / Topical-Chat contexts, items
otherwise), and links to the items behind it (``ItemLink``: a sub-run of the audit and item ids, which the
HTML report turns into a filter of its items table). A facet that a run cannot support is ``not applicable``
with the reason (no human scores, not pairwise); one that was not asked for or not paid for is ``not run``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, DEFAULT_RESAMPLES, MIN_UNITS, SEED, bootstrap_ci

OK, NOT_APPLICABLE, NOT_RUN = "ok", "not applicable", "not run"
TITLES = {  # every facet of the card, in the card's order, with its title
    "agreement": "Agreement with humans",
    "stability": "Stability",
    "position": "Position bias",
    "verbosity": "Verbosity bias",
    "scale": "Scale use",
    "robustness": "Robustness to paraphrase",
    "injection": "Injection susceptibility",
    "alt_test": "Can it replace an annotator? (alt-test)",
    "self_preference": "Self-preference (its own model family)",
}
T = TypeVar("T")
Interval = list[float] | str | None


@dataclass(frozen=True)
class Bootstrap:
    """How intervals are computed: resamples (0: none), interval method, minimum units, seed."""

    n: int = DEFAULT_RESAMPLES
    ci_method: str = DEFAULT_CI_METHOD
    min_units: int = MIN_UNITS
    seed: int = SEED


@dataclass
class ItemLink:
    """The items behind a figure: ids of records in one of the audit's sub-runs (``base``, ``repeat-2``,
    ``position``, ``paraphrased``, ``injected``), and what they are."""

    run: str
    item_ids: list[str]
    what: str


@dataclass
class Figure:
    """One number of a facet with its interval, and optionally the baseline it is read against (e.g. the
    humans' own length correlation, the human first-label rate, 0.5 for no position preference)."""

    key: str
    label: str
    value: float | None
    ci95: Interval = None
    baseline: float | None = None
    baseline_label: str = ""
    baseline_ci95: Interval = None
    items: list[ItemLink] = field(default_factory=list)


@dataclass
class Facet:
    """One facet of the card (see the module docstring)."""

    name: str
    title: str
    status: str = OK
    reason: str = ""
    method: str = ""
    n: int = 0
    unit: str = "items"
    runs: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    plot: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def figure(self, key: str) -> Figure:
        """The figure called ``key`` (a ``KeyError`` when there is none)."""
        found = next((figure for figure in self.figures if figure.key == key), None)
        if found is None:
            raise KeyError(f"facet {self.name} has no figure {key!r}")
        return found

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``card.json``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Facet:
        """The inverse of ``to_dict``."""
        figures = [
            Figure(**{**f, "items": [ItemLink(**link) for link in f.get("items") or []]})
            for f in value.get("figures") or []
        ]
        return cls(**{**value, "figures": figures})


def not_applicable(name: str, reason: str) -> Facet:
    """A facet the data or the run cannot support, with the reason."""
    return Facet(name=name, title=TITLES[name], status=NOT_APPLICABLE, reason=reason)


def not_run(name: str, reason: str) -> Facet:
    """A facet that was not run (not asked for, or stopped by the budget), with the reason."""
    return Facet(name=name, title=TITLES[name], status=NOT_RUN, reason=reason)


def measured(
    name: str,
    how: str,
    settings: Bootstrap,
    unit: str,
    n: int,
    runs: Sequence[str],
    figures: list[Figure],
    **more: Any,
) -> Facet:
    """A facet that ran over ``n`` ``unit``: its method is ``how`` then the sentence every facet's method ends
    with (how its intervals were computed); ``more`` are the other ``Facet`` fields (``plot``, ``notes``)."""
    interval = (
        "No intervals (bootstrap 0)."
        if settings.n <= 0
        else f"95% intervals: {settings.ci_method} bootstrap, {settings.n} resamples of the {unit}; none below "
        f"{settings.min_units} {unit}."
    )
    return Facet(
        name=name,
        title=TITLES[name],
        method=f"{how} {interval}",
        n=n,
        unit=unit,
        runs=list(runs),
        figures=figures,
        **more,
    )


def intervals(
    units: Sequence[T],
    statistic: Callable[[list[T]], Mapping[str, float | None] | None],
    names: Sequence[str],
    settings: Bootstrap,
    unit: str,
) -> dict[str, Interval]:
    """The 95 % interval of each named value of ``statistic`` over resampled ``units`` (``bootstrap_ci``):
    ``[lo, hi]``, None (undefined or no bootstrap), or the minimum-units text for every name."""
    result = bootstrap_ci(
        units,
        statistic,
        names,
        n=settings.n,
        seed=settings.seed,
        method=settings.ci_method,
        unit=unit,
        min_units=settings.min_units,
    )
    if result is None or isinstance(result, str):
        return dict.fromkeys(names, result)
    return {name: result.get(name) for name in names}


def estimate(
    rows: Sequence[T],
    statistic: Callable[[list[T]], Mapping[str, float | None]],
    names: Sequence[str],
    settings: Bootstrap,
    unit: str,
    by_item: bool = False,
) -> tuple[list[list[T]], Mapping[str, float | None], dict[str, Interval]]:
    """``rows`` in their units (``row["unit"]``, or one row each ``by_item``), ``statistic`` of the rows of every
    unit, and the ``intervals`` of its ``names`` over resampled units. The resamples are drawn from the units in
    a canonical order (by unit, then by item id within a unit), not the order the records finished in."""

    def in_units(ordered: Sequence[T]) -> list[list[T]]:
        by_unit: dict[str, list[T]] = {}  # rows of equal row["unit"], in first-seen order
        for index, row in enumerate(ordered):
            by_unit.setdefault(str(index) if by_item else row["unit"], []).append(row)  # type: ignore[index]
        return list(by_unit.values())

    def of_units(sample: list[list[T]]) -> Mapping[str, float | None]:
        return statistic([row for unit_rows in sample for row in unit_rows])

    def canonical(row: T) -> tuple[str, str]:
        return "" if by_item else str(row["unit"]), str(row["id"])  # type: ignore[index]

    units = in_units(rows)
    resampled = in_units(sorted(rows, key=canonical))
    return units, of_units(units), intervals(resampled, of_units, names, settings, unit)
