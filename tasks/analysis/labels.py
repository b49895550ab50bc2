"""Human labels given on the label page (``debate-eval label``): the one reader of ``labels.jsonl`` and how the
labels join a run's records.

A labels file has one JSON object a line: ``item_id``, then ``rating`` (a number on the run's scale) for a
single-score run or ``verdict`` (``first``, ``second`` or ``tie``) for a pairwise one, and optionally
``aspect``, ``annotator`` and ``time``. :func:`read_labels` checks every line against the run's records and
scale and raises a one-line ``UserError`` naming the file, the line (counted from 1) and the field: an id the
run does not hold, a rating off the scale, a verdict not among the three, the same item labelled twice by the
same annotator. Several annotators of one item are kept apart (:attr:`Label.annotator`); :func:`apply_labels`
gives each labelled record the mean of its ratings (or the verdict most annotators gave; a split with no
majority leaves the item unlabelled) as its human rating, and takes away the rating of every other record:
with ``--labels`` the file's labels are the human ratings, whatever the dataset held.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.records import RecordLike, ScoreRow, score_row, score_rows
from debate_eval.tasks.data.rows import finite_number
from debate_eval.tasks.engine.record import VERDICTS
from debate_eval.tasks.engine.rundir import RunDir, results_file

LABELS_FILE = "labels.jsonl"
FIELDS = ("item_id", "aspect", "rating", "verdict", "annotator", "time")


@dataclass(frozen=True)
class Label:
    """One line of a labels file: a person's rating (or verdict) of one item."""

    item_id: str
    rating: float | None = None
    verdict: str | None = None
    aspect: str | None = None
    annotator: str | None = None
    time: str | None = None
    line: int = 0  # where it was read (counted from 1)

    def to_json(self) -> dict[str, Any]:
        """The label as its ``labels.jsonl`` line (keys without a value left out)."""
        return {name: value for name in FIELDS if (value := getattr(self, name)) is not None}


def run_scale(config: Mapping[str, Any], aspect: str) -> tuple[float, float] | None:
    """The scale (low, high) an aspect was judged on, from a run's ``config.json`` (its ``result_config``; a
    multi-aspect run's ``aspects`` first), or None when the run does not say."""
    result = config.get("result_config") or config
    part = (result.get("aspects") or {}).get(aspect) or result
    text = str((part.get("template") or {}).get("scale") or part.get("scale") or "")
    try:
        low, high = (float(x) for x in text.split("-", 1))
    except ValueError:
        return None
    return (low, high) if high > low else None


def scale_of_run(run: str | Path, aspect: str) -> tuple[float, float] | None:
    """:func:`run_scale` of a run directory (or of the folder of a results file); None without a config."""
    return run_scale(RunDir.of_results(results_file(run)).config, aspect)


def write_labels(labels: Iterable[Label], path: str | Path) -> Path:
    """Write ``labels`` as a labels file (what the label page downloads); returns the path."""
    target = Path(path)
    target.write_text("".join(json.dumps(label.to_json()) + "\n" for label in labels), encoding="utf-8")
    return target


def read_labels(
    path: str | Path,
    records: Sequence[RecordLike] | None = None,
    scale: tuple[float, float] | None = None,
) -> list[Label]:
    """The labels of a ``labels.jsonl`` file, each line checked; a bad line is a one-line ``UserError``
    (file, line counted from 1, field).

    With ``records`` (the run's), every ``item_id`` (and ``aspect``, when given) must be one of theirs, a
    rating needs a single-score record and a verdict a pairwise one. With ``scale`` (low, high), a rating must
    lie on it."""
    source = Path(path)
    if source.is_dir():
        raise UserError(f"{source}: a folder, not a labels file (the label page downloads {LABELS_FILE})")
    if not source.is_file():
        raise UserError(f"{source}: no such labels file (the label page downloads it as {LABELS_FILE})")
    known: dict[str, dict[str, bool]] | None = None  # item id -> aspect -> whether that record is pairwise
    if records is not None:
        known = {}
        for row in score_rows(records):
            known.setdefault(row.key, {})[str(row.aspect)] = row.pairwise
    labels: list[Label] = []
    seen: dict[tuple[str, str | None, str | None], int] = {}
    try:  # utf-8-sig: a byte-order mark that an editor put at the start is not part of the first line
        lines = source.read_text(encoding="utf-8-sig").split("\n")
    except UnicodeDecodeError as error:
        raise UserError(f"{source}: not UTF-8 text (byte {error.start}); a labels file is JSON lines") from None
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        label = _parse_line(text, source, number, known, scale)
        key = (label.item_id, label.aspect, label.annotator)
        if key in seen:
            who = f" by annotator {label.annotator!r}" if label.annotator else ""
            raise UserError(
                f"{source}: line {number} (counted from 1): item_id {label.item_id!r} is labelled again{who} "
                f"(first on line {seen[key]}); keep one line per item and annotator"
            )
        seen[key] = number
        labels.append(label)
    if not labels:
        raise UserError(f"{source}: no labels in the file")
    return labels


def _parse_line(
    text: str,
    path: Path,
    number: int,
    known: Mapping[str, Mapping[str, bool]] | None,
    scale: tuple[float, float] | None,
) -> Label:
    where = f"{path}: line {number} (counted from 1)"
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"{where}: not JSON ({error.msg}); a labels file has one JSON object a line") from None
    if not isinstance(obj, dict):
        raise UserError(f"{where}: not a JSON object; a labels file has one JSON object a line")
    unknown = sorted(set(obj) - set(FIELDS))
    if unknown:
        raise UserError(f"{where}: field {unknown[0]} is not a labels field (fields: {', '.join(FIELDS)})")
    item_id = obj.get("item_id")
    if isinstance(item_id, bool) or not isinstance(item_id, str | int) or item_id == "":
        raise UserError(f"{where}: item_id must be a non-empty string or integer, not {item_id!r}")
    item_id = str(item_id)
    for name in ("aspect", "annotator", "time"):
        value = obj.get(name)
        if value is not None and not isinstance(value, str):
            raise UserError(f"{where}: {name} must be a string or absent, not {value!r}")
    aspect = obj.get("aspect")
    rating, verdict = obj.get("rating"), obj.get("verdict")
    if (rating is None) == (verdict is None):
        raise UserError(f"{where}: give either a rating (a number) or a verdict ({', '.join(VERDICTS)})")
    if rating is not None:
        if finite_number(rating) is None:
            raise UserError(f"{where}: rating must be a number, not {rating!r}")
        if scale is not None and not scale[0] <= rating <= scale[1]:
            raise UserError(f"{where}: rating {rating:g} is off the run's scale {scale[0]:g}-{scale[1]:g}")
    if verdict is not None and verdict not in VERDICTS:
        raise UserError(f"{where}: verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    if known is not None:
        aspects = known.get(item_id)
        if aspects is None:
            raise UserError(f"{where}: item_id {item_id!r} is not an item of the run")
        if aspect is not None and aspect not in aspects:
            raise UserError(f"{where}: aspect {aspect!r} is not one the run judged for item {item_id!r}")
        if aspect is None and len(aspects) > 1:
            raise UserError(f"{where}: aspect missing: item {item_id!r} was judged for {', '.join(sorted(aspects))}")
        pairwise = aspects[aspect] if aspect is not None else next(iter(aspects.values()))
        if pairwise and rating is not None:
            raise UserError(f"{where}: rating given for a pairwise item; give a verdict ({', '.join(VERDICTS)})")
        if not pairwise and verdict is not None:
            raise UserError(f"{where}: verdict given for a single-score item; give a rating")
    return Label(
        item_id=item_id,
        rating=float(rating) if rating is not None else None,
        verdict=verdict,
        aspect=aspect,
        annotator=obj.get("annotator"),
        time=obj.get("time"),
        line=number,
    )


def combined(labels: Iterable[Label]) -> dict[tuple[str, str | None], float | str]:
    """(item id, aspect or None) -> the human label of the item: the mean rating of its annotators, or the
    verdict most of them gave (an item whose verdicts have no single most common one is left out)."""
    ratings: dict[tuple[str, str | None], list[float]] = {}
    verdicts: dict[tuple[str, str | None], list[str]] = {}
    for label in labels:
        key = (label.item_id, label.aspect)
        if label.rating is not None:
            ratings.setdefault(key, []).append(label.rating)
        elif label.verdict is not None:
            verdicts.setdefault(key, []).append(label.verdict)
    out: dict[tuple[str, str | None], float | str] = {key: sum(v) / len(v) for key, v in ratings.items()}
    for key, given in verdicts.items():
        (first, count), *rest = Counter(given).most_common()
        if not rest or rest[0][1] < count:
            out[key] = first
    return out


def apply_labels(records: Iterable[RecordLike], labels: Iterable[Label]) -> list[ScoreRow]:
    """The records' rows with the labels as their human ratings: a labelled record gets the combined label
    (:func:`combined`) as ``human_score`` or ``human_label``; every other record gets none."""
    given = combined(labels)
    rows = [score_row(record) for record in records]
    return [with_label(row, given.get((row.key, str(row.aspect)), given.get((row.key, None)))) for row in rows]


def with_label(row: ScoreRow, value: Any) -> ScoreRow:
    """``row`` with ``value`` as its human label: its ``human_label`` (a verdict, pairwise) or its
    ``human_score`` (a number); none when ``value`` is not of that kind."""
    if row.pairwise:
        return dataclasses.replace(row, human_label=value if isinstance(value, str) else None)
    return dataclasses.replace(row, human_score=float(value) if isinstance(value, int | float) else None)


def read_run_labels(path: str | Path, records: Sequence[RecordLike], run: str | Path) -> list[Label]:
    """:func:`read_labels` of ``path`` checked against ``records`` and the scale of ``run`` (a run directory or
    results file; its one aspect's scale, none checked when the records hold several aspects or the run has no
    config)."""
    aspects = {str(score_row(record).aspect) for record in records}
    return read_labels(path, records, scale_of_run(run, next(iter(aspects))) if len(aspects) == 1 else None)


def labelled_run_rows(records: Sequence[RecordLike], path: str | Path, run: str | Path) -> list[ScoreRow]:
    """:func:`apply_labels` of :func:`read_run_labels`: what ``meta-eval --labels``, ``calibrate --labels`` and
    PPI read."""
    return apply_labels(records, read_run_labels(path, records, run))
