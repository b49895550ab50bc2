"""The facets read from the audit's base run alone: agreement with humans, verbosity bias, scale use."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import wasserstein_distance

from debate_eval.tasks.analysis.audit.facet import (
    Bootstrap,
    Facet,
    Figure,
    ItemLink,
    estimate,
    measured,
    not_applicable,
)
from debate_eval.tasks.analysis.audit.rows import (
    PREFERENCE,
    as_records,
    has_humans,
    human_value,
    ids,
    is_pairwise_run,
    partial_spearman,
    record_ids,
    share,
    spearman,
    unit_key,
    value_of,
    verdict_of,
)
from debate_eval.tasks.analysis.correlations import ITEM, evaluate_aspect
from debate_eval.tasks.analysis.distribution import score_bin
from debate_eval.tasks.analysis.judgebench import judgebench_figures
from debate_eval.tasks.analysis.pairwise_metrics import evaluate_pairwise
from debate_eval.tasks.engine.record import Record

BASE = "base"
NO_HUMANS = "no human scores or labels in the data"
AGREEMENT, VERBOSITY, SCALE = "agreement", "verbosity", "scale"


def agreement(records: Sequence[Record | Mapping[str, Any]], settings: Bootstrap) -> Facet:
    """The meta-evaluation of the base run (``meta-eval``'s numbers): correlations, or accuracy/kappa/macro-F1."""
    records = as_records(records)
    if not records:
        return not_applicable(AGREEMENT, "the base run has no records")
    if not has_humans(records):
        return not_applicable(AGREEMENT, NO_HUMANS)
    first = records[0]
    dataset, aspect, protocol = str(first.dataset), str(first.aspect), first.method
    options = {"ci_method": settings.ci_method, "min_units": settings.min_units}
    if is_pairwise_run(records):
        report = evaluate_pairwise(dataset, aspect, protocol, list(records), settings.n, **options)
        keys = (("accuracy", "accuracy"), ("kappa", "Cohen's κ"), ("macro_f1", "macro-F1"))
        judged = [r for r in records if verdict_of(r) is not None and r.human_label in PREFERENCE]
        n, unit = len(judged), "items"
        wrong = [r for r in judged if verdict_of(r) != r.human_label]
        links = [ItemLink(BASE, record_ids(judged), "items with a verdict and a human label"),
                 ItemLink(BASE, record_ids(wrong), "items whose verdict differs from the human label")]  # fmt: skip
        how = (
            "meta-eval of the base run (each item judged once, in the dataset's order): accuracy, Cohen's κ over "
            "first/second/tie and macro-F1 against the human labels, over the items with a verdict and a label."
        )
    else:
        report = evaluate_aspect(dataset, aspect, protocol, list(records), settings.n, **options)
        keys = (("spearman", "Spearman ρ"), ("kendall", "Kendall τ"), ("pearson", "Pearson r"))
        scored = [r for r in records if value_of(r) is not None and human_value(r) is not None]
        if report.level == ITEM:
            n, unit = len(scored), "items"
            how = "meta-eval of the base run: Spearman ρ, Kendall τ-b and Pearson r over all items."
        else:
            n, unit = report.n_groups, "groups"
            how = (
                "meta-eval of the base run: Spearman ρ, Kendall τ-b and Pearson r per group (document / dialogue "
                f"context) over its items, averaged over the {report.n_groups} groups with a defined correlation "
                f"({report.n_skipped} constant groups left out)."
            )
        links = [ItemLink(BASE, record_ids(scored), "items with a score and a human score")]
    ci = report.ci95
    figures = [
        Figure(key, label, getattr(report, key), ci if isinstance(ci, str) or ci is None else ci.get(key), items=links)
        for key, label in keys
    ]
    notes: list[str] = []
    bench = judgebench_figures(records) if is_pairwise_run(records) else None
    if bench and bench["score"] is not None:
        figures.append(Figure("judgebench", "JudgeBench score (% of pairs right)", bench["score"], bench["ci95"]))
        how += (
            " JudgeBench's score: per pair +1 per order's verdict equal to the label, −1 per verdict equal to the "
            "flipped label, right when > 0; its interval is the 95 % Wilson score interval."
        )
        if not bench["n_both_orders"]:
            how += " Each pair was judged in one order here (JudgeBench's single-order figure)."
        notes += [
            f"JudgeBench {name}: {entry['score']:.2f} % ({entry['n_right']}/{entry['n_pairs']} right)"
            for name, entry in bench["categories"].items()
        ]
    plot = {"points": _points(records)}
    return measured(AGREEMENT, how, settings, unit, n, [BASE], figures, plot=plot, notes=notes)


def _points(records: Sequence[Record]) -> list[list[Any]]:
    """(human, judge, item id) per item with both, for a scatter plot."""
    return [
        [human, judge, r.key]
        for r in records
        if (human := human_value(r)) is not None and (judge := value_of(r)) is not None
    ]


def verbosity(records: Sequence[Record | Mapping[str, Any]], lengths: Mapping[str, Any], settings: Bootstrap) -> Facet:
    """Does the judge reward length beyond what the humans do? (The judge's bias, not the texts' quality.)

    ``lengths``: item id -> words (pairwise: -> (words of response A, words of response B)). Single scores with
    human scores: ``length_bias`` and ``residual_spearman``, both 0 for a judge without a length bias however
    accurate it is; pairwise: ``longer_preference_difference``; the facet's ``method`` says how to read each.
    """
    records = as_records(records)
    if not records:
        return not_applicable(VERBOSITY, "the base run has no records")
    if is_pairwise_run(records):
        return _pairwise_verbosity(records, lengths, settings)
    unit, key = unit_key(records)
    rows = [
        {"id": r.key, "unit": key(r), "score": value_of(r), "human": human_value(r), "length": lengths.get(r.key)}
        for r in records
    ]  # fmt: skip
    rows = [row for row in rows if row["score"] is not None and row["length"] is not None]
    humans = has_humans(records)
    if humans:
        rows = [row for row in rows if row["human"] is not None]

    def statistic(every: list[dict[str, Any]]) -> dict[str, float | None]:
        score, length = [r["score"] for r in every], [float(r["length"]) for r in every]
        if not humans:
            return {"raw": spearman(score, length)}
        human = [r["human"] for r in every]
        residual = [s - h for s, h in zip(score, human, strict=True)]
        return {
            "slope": length_slope(residual, length),
            "residual": spearman(residual, length),
            "partial": partial_spearman(score, length, human),
            "raw": spearman(score, length),
            "human": spearman(human, length),
        }

    names = ["slope", "residual", "partial", "raw", "human"] if humans else ["raw"]
    units, values, ci = estimate(rows, statistic, names, settings, unit)
    link = [ItemLink(BASE, ids(rows), "scored items (length: words of the judged text)")]
    figures = []
    if humans:
        figures += [
            Figure(
                "residual_spearman", "Spearman ρ(judge − human score, length)", values["residual"],
                ci["residual"], items=link,
            ),
            Figure(
                "length_bias", "length bias: judge − human score per 100 words (least-squares slope)",
                values["slope"], ci["slope"], items=link,
            ),
        ]  # fmt: skip
        figures.append(
            Figure(
                "partial_spearman", "partial Spearman ρ(score, length | human score)", values["partial"],
                ci["partial"], baseline=values["human"], baseline_label="humans: Spearman ρ(human score, length)",
                baseline_ci95=ci["human"], items=link,
            )
        )  # fmt: skip
    figures.append(Figure("spearman", "Spearman ρ(score, length)", values["raw"], ci["raw"], items=link))
    how = (
        "Length = words of the judged text. The estimand is the judge's length bias: how its score minus the "
        "human score moves with length, as the least-squares slope of (judge − human) on length (score points "
        "per 100 words) and Spearman's ρ(judge − human, length), over all scored items. 0: no length bias, "
        "however accurate the judge and however length goes with quality; read on the human scale (a judge that "
        "compresses or stretches it has a residual that follows quality). Beside them Spearman's partial "
        "correlation of the judge's score with the length given the human score, (ρ_sl − ρ_sh ρ_lh) / "
        "√((1 − ρ_sh²)(1 − ρ_lh²)), which also grows when the judge is more accurate than noisy raters and "
        "length goes with quality, and the humans' own ρ(human score, length)."
        if humans
        else "Length = words of the judged text. Spearman ρ of the judge's score with the length over all scored "
        f"items. Not controlled for quality: {NO_HUMANS}."
    )
    plot = {"points": [[row["length"], row["score"], row["id"]] for row in rows]}
    return measured(VERBOSITY, how, settings, unit, len(units), [BASE], figures, plot=plot)


def length_slope(residual: Sequence[float], length: Sequence[float]) -> float | None:
    """The least-squares slope of ``residual`` on ``length``, per 100 words (None when length does not vary)."""
    x, y = np.asarray(length, dtype=float) / 100.0, np.asarray(residual, dtype=float)
    if len(x) < 2 or np.var(x) == 0:
        return None
    return float(np.sum((x - x.mean()) * (y - y.mean())) / np.sum((x - x.mean()) ** 2))


LC_PENALTY = 1.0  # L2 penalty on the length coefficient (a judge that always picks the longer one separates)


def length_controlled(outcomes: Sequence[float], lengths: Sequence[float]) -> dict[str, float] | None:
    """AlpacaEval's length control for one judge's pairwise verdicts: the logistic regression
    ``logit P(first) = b0 + b1 · x``, ``x`` the length difference (first − second) already standardised and
    passed through tanh, fitted by Newton's method with an L2 penalty :data:`LC_PENALTY` on ``b1`` (so a
    judge whose verdicts the length separates perfectly still has a finite coefficient). Returns
    ``{"effect": b1, "controlled": sigmoid(b0)}``: the length effect and the share for the first response
    at equal length (the length-controlled score); None with fewer than 2 outcomes or only one kind."""
    y, x = np.asarray(outcomes, dtype=float), np.asarray(lengths, dtype=float)
    if len(y) < 2 or np.all(y == y[0]):
        return None
    design = np.column_stack([np.ones_like(x), x])
    penalty = np.diag([0.0, LC_PENALTY])
    beta = np.zeros(2)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        gradient = design.T @ (y - p) - penalty @ beta
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return None
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    if not np.all(np.isfinite(beta)):
        return None
    return {"effect": float(beta[1]), "controlled": float(1.0 / (1.0 + np.exp(-beta[0])))}


def _pairwise_verbosity(records: Sequence[Record], lengths: Mapping[str, Any], settings: Bootstrap) -> Facet:
    rows = []
    for r in records:
        pair = lengths.get(r.key)
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            continue
        longer = "first" if pair[0] > pair[1] else "second" if pair[1] > pair[0] else None  # more words
        verdict, label = verdict_of(r), r.human_label
        rows.append(
            {
                "id": r.key,
                "difference": float(pair[0]) - float(pair[1]),
                "judge": None if verdict in (None, "tie") or longer is None else verdict == longer,
                "human": None if label not in ("first", "second") or longer is None else label == longer,
                "judge_first": None if verdict not in ("first", "second") else float(verdict == "first"),
                "human_first": None if label not in ("first", "second") else float(label == "first"),
            }
        )
    spread = float(np.std([row["difference"] for row in rows])) if rows else 0.0
    for row in rows:
        row["x"] = float(np.tanh(row["difference"] / spread)) if spread > 0 else 0.0

    def controlled(every: list[dict[str, Any]], who: str) -> dict[str, float] | None:
        used = [r for r in every if r[who] is not None]
        return length_controlled([r[who] for r in used], [r["x"] for r in used])

    def statistic(every: list[dict[str, Any]]) -> dict[str, float | None]:
        judge, human = controlled(every, "judge_first") or {}, controlled(every, "human_first") or {}
        decisive = [r["judge_first"] for r in every if r["judge_first"] is not None]
        both = [r for r in every if r["judge"] is not None and r["human"] is not None]
        return {
            "difference": (share([r["judge"] for r in both]) or 0.0) - (share([r["human"] for r in both]) or 0.0)
            if both
            else None,
            "judge": share([r["judge"] for r in every if r["judge"] is not None]),
            "human": share([r["human"] for r in every if r["human"] is not None]),
            "effect": judge.get("effect"),
            "human_effect": human.get("effect"),
            "controlled": judge.get("controlled"),
            "first": sum(decisive) / len(decisive) if decisive else None,
        }

    names = ["difference", "judge", "human", "effect", "human_effect", "controlled", "first"]
    _, values, ci = estimate(rows, statistic, names, settings, "items", by_item=True)
    decided = [row for row in rows if row["judge"] is not None]
    longer_picked = [ItemLink(BASE, ids([row for row in decided if row["judge"]]), "verdicts for the longer response")]
    both = [row for row in decided if row["human"] is not None]
    figures = [
        Figure(
            "longer_preference_difference",
            "judge's share of decisive verdicts for the longer response minus the humans' share, same items",
            values["difference"], ci["difference"],
            items=[ItemLink(BASE, ids(both), "items with a decisive verdict and label, lengths different")],
        ),
        Figure(
            "longer_win_rate", "share of decisive verdicts for the longer response", values["judge"], ci["judge"],
            baseline=values["human"], baseline_label="humans: share of decisive labels for the longer response",
            baseline_ci95=ci["human"], items=longer_picked,
        ),
        Figure(
            "length_effect", "length effect: logistic coefficient of tanh(standardised length difference)",
            values["effect"], ci["effect"], baseline=values["human_effect"],
            baseline_label="humans: the same regression on their labels", baseline_ci95=ci["human_effect"],
        ),
        Figure(
            "lc_first_win_rate", "length-controlled share of decisive verdicts for the first response",
            values["controlled"], ci["controlled"], baseline=values["first"],
            baseline_label="the same share without length control", baseline_ci95=ci["first"],
        ),
    ]  # fmt: skip
    how = (
        "Length = words of each response. The estimand is the judge's length preference beyond the "
        "humans': over the items whose responses differ in length and where both the judge and the humans are "
        "decisive, the share of the judge's verdicts for the longer response minus the share of the human labels "
        "for it (0: the judge prefers length no more than the humans on the same pairs; where the better response "
        "tends to be the longer one, a judge more accurate than the raters shows a larger share, a less accurate "
        "one a smaller share). Beside it, over the "
        "items whose responses differ in length: the share of the judge's decisive verdicts (not ties) that pick "
        "the longer response, and the same share of the human labels. Length control as AlpacaEval's: a "
        "logistic regression of the decisive verdict (first = 1) "
        "on tanh((words A − words B) / their standard deviation), with an intercept and an L2 penalty of "
        f"{LC_PENALTY:g} on the length coefficient; the coefficient is the length effect (0: none; beside it the "
        "same regression on the human labels), and the sigmoid of the intercept the length-controlled share for "
        "the first response (the share at equal length)."
    )
    return measured(VERBOSITY, how, settings, "items", len(rows), [BASE], figures)


def scale_use(records: Sequence[Record | Mapping[str, Any]], settings: Bootstrap) -> Facet:
    """How the judge uses the scale: the earth mover's distance between its scores and the human scores on the
    same items (``scipy.stats.wasserstein_distance``), and the share of its most common score beside the
    humans' (scores rounded half up into integer bins; pairwise: verdicts on the preference scale)."""
    records = as_records(records)
    if not records:
        return not_applicable(SCALE, "the base run has no records")
    pairwise = is_pairwise_run(records)
    humans = has_humans(records)
    unit, key = unit_key(records)
    rows = [{"id": r.key, "unit": key(r), "judge": value_of(r), "human": human_value(r)} for r in records]
    rows = [row for row in rows if row["judge"] is not None and (row["human"] is not None or not humans)]

    def modal(values: list[float]) -> float | None:
        if not values:
            return None
        return max(Counter(score_bin(v) for v in values).values()) / len(values)

    def statistic(every: list[dict[str, Any]]) -> dict[str, float | None]:
        judge = [r["judge"] for r in every]
        out = {"modal": modal(judge)}
        if humans:
            human = [r["human"] for r in every]
            out["emd"] = float(wasserstein_distance(judge, human)) if every else None
            out["human_modal"] = modal(human)
        return out

    names = ["emd", "modal", "human_modal"] if humans else ["modal"]
    units, values, ci = estimate(rows, statistic, names, settings, unit)
    judge_bins = Counter(score_bin(row["judge"]) for row in rows)
    mode = judge_bins.most_common(1)[0][0] if judge_bins else None
    at_mode = [row for row in rows if row["judge"] is not None and score_bin(row["judge"]) == mode]
    mode_text = _bin_name(mode, pairwise)
    figures = []
    if humans:
        figures.append(
            Figure("emd", "earth mover's distance to the human distribution", values["emd"], ci["emd"],
                   items=[ItemLink(BASE, ids(rows), "items with a judgment and a human one")])
        )  # fmt: skip
    figures.append(
        Figure(
            "modal_share", "share of the most common judgment", values["modal"], ci["modal"],
            baseline=values.get("human_modal"), baseline_label="humans: share of their most common judgment",
            baseline_ci95=ci.get("human_modal"), items=[ItemLink(BASE, ids(at_mode), f"items judged {mode_text}")],
        )
    )  # fmt: skip
    what = "verdicts as numbers: first +1, tie 0, second −1" if pairwise else "scores"
    how = (
        f"Over the items with a judgment and a human one ({what}): the earth mover's (Wasserstein-1) distance "
        "between the two distributions, in scale points (0: the same distribution); the share of the single "
        "most common judgment (integer bins, rounded half up), beside the humans' share of theirs."
        if humans
        else f"The share of the single most common judgment ({what}; integer bins, rounded half up). The distance "
        f"to the human distribution needs human ratings: {NO_HUMANS}."
    )
    plot, notes = {"distribution": _distribution(rows, humans, pairwise)}, [f"most common judgment: {mode_text}"]
    return measured(SCALE, how, settings, unit, len(units), [BASE], figures, plot=plot, notes=notes)


def _bin_name(value: int | None, pairwise: bool) -> str:
    if value is None:
        return "none"
    if pairwise:
        return {1: "first", 0: "tie", -1: "second"}.get(value, str(value))
    return f"score {value}"


def _distribution(rows: Sequence[dict[str, Any]], humans: bool, pairwise: bool) -> dict[str, Any]:
    """Percent per integer bin of the judge's and the humans' judgments (for a bar chart)."""
    judge = Counter(score_bin(row["judge"]) for row in rows)
    human = Counter(score_bin(row["human"]) for row in rows if row["human"] is not None) if humans else Counter()
    bins = sorted(set(judge) | set(human))
    total_j, total_h = sum(judge.values()) or 1, sum(human.values()) or 1
    return {
        "bins": [_bin_name(b, pairwise) if pairwise else b for b in bins],
        "judge": [100.0 * judge[b] / total_j for b in bins],
        "human": [100.0 * human[b] / total_h for b in bins] if humans else [],
    }
