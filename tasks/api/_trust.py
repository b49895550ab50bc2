"""Trust from a few labels, from Python: ``label_page`` (``debate-eval label``), ``read_labels`` (the one reader
of ``labels.jsonl``) and ``calibrate`` (``debate-eval calibrate``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

from debate_eval._run import Run
from debate_eval.tasks.analysis.bootstrap import DEFAULT_RESAMPLES, SEED
from debate_eval.tasks.analysis.calibration import DEFAULT_FOLDS, Calibration, calibrate_records
from debate_eval.tasks.analysis.label_choice import DEFAULT_LABELS, STRATIFIED
from debate_eval.tasks.analysis.labels import Label, labelled_run_rows, scale_of_run
from debate_eval.tasks.analysis.labels import read_labels as _read_labels
from debate_eval.tasks.analysis.records import load_results, results_path
from debate_eval.tasks.analysis.report.label_page import label_page as _label_page

RunLike = Union[Run, str, "os.PathLike[str]"]
PathLike = Union[str, "os.PathLike[str]"]


def _path(run: RunLike) -> Path:
    return Path(run.path) if isinstance(run, Run) else Path(run)


def label_page(
    run: RunLike, out: PathLike = "label.html", *, n: int = DEFAULT_LABELS, choose: str = STRATIFIED, seed: int = 0
) -> Path:
    """Write the label page of ``n`` items of ``run`` (``debate-eval label RUN --n N --choose HOW``): a
    self-contained HTML file where a person rates each item and downloads ``labels.jsonl``. ``choose``:
    ``stratified`` (default), ``lowest-confidence`` or ``random``. Returns the page's path."""
    target, _ = _label_page(_path(run), out, n=n, how=choose, seed=seed)
    return target


def read_labels(path: PathLike, run: RunLike | None = None) -> list[Label]:
    """The labels of a ``labels.jsonl`` file, every line checked (against ``run``'s items and scale when given):
    a bad line is a one-line ``UserError`` naming the file, the line (counted from 1) and the field."""
    if run is None:
        return _read_labels(path)
    records = load_results([results_path(_path(run))])
    aspects = {str(row.aspect) for row in records}
    scale = scale_of_run(_path(run), next(iter(aspects))) if len(aspects) == 1 else None
    return _read_labels(path, records, scale)


def calibrate(
    run: RunLike,
    labels: PathLike | None = None,
    *,
    apply_to: RunLike | None = None,
    folds: int = DEFAULT_FOLDS,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
) -> Calibration:
    """Calibrate ``run``'s judge to the human scale (``debate-eval calibrate RUN --labels FILE --json`` is
    ``calibrate(RUN, FILE).to_dict()``): the monotone map, the error before and after (cross-fitted), the
    transfer check by system and the calibrated means of the unlabelled items (or of ``apply_to``'s)."""
    path = _path(run)
    records = load_results([results_path(path)])
    if labels is not None:
        records = labelled_run_rows(records, labels, path)
    other = load_results([results_path(_path(apply_to))]) if apply_to is not None else None
    aspects = {str(row.aspect) for row in records}
    scale = scale_of_run(path, next(iter(aspects))) if len(aspects) == 1 else None
    return calibrate_records(records, apply_to=other, folds=folds, bootstrap=bootstrap, seed=seed, scale=scale)
