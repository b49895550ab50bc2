"""``debate-eval meta-eval``: correlation of a run's scores with the human ratings (Appendix E.5, Table 1).

How the numbers are computed (the G-Eval / DEBATE "summary level" meta-evaluation):

- Records are grouped by the item's ``group_id`` (the SummEval ``doc_id``, the Topical-Chat context). For
  every group, Spearman ρ, Kendall τ (tau-b) and Pearson r are computed between the predicted and the
  human scores of the group's items, and each statistic is averaged over the groups. The paper reports
  ρ/τ for SummEval and r/ρ for Topical-Chat; all three are computed for both.
- A record whose ``score`` is null (unparsable answer, failed item) is excluded, never imputed, and counted in
  ``n_missing``; the rest of its group is still used. A record without a human score is excluded as well.
- A group is skipped (and counted in ``n_skipped``) when it has fewer than 2 predicted items or when its human
  or its predicted scores are all equal (no correlation is defined). ``n_groups + n_skipped`` is the number of
  groups. A statistic with no usable group is ``None``; the output never holds NaN.
- The ``global_*`` statistics are item-level, over all items with a prediction, ignoring the groups.
- Report keys: dataset → aspect. When the records hold more than one protocol (e.g. ``debate`` and
  ``geval`` runs given together), the aspects of every protocol other than ``debate`` are keyed
  ``f"{aspect}[{protocol}]"``, e.g. ``"coherence[geval]"``; ``debate`` keeps the plain aspect name.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scipy import stats

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.records import validate_record
from debate_eval.tasks.engine.results import numbered_records

DEFAULT_PROTOCOL = "debate"
REQUIRED_KEYS = ("item_id", "dataset", "aspect", "group_id")
STATISTICS = ("spearman", "kendall", "pearson")
# The pair of statistics the paper reports per dataset (Table 1); other datasets get ρ and τ.
PAPER_STATISTICS: dict[str, tuple[str, str]] = {
    "summeval": ("spearman", "kendall"),
    "topical_chat": ("pearson", "spearman"),
}
SYMBOLS = {"spearman": "rho", "kendall": "tau", "pearson": "r"}
# Table 1 of the paper, GPT-4 rows only (copied from the paper text; G-Eval-4 rows are the authors'
# reproduction). Shape: evaluator -> dataset -> aspect (or "average") -> statistic -> value.
PAPER_TABLE1: dict[str, dict[str, dict[str, dict[str, float]]]] = {
    "G-Eval-4": {
        "summeval": {
            "average": {"spearman": 0.533, "kendall": 0.450},
            "coherence": {"spearman": 0.522, "kendall": 0.420},
            "consistency": {"spearman": 0.600, "kendall": 0.553},
            "fluency": {"spearman": 0.495, "kendall": 0.416},
            "relevance": {"spearman": 0.517, "kendall": 0.412},
        },
        "topical_chat": {
            "average": {"pearson": 0.616, "spearman": 0.623},
            "naturalness": {"pearson": 0.632, "spearman": 0.609},
            "coherence": {"pearson": 0.614, "spearman": 0.619},
            "engagingness": {"pearson": 0.547, "spearman": 0.579},
            "groundedness": {"pearson": 0.670, "spearman": 0.684},
        },
    },
    "ChatEval": {
        "summeval": {
            "average": {"spearman": 0.528, "kendall": 0.458},
            "coherence": {"spearman": 0.477, "kendall": 0.412},
            "consistency": {"spearman": 0.595, "kendall": 0.516},
            "fluency": {"spearman": 0.501, "kendall": 0.432},
            "relevance": {"spearman": 0.539, "kendall": 0.472},
        },
        "topical_chat": {
            "average": {"pearson": 0.675, "spearman": 0.653},
            "naturalness": {"pearson": 0.620, "spearman": 0.604},
            "coherence": {"pearson": 0.657, "spearman": 0.641},
            "engagingness": {"pearson": 0.687, "spearman": 0.676},
            "groundedness": {"pearson": 0.737, "spearman": 0.692},
        },
    },
    "MultiAgent": {
        "summeval": {
            "average": {"spearman": 0.507, "kendall": 0.459},
            "coherence": {"spearman": 0.486, "kendall": 0.410},
            "consistency": {"spearman": 0.628, "kendall": 0.596},
            "fluency": {"spearman": 0.410, "kendall": 0.393},
            "relevance": {"spearman": 0.505, "kendall": 0.436},
        },
        "topical_chat": {
            "average": {"pearson": 0.656, "spearman": 0.649},
            "naturalness": {"pearson": 0.590, "spearman": 0.570},
            "coherence": {"pearson": 0.665, "spearman": 0.667},
            "engagingness": {"pearson": 0.709, "spearman": 0.729},
            "groundedness": {"pearson": 0.659, "spearman": 0.630},
        },
    },
    "DEBATE": {
        "summeval": {
            "average": {"spearman": 0.597, "kendall": 0.575},
            "coherence": {"spearman": 0.610, "kendall": 0.588},
            "consistency": {"spearman": 0.643, "kendall": 0.614},
            "fluency": {"spearman": 0.542, "kendall": 0.515},
            "relevance": {"spearman": 0.593, "kendall": 0.582},
        },
        "topical_chat": {
            "average": {"pearson": 0.735, "spearman": 0.729},
            "naturalness": {"pearson": 0.699, "spearman": 0.683},
            "coherence": {"pearson": 0.735, "spearman": 0.727},
            "engagingness": {"pearson": 0.761, "spearman": 0.705},
            "groundedness": {"pearson": 0.745, "spearman": 0.800},
        },
    },
}

Report = dict[str, dict[str, "AspectReport"]]
Pairs = list[tuple[float, float]]


# --------------------------------------------------------------------------------------------------- loading


def load_results(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Read ``results.jsonl`` files; the last line per (dataset, aspect, protocol, item_id) wins.

    Raises ``UserError`` for a missing file, a line that is not a JSON object (with file and line number) or
    a record without the keys the meta-evaluation needs. A final line without a trailing newline that does
    not parse (a run killed mid-write) is skipped with a warning on stderr.
    """
    latest: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for path in paths:
        for record in _read_file(Path(path)):
            latest[record_key(record)] = record
    return list(latest.values())


def record_key(record: dict[str, Any]) -> tuple[str, str, str, str]:
    """The identity of a record: (dataset, aspect, protocol, item_id)."""
    return (str(record["dataset"]), str(record["aspect"]), protocol_of(record), str(record["item_id"]))


def protocol_of(record: dict[str, Any]) -> str:
    """The record's protocol; files written before the field existed are DEBATE runs."""
    return str(record.get("protocol") or DEFAULT_PROTOCOL)


def _read_file(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise UserError(f"{path}: no such results file (give the results.jsonl written by `debate-eval run`)")
    records, _ = numbered_records(path)
    for number, record in records:
        _check_record(path, number, record)
    return [record for _, record in records]


def _check_record(path: Path, number: int, record: dict[str, Any]) -> None:
    validate_record(record, path, number)  # the one record check, shared with resume (tasks/engine/records.py)
    if record.get("group_id") is None:
        raise UserError(f"{path}: line {number} (counted from 1) has no group_id; is this a results.jsonl file?")


# ---------------------------------------------------------------------------------------------- statistics


@dataclass
class AspectReport:
    """Correlation of one dataset/aspect/protocol's predictions with the human scores."""

    dataset: str
    aspect: str
    protocol: str
    spearman: float | None
    kendall: float | None
    pearson: float | None
    global_spearman: float | None
    global_kendall: float | None
    global_pearson: float | None
    n_items: int
    n_missing: int
    n_groups: int
    n_skipped: int

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (JSON-serialisable: no NaN)."""
        return asdict(self)


def _number(value: Any) -> float | None:
    """A finite float, or None for null / NaN / infinity."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _pairs(records: Iterable[dict[str, Any]]) -> Pairs:
    """(predicted, human) for the records that have both."""
    pairs = []
    for record in records:
        predicted, human = _number(record.get("score")), _number(record.get("human_score"))
        if predicted is not None and human is not None:
            pairs.append((predicted, human))
    return pairs


def _correlations(pairs: Pairs) -> dict[str, float] | None:
    """Spearman, Kendall tau-b and Pearson of the pairs, or None where undefined (constant or < 2)."""
    if len(pairs) < 2:
        return None
    predicted = [p for p, _ in pairs]
    human = [h for _, h in pairs]
    if len(set(predicted)) < 2 or len(set(human)) < 2:
        return None
    values = {
        "spearman": float(stats.spearmanr(predicted, human)[0]),
        "kendall": float(stats.kendalltau(predicted, human)[0]),
        "pearson": float(stats.pearsonr(predicted, human)[0]),
    }
    return values if all(math.isfinite(v) for v in values.values()) else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _by_group(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault(str(record["group_id"]), []).append(record)
    return groups


def evaluate_aspect(dataset: str, aspect: str, protocol: str, records: list[dict[str, Any]]) -> AspectReport:
    """The report for one dataset/aspect/protocol's records (group-level averages and item-level values)."""
    per_group = [_correlations(_pairs(group)) for group in _by_group(records).values()]
    used = [values for values in per_group if values is not None]
    overall = _correlations(_pairs(records)) or {}
    return AspectReport(
        dataset=dataset,
        aspect=aspect,
        protocol=protocol,
        spearman=_mean([values["spearman"] for values in used]),
        kendall=_mean([values["kendall"] for values in used]),
        pearson=_mean([values["pearson"] for values in used]),
        global_spearman=overall.get("spearman"),
        global_kendall=overall.get("kendall"),
        global_pearson=overall.get("pearson"),
        n_items=len(records),
        n_missing=sum(1 for record in records if _number(record.get("score")) is None),
        n_groups=len(used),
        n_skipped=len(per_group) - len(used),
    )


def _partition(records: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    parts: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for record in records:
        key = (str(record["dataset"]), str(record["aspect"]), protocol_of(record))
        parts.setdefault(key, []).append(record)
    return parts


def aspect_key(aspect: str, protocol: str, several_protocols: bool) -> str:
    """The report key of an aspect: ``aspect``, or ``aspect[protocol]`` for non-debate protocols in a mix."""
    if several_protocols and protocol != DEFAULT_PROTOCOL:
        return f"{aspect}[{protocol}]"
    return aspect


def meta_evaluate(records: Iterable[dict[str, Any]]) -> Report:
    """Correlate predictions with human scores: dataset → aspect key → ``AspectReport``.

    Aspect keys are the aspect names, or ``f"{aspect}[{protocol}]"`` for protocols other than ``debate`` when
    the records hold several protocols (see the module docstring).
    """
    parts = _partition(records)
    several = len({protocol for _, _, protocol in parts}) > 1
    report: Report = {}
    for (dataset, aspect, protocol), part in parts.items():
        key = aspect_key(aspect, protocol, several)
        report.setdefault(dataset, {})[key] = evaluate_aspect(dataset, aspect, protocol, part)
    return report


# ---------------------------------------------------------------------------------------------- formatting

JSON_FIELDS = (
    "spearman",
    "kendall",
    "pearson",
    "global_spearman",
    "global_kendall",
    "global_pearson",
    "n_items",
    "n_missing",
    "n_groups",
    "n_skipped",
    "protocol",
)


def format_json(report: Report) -> str:
    """The report as JSON: ``{dataset: {aspect: {statistic: value, counts..., "protocol": ...}}}``."""
    payload = {
        dataset: {key: {name: getattr(entry, name) for name in JSON_FIELDS} for key, entry in aspects.items()}
        for dataset, aspects in report.items()
    }
    return json.dumps(payload, indent=2, allow_nan=False)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def paper_value(reference: str, dataset: str, aspect: str, statistic: str) -> float | None:
    """A Table 1 number (GPT-4) for ``reference``, or None where the paper has none."""
    return PAPER_TABLE1.get(reference, {}).get(dataset, {}).get(aspect, {}).get(statistic)


def _paper_average(reference: str, dataset: str, aspects: Sequence[str], statistic: str) -> str:
    """The paper's average when all its aspects are present, else ``~`` + the mean of those present."""
    table = PAPER_TABLE1.get(reference, {}).get(dataset, {})
    paper_aspects = {name for name in table if name != "average"}
    if paper_aspects and set(aspects) == paper_aspects:
        return _fmt(paper_value(reference, dataset, "average", statistic))
    values = [v for a in aspects if (v := paper_value(reference, dataset, a, statistic)) is not None]
    return "~" + _fmt(_mean(values)) if values else "-"


def _table_row(label: str, entry: AspectReport, pair: tuple[str, str], reference: str) -> str:
    measured = [_fmt(getattr(entry, name)) for name in pair]
    paper = [_fmt(paper_value(reference, entry.dataset, entry.aspect, name)) for name in pair]
    groups = f"{entry.n_groups}/{entry.n_skipped}"
    return (
        f"{label:<34} {entry.n_items:>6} {entry.n_missing:>7} {groups:>9}   "
        f"{measured[0]:>7} {measured[1]:>7}   {paper[0]:>7} {paper[1]:>7}"
    )


def _average_row(dataset: str, entries: list[AspectReport], pair: tuple[str, str], reference: str) -> str:
    measured = [_fmt(_mean([v for e in entries if (v := getattr(e, n)) is not None])) for n in pair]
    aspects = [entry.aspect for entry in entries]
    paper = [_paper_average(reference, dataset, aspects, name) for name in pair]
    protocol = entries[0].protocol
    label = f"{dataset}/average" + ("" if protocol == DEFAULT_PROTOCOL else f" [{protocol}]")
    n_items = sum(e.n_items for e in entries)
    n_missing = sum(e.n_missing for e in entries)
    groups = f"{sum(e.n_groups for e in entries)}/{sum(e.n_skipped for e in entries)}"
    return (
        f"{label:<34} {n_items:>6} {n_missing:>7} {groups:>9}   "
        f"{measured[0]:>7} {measured[1]:>7}   {paper[0]:>7} {paper[1]:>7}"
    )


def _dataset_block(dataset: str, aspects: dict[str, AspectReport], reference: str) -> list[str]:
    pair = PAPER_STATISTICS.get(dataset, ("spearman", "kendall"))
    first, second = SYMBOLS[pair[0]], SYMBOLS[pair[1]]
    lines = [
        f"{dataset + ' (group-level, averaged)':<34} {'':>6} {'':>7} {'':>9}   "
        f"{first:>7} {second:>7}   {first:>7} {second:>7}"
    ]
    by_protocol: dict[str, list[AspectReport]] = {}
    for key, entry in aspects.items():
        lines.append(_table_row(f"{dataset}/{key}", entry, pair, reference))
        by_protocol.setdefault(entry.protocol, []).append(entry)
    for entries in by_protocol.values():
        lines.append(_average_row(dataset, entries, pair, reference))
    return lines


def format_table(report: Report, reference: str = "DEBATE") -> str:
    """A plain-text table: counts, measured statistics and the paper's Table 1 numbers for ``reference``.

    SummEval rows show Spearman rho and Kendall tau, Topical-Chat rows Pearson r and Spearman rho (the
    paper's pairs). "used/skip" counts the groups in the averages and those left out (constant scores or
    fewer than 2 predictions). Paper averages marked ``~`` are means over the aspects present only.
    """
    if reference not in PAPER_TABLE1:
        raise UserError(f"unknown reference {reference!r}; choose one of {', '.join(PAPER_TABLE1)}")
    header = (
        f"{'dataset/aspect':<34} {'items':>6} {'missing':>7} {'used/skip':>9}   "
        f"{'this run':^15}   {'paper ' + reference:^15}"
    )
    lines = [
        f"Meta-evaluation. 'paper {reference}' = GPT-4 numbers from Table 1 of the DEBATE paper, NOT this run.",
        header,
    ]
    for dataset, aspects in report.items():
        lines.append("-" * len(header))
        lines.extend(_dataset_block(dataset, aspects, reference))
    if not report:
        lines.append("(no records)")
    return "\n".join(lines)


# -------------------------------------------------------------------------------------------- distribution


def score_bin(value: float) -> int:
    """The integer bin of a score: round half up (2.5 → 3, 1.667 → 2), as in the paper's Table 2."""
    return math.floor(value + 0.5 + 1e-9)


def _percentages(bins: list[int], values: list[float]) -> dict[int, float]:
    counts = {b: 0 for b in bins}
    for value in values:
        counts[score_bin(value)] += 1
    return {b: (100.0 * counts[b] / len(values) if values else 0.0) for b in bins}


def _distribution_entry(records: list[dict[str, Any]]) -> dict[str, Any]:
    human = [v for r in records if (v := _number(r.get("human_score"))) is not None]
    predicted = [v for r in records if (v := _number(r.get("score"))) is not None]
    observed = [score_bin(v) for v in human + predicted]
    bins = list(range(min(observed), max(observed) + 1)) if observed else []
    return {
        "bins": bins,
        "human": _percentages(bins, human),
        "predicted": _percentages(bins, predicted),
        "n_human": len(human),
        "n_predicted": len(predicted),
    }


def score_distribution(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Percentage of human and predicted scores per integer bin, per dataset → aspect key (Table 2).

    Each entry: ``{"bins": [..], "human": {bin: %}, "predicted": {bin: %}, "n_human": n, "n_predicted": n}``.
    Human percentages are over all records with a human score, predicted ones over records with a score.
    Bins run from the lowest to the highest rounded score seen. Aspect keys are as in ``meta_evaluate``.
    """
    parts = _partition(records)
    several = len({protocol for _, _, protocol in parts}) > 1
    result: dict[str, dict[str, dict[str, Any]]] = {}
    for (dataset, aspect, protocol), part in parts.items():
        key = aspect_key(aspect, protocol, several)
        result.setdefault(dataset, {})[key] = _distribution_entry(part)
    return result


def format_distribution(distribution: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The score distribution as text: one block per dataset/aspect, percentages per score bin."""
    lines = ["Score distribution (% of scores per integer bin, rounded half up; cf. Table 2 of the paper)"]
    for dataset, aspects in distribution.items():
        for key, entry in aspects.items():
            lines.append(f"{dataset}/{key}  (human n={entry['n_human']}, predicted n={entry['n_predicted']})")
            lines.append(f"  {'score':>5} {'human %':>8} {'predicted %':>12}")
            for b in entry["bins"]:
                lines.append(f"  {b:>5} {entry['human'][b]:>8.2f} {entry['predicted'][b]:>12.2f}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- command


def _results_path(name: str) -> Path:
    """A results file, or a run directory's ``results.jsonl``."""
    path = Path(name)
    return path / "results.jsonl" if path.is_dir() else path


def handle_meta_eval(args: argparse.Namespace) -> int:
    """Print the meta-evaluation of the given results files (table, JSON, or table + distribution)."""
    records = load_results([_results_path(path) for path in args.results])
    report = meta_evaluate(records)
    if args.json:
        print(format_json(report))
        return 0
    print(format_table(report, reference=args.reference))
    if args.distribution:
        print()
        print(format_distribution(score_distribution(records)))
    return 0


def add_subparser(subparsers: Any) -> None:
    """Register ``meta-eval``."""
    parser = subparsers.add_parser(
        "meta-eval",
        help="correlate a run's scores with the human ratings (Table 1)",
        description="Group-level (summary-level) correlations between predicted and human scores, beside the "
        "paper's Table 1 (GPT-4) numbers. Later files and later lines win for a repeated item.",
    )
    parser.add_argument("results", nargs="+", metavar="RESULTS.jsonl", help="results files (or run directories)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the report as JSON instead of the table")
    output.add_argument(
        "--distribution", action="store_true", help="also print the score distribution (Appendix B, Table 2)"
    )
    parser.add_argument(
        "--reference",
        default="DEBATE",
        choices=list(PAPER_TABLE1),
        help="which Table 1 evaluator (GPT-4) to show beside the measured numbers (default: DEBATE)",
    )
    parser.set_defaults(handler=handle_meta_eval)
