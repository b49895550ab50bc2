"""Systems: which system produced each judged output, and the answers a user comparing systems wants.

- **The system of a record** (:func:`system_of`): its ``system_id`` (own data: ``--fields ...,system=COLUMN``;
  a DataFrame's column the same way); for SummEval and Topical-Chat, whose item ids are ``GROUP/SYSTEM``, the
  part after the group when the record has no ``system_id``. A pairwise record names both of its systems in
  ``system_a`` and ``system_b`` (``--fields ...,system_a=COLUMN,system_b=COLUMN``).
- **System-level correlation** (:func:`system_level`): Kendall τ (tau-b), Spearman ρ and Pearson r between the
  systems' mean judge score and their mean human score, each mean over the system's items with both scores
  (SummEval's "system level", beside the summary-level figures of :mod:`correlations`), from three systems on.
  The 95 % interval is Fisher's z over the systems (:func:`fisher_z_interval`); beside it the interval
  resampling groups (documents) with the systems fixed.
- **Per-system comparison** (:func:`compare_systems`): per system the mean judge score with its 95 % interval
  (resampling the system's items); for every two systems the difference of their means (first − second) with
  its t interval and p — the paired t-test over the inputs both were judged on (the same ``group_id``: a
  SummEval document; in own data the ``group`` column, else the source text), Welch's t-test where they share
  none — ``p_holm`` and ``p_bh`` adjusted over the named family of all the pairs, the first system's wins, ties
  and losses input by input, and each system's rank set (:mod:`system_pairs`). A system with several outputs in
  one group is represented there by their mean.
- **Win rates** (:func:`win_rates`): for pairwise records naming both systems, each system's wins, ties and
  losses against each other system, and its win rate ``(wins + ties / 2) / comparisons`` with an interval.
- **Prediction-powered inference** (:mod:`ppi`): where only part of a system's outputs carry human ratings,
  its mean on the human scale by PPI++, beside the judge-only and human-only means (in :func:`compare_systems`).

Every interval follows the minimum-units rule of :mod:`bootstrap` (the text ``"too few groups (n=4)"`` in place
of a number). The output is JSON-ready (no NaN).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from debate_eval.tasks.analysis.bootstrap import (
    BCA,
    DEFAULT_CI_METHOD,
    DEFAULT_RESAMPLES,
    MIN_UNITS,
    SEED,
    Interval,
    _check_method,
    bootstrap_ci,
    is_withheld,
    normal_quantile,
    percentile_interval,
    resampled_means,
    too_few_units,
)
from debate_eval.tasks.analysis.correlations import STATISTICS, correlations
from debate_eval.tasks.analysis.ppi import difference_estimate, groups_of, ppi_applies, system_estimates
from debate_eval.tasks.analysis.records import (
    RecordLike,
    ScoreRow,
    canonical_rows,
    group_of,
    number,
    score_row,
    score_rows,
)
from debate_eval.tasks.analysis.system_pairs import WELCH, adjust, compare_values, rank_sets
from debate_eval.tasks.analysis.system_pairs import holm as holm  # kept importable from here
from debate_eval.tasks.data.printable import escaped

#: Datasets whose item ids are ``GROUP/SYSTEM`` (the loaders build them so).
SYSTEM_IN_ITEM_ID = frozenset({"summeval", "topical_chat"})
#: Fewer systems than this get no system-level correlation (any two points correlate at +1 or -1).
MIN_SYSTEMS = 3
#: The name the per-system block gives the records when none of them names a system.
ALL_SYSTEMS = "(all)"


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key putting ``M2`` before ``M10`` (digit runs compared as numbers)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def system_of(record: RecordLike) -> str | None:
    """The system that produced the record's output, or None when it does not say (see the module doc)."""
    row = score_row(record)
    value = row.system_id
    if value not in (None, ""):
        return str(value)
    dataset = str(row.dataset or "").split("-", 1)[0]
    item_id = str(row.item_id or "")
    if dataset not in SYSTEM_IN_ITEM_ID or "/" not in item_id:
        return None
    group = str(row.group_id or "")
    if group and item_id.startswith(group + "/"):
        return item_id[len(group) + 1 :] or None
    return item_id.split("/", 1)[1] or None


def systems_of(records: Iterable[RecordLike]) -> list[str]:
    """The distinct systems named by single-score records, sorted."""
    rows = score_rows(records)
    return sorted(
        {name for name in (system_of(r) for r in rows if not r.pairwise) if name is not None}, key=natural_key
    )


def _mean_interval(values: np.ndarray, n: int, method: str, min_units: int) -> Interval:
    """The bootstrap 95 % interval of the mean of ``values`` (resampling the items, drawn from the values sorted:
    the order the records came in does not matter)."""
    if n <= 0:
        return None
    withheld = too_few_units(len(values), "items", min_units)
    if withheld:
        return withheld
    values = np.sort(values)
    if method == BCA:
        intervals = bootstrap_ci(
            list(values), lambda v: {"mean": float(np.mean(v))}, ("mean",), n=n, method=method, unit="items"
        )
        return (intervals or {}).get("mean") if isinstance(intervals, dict) else intervals
    return percentile_interval(list(resampled_means(values, n, SEED)))


def _plain(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


# --- system level ----------------------------------------------------------------------------------------------

#: Fewer systems than this get no system-level interval (Kendall's Fisher z needs n − 4 > 0).
MIN_SYSTEMS_CI = 5
SYSTEM_CI_METHOD = (
    "Fisher z over the systems: se 1/sqrt(n-3) for Pearson, sqrt((1 + rho^2/2)/(n-3)) for Spearman "
    "(Bonett and Wright 2000), sqrt(0.437/(n-4)) for Kendall (Fieller, Hartley and Pearson 1957)"
)


def fisher_z_se(statistic: str, value: float, n_systems: int) -> float:
    """The standard error of Fisher's z (atanh) of a correlation over ``n_systems`` points, per statistic as
    :data:`SYSTEM_CI_METHOD` names it."""
    if statistic == "pearson":
        return 1.0 / np.sqrt(n_systems - 3)
    if statistic == "spearman":
        return float(np.sqrt((1.0 + value**2 / 2.0) / (n_systems - 3)))
    return float(np.sqrt(0.437 / (n_systems - 4)))


def fisher_z_interval(value: float | None, n_systems: int, statistic: str) -> list[float] | None:
    """The 95 % interval of a system-level correlation by Fisher's z with :func:`fisher_z_se` (None when the
    correlation is undefined; [1, 1] or [-1, -1] at a perfect one)."""
    if value is None or not np.isfinite(value):
        return None
    if abs(value) >= 1.0:
        return [float(value), float(value)]
    z, half = np.arctanh(value), normal_quantile() * fisher_z_se(statistic, value, n_systems)
    return [float(np.tanh(z - half)), float(np.tanh(z + half))]


def system_level(
    records: Sequence[RecordLike],
    bootstrap: int = 0,
    ci_method: str = DEFAULT_CI_METHOD,
    min_units: int = MIN_UNITS,
) -> dict[str, Any] | None:
    """The system-level correlation of single-score records (None below three systems with rated, scored items:
    two points always correlate at +1 or -1).

    Returns ``{"kendall", "spearman", "pearson", "n_systems", "n_groups", "ci95", "ci95_method",
    "ci95_documents", "systems": {name: {"judge_mean", "human_mean", "n_items"}}}``. ``ci95``: the 95 % interval
    over the systems, Fisher's z with each statistic's standard error (:func:`fisher_z_interval`: how far the
    figure can move with other systems of the same kind; it covers at about the nominal rate from 8 to 32
    systems, ``benchmarks/systems_pairs.md``), from :data:`MIN_SYSTEMS_CI` systems. ``ci95_documents``:
    resampling the groups with these systems fixed (how stable the figure is across documents; it under-covers
    the systems' correlation). Both need ``bootstrap`` > 0 (0: None) and ``min_units`` groups (else the
    minimum-units text).
    """
    _check_method(ci_method)
    rated = []
    for row in score_rows(records):
        system, score, human = system_of(row), number(row.score), number(row.human_score)
        if system is not None and score is not None and human is not None and not row.pairwise:
            rated.append((group_of(row), system, score, human))
    systems = sorted({system for _, system, _, _ in rated}, key=natural_key)
    if len(systems) < MIN_SYSTEMS:
        return None
    groups = list(dict.fromkeys(group for group, _, _, _ in rated))
    g_index, s_index = {g: i for i, g in enumerate(groups)}, {s: i for i, s in enumerate(systems)}
    judge = np.zeros((len(groups), len(systems)))
    human = np.zeros_like(judge)
    count = np.zeros_like(judge)
    for group, system, score, rating in rated:
        g, s = g_index[group], s_index[system]
        judge[g, s] += score
        human[g, s] += rating
        count[g, s] += 1

    def means(rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = count[rows].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return judge[rows].sum(axis=0) / n, human[rows].sum(axis=0) / n, n

    def statistic(rows: list[int]) -> dict[str, float] | None:
        judge_mean, human_mean, n = means(rows)
        present = n > 0
        return correlations(list(zip(judge_mean[present], human_mean[present], strict=True)))

    everything = list(range(len(groups)))
    judge_mean, human_mean, n_items = means(everything)
    values = statistic(everything) or {}
    by_group_id = sorted(everything, key=groups.__getitem__)  # the resampled groups, in the order of their ids
    documents = (
        bootstrap_ci(by_group_id, statistic, STATISTICS, n=bootstrap, method=ci_method, min_units=min_units)
        if bootstrap
        else None
    )
    n_present = int(np.sum(n_items > 0))
    ci95: Any = None
    if bootstrap:
        ci95 = (
            documents
            if is_withheld(documents)
            else too_few_units(n_present, "systems", MIN_SYSTEMS_CI)
            or {name: fisher_z_interval(values.get(name), n_present, name) for name in STATISTICS}
        )
    return {
        **{name: values.get(name) for name in STATISTICS},
        "n_systems": len(systems),
        "n_groups": len(groups),
        "ci95": ci95,
        "ci95_method": SYSTEM_CI_METHOD,
        "ci95_documents": documents,
        "systems": {
            name: {
                "judge_mean": _plain(judge_mean[i]),
                "human_mean": _plain(human_mean[i]),
                "n_items": int(n_items[i]),
            }
            for i, name in enumerate(systems)
        },
    }


# --- per-system comparison -------------------------------------------------------------------------------------


def compare_systems(
    records: Sequence[RecordLike],
    bootstrap: int = DEFAULT_RESAMPLES,
    ci_method: str = DEFAULT_CI_METHOD,
    min_units: int = MIN_UNITS,
    family: str = "",
) -> dict[str, Any] | None:
    """Per system its mean judge score with an interval (and the PPI estimate where part of its outputs are
    rated), and the paired comparison of every two systems on shared inputs (see the module doc).

    None when the single-score records name fewer than two systems and no system has both rated and unrated
    outputs (nothing to compare or estimate). ``pairs`` lists each unordered pair once, in sorted order, with
    no entry for two systems without a shared input.
    """
    _check_method(ci_method)
    by_system: dict[str, list[ScoreRow]] = {}
    for row in score_rows(records):
        if not row.pairwise:
            by_system.setdefault(system_of(row) or ALL_SYSTEMS, []).append(row)
    groups = {name: groups_of(part) for name, part in by_system.items()}  # group -> (score, rating) of the scored
    scores = {name: {g: [s for s, _ in outs] for g, outs in found.items()} for name, found in groups.items() if found}
    if len(scores) < 2 and not any(ppi_applies(part) for part in by_system.values()):
        return None
    systems: dict[str, Any] = {}
    for name in sorted(by_system, key=natural_key):
        values = np.array([v for group in scores.get(name, {}).values() for v in group])
        entry: dict[str, Any] = {
            "n_items": len(by_system[name]),
            "n_scored": len(values),
            "mean": float(values.mean()) if len(values) else None,
            "ci95": _mean_interval(values, bootstrap, ci_method, min_units),
        }
        if ppi_applies(by_system[name]):
            entry["ppi"] = system_estimates(by_system[name], min_units=min_units)
        systems[name] = entry
    compared = compare_values(
        {name: scores[name] for name in sorted(scores, key=natural_key)}, family=family, min_units=min_units
    )
    ppi_ranks = _ppi_differences(compared["pairs"], groups, systems, min_units)
    if ppi_ranks:
        compared["ppi_ranks"] = ppi_ranks
    return {
        "systems": systems,
        **compared,
        "n_resamples": bootstrap,
        "ci_method": ci_method,
    }


def _ppi_differences(
    pairs: list[dict[str, Any]], groups: dict[str, Any], systems: dict[str, Any], min_units: int
) -> dict[str, Any] | None:
    """Add ``ppi`` (:func:`ppi.difference_estimate`, with ``p_holm`` and ``p_bh`` over the pairs that have one) to
    each pair of two systems with rated and unrated outputs; return the rank sets of the systems' PPI means by
    those Holm decisions (None when no pair has a PPI difference)."""
    with_ppi = {name for name, entry in systems.items() if "ppi" in entry}
    for pair in pairs:
        if pair["first"] in with_ppi and pair["second"] in with_ppi:
            found = difference_estimate(groups[pair["first"]], groups[pair["second"]], min_units)
            if found is not None:
                pair["ppi"] = found
    estimated = [pair for pair in pairs if "ppi" in pair]
    if not estimated:
        return None
    adjust([pair["ppi"] for pair in estimated])
    means = {name: systems[name]["ppi"]["ppi"]["mean"] for name in sorted(with_ppi, key=natural_key)}
    return rank_sets(means, [{"first": pair["first"], "second": pair["second"], **pair["ppi"]} for pair in estimated])


# --- pairwise runs: win rates ----------------------------------------------------------------------------------


def win_rates(
    records: Sequence[RecordLike],
    bootstrap: int = DEFAULT_RESAMPLES,
    ci_method: str = DEFAULT_CI_METHOD,
    min_units: int = MIN_UNITS,
) -> dict[str, Any] | None:
    """Each system's wins, ties and losses in pairwise records naming ``system_a`` and ``system_b``, overall
    and against each other system; ``win_rate`` = (wins + ties / 2) / comparisons with a 95 % interval
    (resampling the system's comparisons). Records without a verdict are left out. None when no pairwise
    record names two systems."""
    _check_method(ci_method)
    outcomes: dict[str, dict[str, list[float]]] = {}  # system -> opponent -> 1 / 0.5 / 0
    for row in score_rows(records):
        a, b, verdict = row.system_a, row.system_b, row.verdict
        if not row.pairwise or a in (None, "") or b in (None, "") or verdict not in ("first", "second", "tie"):
            continue
        a_points = {"first": 1.0, "second": 0.0, "tie": 0.5}[verdict]
        outcomes.setdefault(str(a), {}).setdefault(str(b), []).append(a_points)
        outcomes.setdefault(str(b), {}).setdefault(str(a), []).append(1.0 - a_points)
    if not outcomes:
        return None

    def tally(points: list[float]) -> dict[str, Any]:
        array = np.array(points)
        return {
            "comparisons": len(points),
            "wins": int(np.sum(array == 1.0)),
            "ties": int(np.sum(array == 0.5)),
            "losses": int(np.sum(array == 0.0)),
            "win_rate": float(array.mean()),
        }

    systems: dict[str, Any] = {}
    for name in sorted(outcomes, key=natural_key):
        every = [p for points in outcomes[name].values() for p in points]
        systems[name] = {
            **tally(every),
            "ci95": _mean_interval(np.array(every), bootstrap, ci_method, min_units),
            "against": {o: tally(outcomes[name][o]) for o in sorted(outcomes[name], key=natural_key)},
        }
    return {"systems": systems, "n_resamples": bootstrap, "ci_method": ci_method}


# --- text ------------------------------------------------------------------------------------------------------

#: Pairs listed one by one in the text forms up to this many (all of them in JSON).
MAX_PAIR_LINES = 6


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(interval: Any, digits: int = 3) -> str:
    if interval is None:
        return ""
    if isinstance(interval, str):
        return f" ({interval})"
    return f" [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def _p(value: Any, name: str = "p") -> str:
    if value is None or isinstance(value, str):
        return ""
    return f", {name}={value:.3g}"


def system_level_lines(label: str, level: dict[str, Any] | None) -> list[str]:
    """The system-level correlation in one line (none when ``level`` is None)."""
    if not level:
        return []
    ci95 = level.get("ci95")
    parts = []
    for name, symbol in (("kendall", "tau"), ("spearman", "rho"), ("pearson", "r")):
        interval = ci95.get(name) if isinstance(ci95, dict) else (ci95 if isinstance(ci95, str) else None)
        parts.append(f"{symbol} {_num(level.get(name))}{_ci(interval)}")
    return [
        f"{label}: system level ({level['n_systems']} systems' mean scores over {level['n_groups']} groups): "
        + ", ".join(parts)
    ]


def comparison_lines(label: str, block: dict[str, Any] | None) -> list[str]:
    """Per system its mean (and PPI estimate), then the pairs (up to :data:`MAX_PAIR_LINES`)."""
    if not block:
        return []
    ranks = block.get("ranks") or {}
    several = len(ranks) > 1
    lines = [f"{label}: per system, mean judge score, 95% CI"]
    for name, entry in block["systems"].items():
        line = f"  {escaped(name)}: {_num(entry['mean'])}{_ci(entry['ci95'])} ({entry['n_scored']} scored)"
        rank = ranks.get(name)
        if several and rank:
            low, high = rank["rank_set"]
            held = f"{low}" if low == high else f"{low}-{high}"
            line += f", rank {rank['rank']} (can hold {held} by Holm at 0.05)"
        ppi = entry.get("ppi")
        if ppi:
            line += (
                f"; human scale from {ppi['n_rated']} rated + {ppi['n_unrated']} unrated: "
                f"PPI {_num(ppi['ppi']['mean'])}{_ci(ppi['ppi']['ci95'])}, "
                f"human only {_num(ppi['human_only']['mean'])}{_ci(ppi['human_only']['ci95'])}, "
                f"judge only {_num(ppi['judge_only']['mean'])}{_ci(ppi['judge_only']['ci95'])}"
            )
            ppi_rank = (block.get("ppi_ranks") or {}).get(name)
            if ppi_rank:
                low, high = ppi_rank["rank_set"]
                line += f", PPI rank {ppi_rank['rank']} ({low}-{high})" if low != high else f", PPI rank {low}"
        lines.append(line)
    return lines + (pair_lines(label, block) if block["pairs"] else [])


def _significant(pairs: Sequence[dict[str, Any]], key: str) -> int:
    return sum(1 for pair in pairs if isinstance(pair.get(key), float) and pair[key] < 0.05)


def pair_lines(label: str, block: dict[str, Any]) -> list[str]:
    """The pairs of a comparison block: how many differ after Holm and BH over the family, then the pairs (up to
    :data:`MAX_PAIR_LINES`) with the difference, its interval, p, Holm and BH p, and the PPI difference."""
    pairs = block["pairs"]
    family = str(block.get("family", "all the pairs")).removesuffix(f" ({label})")
    lines = [
        f"{label}: {family}: {_significant(pairs, 'p_holm')} differ after Holm "
        f"(family-wise 0.05), {_significant(pairs, 'p_bh')} after Benjamini-Hochberg (false discovery rate 0.05)",
        f"{label}: pairs, first - second, 95% CI, p (paired t on shared inputs, else Welch), Holm p, BH p, "
        "first's wins/ties/losses",
    ]
    for pair in pairs[:MAX_PAIR_LINES]:
        counts = f", {pair['wins']}/{pair['ties']}/{pair['losses']}" if pair.get("wins") is not None else ""
        line = (
            f"  {escaped(pair['first'])} - {escaped(pair['second'])}: {pair['difference']:+.3f}{_ci(pair['ci95'])}"
            f"{_p(pair['p_value'])}{_p(pair.get('p_holm'), 'Holm p')}{_p(pair.get('p_bh'), 'BH p')}"
            f"{counts} over {pair['n_inputs']} {'inputs' if pair.get('test') != WELCH else 'items'}"
        )
        ppi = pair.get("ppi")
        if ppi and ppi.get("difference") is not None:
            line += f"; PPI (human scale) {ppi['difference']:+.3f}{_ci(ppi['ci95'])}{_p(ppi.get('p_holm'), 'Holm p')}"
        lines.append(line)
    if len(pairs) > MAX_PAIR_LINES:
        lines.append(f"  ... {len(pairs) - MAX_PAIR_LINES} more pairs (all in the JSON)")
    return lines


def win_rate_lines(label: str, block: dict[str, Any] | None) -> list[str]:
    """Each system's win rate (wins + ties / 2 over its comparisons) with its interval."""
    if not block:
        return []
    lines = [f"{label}: per system, win rate, 95% CI (ties count half), wins/ties/losses"]
    for name, entry in block["systems"].items():
        lines.append(
            f"  {escaped(name)}: {_num(entry['win_rate'])}{_ci(entry['ci95'])}, "
            f"{entry['wins']}/{entry['ties']}/{entry['losses']} in {entry['comparisons']} comparisons"
        )
    return lines


def run_systems(records: Iterable[RecordLike], bootstrap: int = DEFAULT_RESAMPLES) -> dict[str, Any] | None:
    """The systems block of a run's summary: aspect -> :func:`compare_systems` (single-score records) or
    :func:`win_rates` (pairwise), for the aspects with something to report; None when none has."""
    by_aspect: dict[str, list[ScoreRow]] = {}
    for row in score_rows(records):
        by_aspect.setdefault(str(row.aspect), []).append(row)
    out = {}
    for aspect, rows in by_aspect.items():
        part = canonical_rows(rows)  # not the order the items finished in
        pairwise = any(row.pairwise for row in part)
        block = win_rates(part, bootstrap) if pairwise else compare_systems(part, bootstrap, family=aspect)
        if block is not None:
            out[aspect] = block
    return out or None


def summary_lines(block: dict[str, Any] | None) -> list[str]:
    """The run summary's lines about its systems (see :func:`run_systems`); one line when no system has an
    interval (each too small to compare: the means and pairs would be noise)."""
    entries = [entry for entry in (block or {}).values() if entry]
    if entries and not any(
        isinstance(system.get("ci95"), (list, tuple)) for entry in entries for system in entry["systems"].values()
    ):
        return ["systems: too few items per system to compare; see `meta-eval`"]
    lines: list[str] = []
    for aspect, entry in (block or {}).items():
        lines += win_rate_lines(aspect, entry) if "pairs" not in entry else comparison_lines(aspect, entry)
    return lines
