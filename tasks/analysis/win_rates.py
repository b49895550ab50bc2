"""Win rates against a baseline, as AlpacaEval 2.0 defines them, and their length-controlled form.

A pairwise run **has a baseline** when every pairwise record names the same ``system_a`` (the baseline's output
is ``output_a``) and a ``system_b`` (the system compared). Per record, the **preference** is AlpacaEval's: a
number in [1, 2] (2 = the system's output preferred): an imported AlpacaEval record's ``score``, else the verdict
(``first`` 1, ``tie`` 1.5, ``second`` 2); records without one are left out. Per system (AlpacaEval's
``metrics/helpers.py``, ``AbsoluteScoringRule.describe_head2head``):

- ``win_rate`` = mean of (preference − 1) × 100 (a draw counts half); ``standard_error`` = the standard error
  of that mean, sd with ddof = 1 over √n, × 100 (pandas' ``sem``); ``n_wins`` (preference − 1 > 0.5),
  ``n_wins_base`` (< 0.5), ``n_draws`` (= 1.5), ``n_total``; ``avg_length``: the system outputs' mean length in
  characters.
- ``length_controlled``: AlpacaEval's length-controlled win rate, **this project's variant**: a logistic
  regression of (preference − 1) (a probability, fitted by maximum likelihood: statsmodels' binomial GLM) on the
  system's own term, tanh of the standardized length difference ((len baseline − len system) / its sd, ddof = 1)
  and, when instruction difficulties are given, the instruction's difficulty; then the mean predicted
  probability with the length term set to 0, × 100. AlpacaEval's published figure fits the same formula with an
  L1 penalty chosen by 5-fold cross-validation and adds regularisation rows (two "gamed" baselines, weight 0.1
  each) and per-instruction difficulties downloaded from its hub: without those rows and difficulties the
  figures differ (``docs/systems.md`` gives both). Needs statsmodels (``pip install 'debate-eval[stats]'``); None
  without it.
- ``comparisons``: every two systems compared as :mod:`system_pairs` compares systems, on the per-instruction
  values (preference − 1) × 100: the difference of their win rates (first − second) with its 95 % t interval
  and the paired t-test's p over the instructions both were judged on, ``p_holm`` (family-wise) and ``p_bh``
  (false discovery rate) over the family of all pairs, and each system's rank set.
"""

from __future__ import annotations

import csv
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.records import ScoreRow
from debate_eval.tasks.analysis.system_pairs import compare_values
from debate_eval.tasks.engine.record import Record

VERDICT_PREFERENCE = {"first": 1.0, "tie": 1.5, "second": 2.0}
DRAW = 1.5


def preference(record: Record) -> float | None:
    """AlpacaEval's preference of one pairwise record (see the module docstring), None when it has none."""
    score = record.score
    if isinstance(score, (int, float)) and not isinstance(score, bool) and 1.0 <= score <= 2.0:
        return float(score)
    return VERDICT_PREFERENCE.get(str(record.verdict)) if record.verdict else None


def baseline_of(records: Sequence[Record | ScoreRow]) -> str | None:
    """The baseline every pairwise record is judged against (its ``system_a``), None when there is none."""
    pairwise = [r for r in records if r.pairwise]
    baselines = {r.system_a for r in pairwise}
    if not pairwise or len(baselines) != 1 or None in baselines or any(not r.system_b for r in pairwise):
        return None
    return str(baselines.pop())


def has_baseline(rows: Sequence[ScoreRow]) -> bool:
    """Whether the rows are pairwise records against one named baseline (checked on the rows before the
    records, with their texts, are read again for the lengths)."""
    return bool(baseline_of(rows))


def head_to_head(preferences: Sequence[float]) -> dict[str, Any]:
    """AlpacaEval's ``describe_head2head`` of a system's preferences in [1, 2]."""
    values = np.asarray(preferences, dtype=float) - 1.0
    n = len(values)
    return {
        "win_rate": float(values.mean() * 100) if n else None,
        "standard_error": float(values.std(ddof=1) / math.sqrt(n) * 100) if n > 1 else None,
        "n_wins": int(np.sum(values > 0.5)),
        "n_wins_base": int(np.sum(values < 0.5)),
        "n_draws": int(np.sum(values == 0.5)),
        "n_total": n,
    }


def length_controlled(
    preferences: Sequence[float],
    baseline_lengths: Sequence[float],
    system_lengths: Sequence[float],
    difficulty: Sequence[float] | None = None,
) -> dict[str, Any] | None:
    """The length-controlled win rate of one system (see the module docstring): the fitted coefficients and the
    mean prediction at no length difference, × 100. None without statsmodels or with fewer than 3 preferences."""
    try:
        import statsmodels.api as sm
    except ImportError:
        return None
    y = np.asarray(preferences, dtype=float) - 1.0
    if len(y) < 3:
        return None
    delta = np.asarray(baseline_lengths, dtype=float) - np.asarray(system_lengths, dtype=float)
    spread = delta.std(ddof=1)
    standardized = delta / spread if spread > 0 else np.zeros_like(delta)
    columns = {"length": np.tanh(standardized)}
    if difficulty is not None:
        columns["difficulty"] = np.asarray(difficulty, dtype=float)
    columns["system"] = np.ones_like(y)
    design = np.column_stack(list(columns.values()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns that a proportion is not a count: it is meant
        fit = sm.GLM(y, design, family=sm.families.Binomial()).fit()
    at_zero = design.copy()
    at_zero[:, 0] = 0.0
    predicted = fit.predict(at_zero)
    return {
        "win_rate": float(np.mean(predicted) * 100),
        "coefficients": dict(zip(columns, (float(c) for c in fit.params), strict=True)),
        "difficulty": difficulty is not None,
        "n": len(y),
    }


def baseline_win_rates(
    records: Iterable[Record], difficulty: Mapping[str, float] | None = None
) -> dict[str, Any] | None:
    """Per system: the win rate against the baseline, its standard error and the length-controlled win rate;
    and every two systems compared (see the module docstring). ``difficulty`` maps an instruction (the record's
    ``inputs["question"]``) to its difficulty. None when the records have no baseline."""
    records = [r for r in records if r.task_type == "pairwise"]
    baseline = baseline_of(records)
    if baseline is None:
        return None
    by_system: dict[str, dict[str, tuple[float, Record]]] = {}
    for record in records:
        value = preference(record)
        if value is not None:
            by_system.setdefault(str(record.system_b), {})[str(record.group_id or record.item_id)] = (value, record)
    systems: dict[str, Any] = {}
    for name in sorted(by_system):
        rows = list(by_system[name].values())
        values = [value for value, _ in rows]
        inputs = [dict(record.inputs or {}) for _, record in rows]
        lengths_a = [len(str(i.get("output_a") or "")) for i in inputs]
        lengths_b = [len(str(i.get("output_b") or "")) for i in inputs]
        known = difficulty is not None and all(str(i.get("question") or "") in difficulty for i in inputs)
        levels = [difficulty[str(i.get("question") or "")] for i in inputs] if known and difficulty else None
        systems[name] = {
            **head_to_head(values),
            "avg_length": float(np.mean(lengths_b)) if lengths_b else None,
            "length_controlled": length_controlled(values, lengths_a, lengths_b, levels),
        }
    values = {name: {group: [(value - 1.0) * 100] for group, (value, _) in by_system[name].items()} for name in systems}
    return {
        "baseline": baseline,
        "systems": systems,
        "comparisons": compare_values(values, family=f"win rates against {baseline}"),
    }


def read_difficulty(path: Path) -> dict[str, float]:
    """Instruction -> difficulty from a CSV with a header row and the columns instruction, difficulty."""
    try:
        with Path(path).open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read the difficulty file ({exc})") from None
    found: dict[str, float] = {}
    for number, row in enumerate(rows[1:], start=2):
        try:
            found[row[0]] = float(row[1])
        except (IndexError, ValueError):
            raise UserError(f"{path}: row {number} (counted from 1): expected instruction,difficulty") from None
    return found


def win_rate_table(block: Mapping[str, Any] | None) -> list[str]:
    """The text lines of :func:`baseline_win_rates`."""
    if not block:
        return []
    lines = [
        f"Win rates against {block['baseline']} (AlpacaEval's definition: mean of preference - 1, x100; draws "
        "count half; standard error: sd ddof=1 / sqrt(n)); LC = this project's length-controlled variant",
        f"  {'system':<34} {'win rate':>9} {'s.e.':>7} {'LC':>7} {'wins':>5} {'base':>5} {'draws':>5} {'n':>5} "
        f"{'avg len':>8}",
    ]
    for name, entry in block["systems"].items():
        lc = entry.get("length_controlled")
        lc_text = f"{lc['win_rate']:7.2f}" if lc else f"{'-':>7}"
        se = entry["standard_error"]
        lines.append(
            f"  {name:<34} {entry['win_rate']:9.4f} {se if se is not None else float('nan'):7.4f} {lc_text} "
            f"{entry['n_wins']:5d} {entry['n_wins_base']:5d} {entry['n_draws']:5d} {entry['n_total']:5d} "
            f"{entry['avg_length'] or 0:8.0f}"
        )
    comparisons = block["comparisons"]
    if comparisons["pairs"]:
        lines.append(
            f"  pairs (first - second, {comparisons['pairs'][0]['test']} on shared instructions; p_holm and p_bh "
            f"over {comparisons['family']}):"
        )
        for pair in comparisons["pairs"]:
            p = pair["p_value"]
            if not isinstance(p, float):
                lines.append(f"    {pair['first']} - {pair['second']}: n={pair['n_inputs']}, no test ({p})")
                continue
            lines.append(
                f"    {pair['first']} - {pair['second']}: {pair['difference']:+.3f} [{pair['ci95'][0]:+.3f}, "
                f"{pair['ci95'][1]:+.3f}] n={pair['n_inputs']} p={p:.3g} p_holm={pair['p_holm']:.3g} "
                f"p_bh={pair['p_bh']:.3g}"
            )
        ranks = ", ".join(
            f"{name} {entry['rank_set'][0]}-{entry['rank_set'][1]}" for name, entry in comparisons["ranks"].items()
        )
        lines.append(f"  rank sets (by Holm at {comparisons['alpha']}): {ranks}")
    if any(entry.get("length_controlled") is None for entry in block["systems"].values()):
        lines.append("  LC needs statsmodels: pip install 'debate-eval[stats]'")
    return lines
