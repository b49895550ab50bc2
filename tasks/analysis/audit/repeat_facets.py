"""The facets that judge the same items again: stability (k runs) and position bias (both orders)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from debate_eval.tasks.analysis.audit.facet import (
    Bootstrap,
    Facet,
    Figure,
    ItemLink,
    estimate,
    measured,
    not_applicable,
)
from debate_eval.tasks.analysis.audit.krippendorff import INTERVAL, NOMINAL, krippendorff_alpha
from debate_eval.tasks.analysis.audit.rows import (
    as_records,
    ids,
    is_pairwise_run,
    latest,
    share,
    unit_key,
    value_of,
    verdict_of,
)
from debate_eval.tasks.engine.record import Record

STABILITY, POSITION = "stability", "position"
POSITION_RUN = "position"


def stability(
    runs: Sequence[tuple[str, Sequence[Record | Mapping[str, Any]]]], settings: Bootstrap, how_repeated: str = ""
) -> Facet:
    """Agreement of the judge with itself over ``runs`` (name, records) of the same items: Krippendorff's
    alpha with items as units and runs as coders (interval level for scores, nominal for verdicts), and the
    share of items whose judgment is not the same in every run. ``how_repeated`` says how the runs differ
    (seeds, no cache)."""
    runs = [(name, as_records(records)) for name, records in runs]
    if len(runs) < 2:
        return not_applicable(STABILITY, "needs at least 2 runs of the same items (--repeats 2+)")
    base = list(runs[0][1])
    if not base:
        return not_applicable(STABILITY, "the base run has no records")
    pairwise = is_pairwise_run(base)
    level = NOMINAL if pairwise else INTERVAL
    unit, key = unit_key(base)
    by_run = [latest(records) for _, records in runs]
    rows = []
    for record in base:
        item = record.key
        values = [verdict_of(run.get(item)) if pairwise else value_of(run.get(item)) for run in by_run]
        known = [v for v in values if v is not None]
        if len(known) >= 2:
            rows.append({"id": item, "unit": key(record), "values": values, "moved": len(set(known)) > 1})

    def statistic(every: list[dict[str, Any]]) -> dict[str, float | None]:
        return {
            "alpha": krippendorff_alpha([r["values"] for r in every], level),
            "moved": share([r["moved"] for r in every]),
        }

    units, values, ci = estimate(rows, statistic, ["alpha", "moved"], settings, unit)
    moved = [row for row in rows if row["moved"]]
    links = [ItemLink(name, ids(moved), "items whose judgment differs between runs") for name, _ in runs]
    judgment = "verdict" if pairwise else "score"
    figures = [
        Figure("alpha", f"Krippendorff's α ({level})", values["alpha"], ci["alpha"], items=links),
        Figure("moved_share", f"share of items whose {judgment} moves", values["moved"], ci["moved"], items=links),
    ]
    how = (
        f"{len(runs)} runs of the same items ({how_repeated or 'repeated runs'}). Krippendorff's α with the items as "
        f"units and the runs as coders, {level} metric (α = 1 − D_o/D_e; Krippendorff 2011): 1 = the same "
        f"{judgment} every time; undefined when every {judgment} is the same. Share of items (judged in at least "
        f"two runs) whose {judgment} is not the same in every run."
    )
    spread = [max(v for v in row["values"] if v is not None) - min(v for v in row["values"] if v is not None)
              for row in rows] if not pairwise else []  # fmt: skip
    notes = [] if values["alpha"] is not None else [f"α is undefined: every {judgment} is the same"]
    plot = {"spread": spread, "runs": len(runs)}
    return measured(STABILITY, how, settings, unit, len(units), [n for n, _ in runs], figures, plot=plot, notes=notes)


def position(records: Sequence[Record | Mapping[str, Any]], settings: Bootstrap) -> Facet:
    """Position bias from a ``--swap`` run (each item judged in both orders; ``verdicts`` holds both, the
    second mapped back to the original order): the first-position win rate (0.5: no position preference),
    the same in the dataset's order beside the humans', and consistency; the facet's ``method`` defines each."""
    records = as_records(records)
    if not records:
        return not_applicable(POSITION, "the position run has no records")
    if not is_pairwise_run(records):
        return not_applicable(POSITION, "not pairwise: one text is judged, there is no order")
    rows = []
    for r in records:
        verdicts = r.verdicts if isinstance(r.verdicts, Mapping) else {}
        original, swapped = verdicts.get("original"), verdicts.get("swapped")
        if original not in ("first", "second", "tie") or swapped not in ("first", "second", "tie"):
            continue
        label = r.human_label
        rows.append(
            {
                "id": r.key,
                # the swapped order showed the original second response first: "second" (mapped back) is a win
                # for the first position there
                "first_wins": [v for v in (original == "first" if original != "tie" else None,
                                           swapped == "second" if swapped != "tie" else None) if v is not None],
                "original_first": None if original == "tie" else original == "first",
                "human_first": None if label not in ("first", "second") else label == "first",
                "consistent": original == swapped,
            }
        )  # fmt: skip

    def statistic(every: list[dict[str, Any]]) -> dict[str, float | None]:
        return {
            "first": share([w for r in every for w in r["first_wins"]]),
            "original": share([r["original_first"] for r in every if r["original_first"] is not None]),
            "human": share([r["human_first"] for r in every if r["human_first"] is not None]),
            "consistency": share([r["consistent"] for r in every]),
        }

    names = ["first", "original", "human", "consistency"]
    _, values, ci = estimate(rows, statistic, names, settings, "items", by_item=True)
    inconsistent = [row for row in rows if not row["consistent"]]
    every = [ItemLink(POSITION_RUN, ids(rows), "items judged in both orders")]
    figures = [
        Figure("first_position_rate", "first-position win rate (both orders)", values["first"], ci["first"],
               baseline=0.5, baseline_label="no position preference", items=every),
        Figure("first_rate_dataset_order", "share of 'first' verdicts in the dataset's order", values["original"],
               ci["original"], baseline=values["human"], baseline_label="humans: share of 'first' labels",
               baseline_ci95=ci["human"], items=every),
        Figure("consistency", "consistency (same verdict in both orders)", values["consistency"], ci["consistency"],
               items=[ItemLink(POSITION_RUN, ids(inconsistent), "items whose two verdicts disagree")]),
    ]  # fmt: skip
    how = (
        "Each item judged twice, the responses exchanged the second time (--swap). First-position win rate: "
        "of the decisive verdicts (ties left out) of both orders, the share that picked the response shown first; "
        "0.5 = no position preference (1.0: always the first). In the dataset's order alone, the share of "
        "'first' verdicts beside the humans' share of 'first' labels. Consistency: the share of items whose two "
        "verdicts agree once the second is mapped back (Fennec)."
    )
    return measured(POSITION, how, settings, "items", len(rows), [POSITION_RUN], figures)
