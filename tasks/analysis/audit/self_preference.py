"""Does the judge prefer outputs of its own model family? The self-preference facet of the judge card.

Given the family of each judged system (``--system-families``: ``system=family`` pairs or a JSON/CSV file; or
the data's ``system_family=COLUMN`` field) and
the judge's own family (``--judge-family``, else its model's entry in the same map), each rated item gives the
judge's excess over the humans, score − human rating. Self-preference is the mean excess on the outputs of
the judge's family minus the mean excess on the other families' outputs: 0 for a judge that rates its own
family as the humans do, relative to the others; positive when it rates its own family higher than the humans
do. Reading the excess against the humans' own rating, not the raw score, keeps a family that simply writes
better from looking like self-preference; the difference of the two means cancels a judge's overall leniency.
The interval is Welch's (unequal variances) 95 % t interval of the difference, and ``p`` its two-sided test;
each side needs ``MIN_UNITS`` rated items.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.audit.facet import TITLES, Facet, Figure, ItemLink, not_applicable
from debate_eval.tasks.analysis.bootstrap import LEVEL, MIN_UNITS, too_few_units


@dataclass
class SelfPreference:
    """The judge's excess over the humans on its own family's outputs minus that on the others'."""

    judge_family: str
    n_own: int
    n_other: int
    own_excess: float | None
    other_excess: float | None
    difference: float | None
    ci95: list[float] | str | None
    p: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(vars(self))


def read_families(spec: str) -> dict[str, str]:
    """The system -> family map of ``--system-families``: ``sysA=openai,sysB=meta``, or a file: JSON (an
    object of system -> family) or CSV with columns ``system`` and ``family``."""
    path = Path(spec)
    if "=" not in spec and path.suffix.lower() in (".json", ".csv") and not path.is_file():
        raise UserError(f"--system-families {spec}: no such file")
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as error:
            raise UserError(f"{path}: not UTF-8 text (byte {error.start}); give a JSON or CSV file") from None
        if path.suffix.lower() == ".json":
            try:
                value = json.loads(text)
            except json.JSONDecodeError as error:
                raise UserError(
                    f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
                ) from None
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise UserError(f"{path}: expected a JSON object of system -> family (text)")
            return {str(k): v for k, v in value.items()}
        rows = list(csv.DictReader(text.splitlines()))
        if not rows or not {"system", "family"} <= set(rows[0]):
            raise UserError(f"{path}: expected a CSV with the columns system and family")
        out = {}
        for number, row in enumerate(rows, start=1):
            if not (row.get("system") or "").strip() or not (row.get("family") or "").strip():
                raise UserError(
                    f"{path}: row {number} (counted from 1, the header line not counted): empty system or family"
                )
            out[row["system"].strip()] = row["family"].strip()
        return out
    out = {}
    for part in spec.split(","):
        system, sep, family = part.partition("=")
        if not sep or not system.strip() or not family.strip():
            raise UserError(f"--system-families {spec!r}: write system=family pairs separated by commas, or a file")
        out[system.strip()] = family.strip()
    return out


def self_preference(
    rows: Sequence[tuple[str | None, float | None, float | None]],
    families: Mapping[str, str],
    judge_family: str,
    min_units: int = MIN_UNITS,
) -> SelfPreference:
    """``rows``: (system, judge score, human rating) of each item; items without both numbers, or of a system
    the map does not name, are left out."""
    own, other = [], []
    for system, score, human in rows:
        if system is None or score is None or human is None or system not in families:
            continue
        (own if families[system] == judge_family else other).append(float(score) - float(human))
    a, b = np.asarray(own), np.asarray(other)
    result = SelfPreference(
        judge_family=judge_family,
        n_own=len(a),
        n_other=len(b),
        own_excess=float(a.mean()) if len(a) else None,
        other_excess=float(b.mean()) if len(b) else None,
        difference=float(a.mean() - b.mean()) if len(a) and len(b) else None,
        ci95=None,
        p=None,
    )
    withheld = too_few_units(min(len(a), len(b)), "rated items per side", min_units)
    if withheld:
        result.ci95 = withheld
        return result
    if a.var() == 0 and b.var() == 0:  # no spread on either side: the difference is exact
        result.ci95 = [result.difference, result.difference]
        result.p = 0.0 if result.difference else 1.0
        return result
    welch = stats.ttest_ind(a, b, equal_var=False)
    result.ci95 = [float(bound) for bound in welch.confidence_interval(LEVEL)]
    result.p = float(welch.pvalue)
    return result


SELF_PREFERENCE = "self_preference"


def self_preference_facet(
    rows: Sequence[tuple[str, str | None, float | None, float | None]],
    families: Mapping[str, str],
    judge_family: str | None,
) -> Facet:
    """The facet of the card: ``rows`` (item id, system, judge score, human rating) of the base run."""
    if not families:
        return not_applicable(
            SELF_PREFERENCE, "no system families given (--system-families, or --fields system_family=COLUMN)"
        )
    if not judge_family:
        return not_applicable(
            SELF_PREFERENCE, "the judge's family is not known (--judge-family, or its model in the map)"
        )
    result = self_preference([(system, score, human) for _, system, score, human in rows], families, judge_family)
    if not result.n_own or not result.n_other:
        side = "its own family" if not result.n_own else "other families"
        return not_applicable(SELF_PREFERENCE, f"no rated outputs of {side} ({judge_family!r})")
    own_ids = [i for i, s, sc, h in rows if s in families and families[s] == judge_family and None not in (sc, h)]
    return Facet(
        name=SELF_PREFERENCE,
        title=TITLES[SELF_PREFERENCE],
        method=(
            f"The judge's family: {judge_family}. Per rated item, the judge's excess over the humans (score − human "
            "rating); the mean excess on outputs of the judge's family minus the mean excess on the other families' "
            "(0: it rates its own family as the humans do, relative to the others; > 0: higher). 95% Welch t "
            "interval of the difference; none below 10 rated items per side."
        ),
        n=result.n_own + result.n_other,
        unit="items",
        runs=["base"],
        figures=[
            Figure(
                SELF_PREFERENCE,
                "own-family excess minus other-family excess",
                result.difference,
                result.ci95,
                baseline=0.0,
                baseline_label="no self-preference",
                items=[ItemLink("base", own_ids, f"outputs of the judge's family ({judge_family})")],
            ),
            Figure("own_excess", "judge − human on its own family's outputs", result.own_excess),
            Figure("other_excess", "judge − human on other families' outputs", result.other_excess),
        ],
        notes=[f"{result.n_own} own-family and {result.n_other} other-family rated outputs"]
        + ([f"Welch p = {result.p:.3g}"] if result.p is not None else []),
    )
