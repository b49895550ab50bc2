"""Trust from a few labels, from Python: ``label_page`` (``debate-eval label``), ``read_labels`` (the one reader
of ``labels.jsonl``), ``calibrate`` (``debate-eval calibrate``), ``select`` (``debate-eval select``: choose a
judge among finished runs), ``cascade`` (``debate-eval cascade``: a cascade's thresholds from finished runs and
labels) and ``Cascade`` (thresholds applied to live judges, a later judge called only when the earlier ones are
unsure)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from math import inf
from numbers import Real
from pathlib import Path
from typing import Any, Union

from debate_eval._run import Run
from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import DEFAULT_RESAMPLES, SEED, check_resamples
from debate_eval.tasks.analysis.calibration import DEFAULT_FOLDS, Calibration, calibrate_records, check_apply_run
from debate_eval.tasks.analysis.cascade import DEFAULT_MIN_DECIDED, CascadeReport
from debate_eval.tasks.analysis.label_choice import DEFAULT_LABELS, STRATIFIED
from debate_eval.tasks.analysis.labels import Label, labelled_run_rows, scale_of_run
from debate_eval.tasks.analysis.labels import read_labels as _read_labels
from debate_eval.tasks.analysis.records import load_results, results_path
from debate_eval.tasks.analysis.report.label_page import LabelPage
from debate_eval.tasks.analysis.report.label_page import label_page as _label_page
from debate_eval.tasks.analysis.select import DEFAULT_DEV_SHARE, DEFAULT_LEVEL, Selection

RunLike = Union[Run, str, "os.PathLike[str]"]
PathLike = Union[str, "os.PathLike[str]"]


def _path(run: RunLike) -> Path:
    return Path(run.path) if isinstance(run, Run) else Path(run)


def run_paths(runs: Any, command: str) -> list[Any]:
    """``runs`` as a list of run paths (a ``Run`` by its path); one path alone, not in a list, is a ``UserError``
    (its characters would be read as run directories)."""
    if isinstance(runs, str | os.PathLike | Run):
        raise UserError(f"{command} takes a list of runs, not one run ({runs!s}): {command}([run_a, run_b, ...])")
    return [run.path if isinstance(run, Run) else run for run in runs]


def label_page(
    run: RunLike, out: PathLike = "label.html", *, n: int = DEFAULT_LABELS, choose: str = STRATIFIED, seed: int = 0
) -> LabelPage:
    """Write the label page of ``n`` items of ``run`` (``debate-eval label RUN --n N --choose HOW``): a
    self-contained HTML file where a person rates each item and downloads ``labels.jsonl``. ``choose``:
    ``stratified`` (default), ``lowest-confidence`` or ``random``. Returns the page: its ``path`` and the
    ``item_ids`` on it, in order."""
    return _label_page(_path(run), out, n=n, how=choose, seed=seed)


def read_labels(path: PathLike, run: RunLike | None = None) -> list[Label]:
    """The labels of a ``labels.jsonl`` file, every line checked (against ``run``'s items and scale when given):
    a bad line is a one-line ``UserError`` naming the file, the line (counted from 1) and the field."""
    if run is None:
        return _read_labels(path)
    records = load_results([results_path(_path(run))])
    return _read_labels(path, records, _scale(_path(run), records))


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
    transfer check by system and the calibrated means of the unlabelled items (or of ``apply_to``'s, a run of the
    same judge model, method, aspect and scale: else a ``UserError``)."""
    check_resamples(bootstrap, "bootstrap")
    path = _path(run)
    records = load_results([results_path(path)])
    if labels is not None:
        records = labelled_run_rows(records, labels, path)
    other = load_results([results_path(_path(apply_to))]) if apply_to is not None else None
    scale = _scale(path, records)
    if apply_to is not None:
        aspects = {str(row.aspect) for row in records}
        check_apply_run(path, _path(apply_to), next(iter(aspects)) if len(aspects) == 1 else None, "apply_to")
    return calibrate_records(records, apply_to=other, folds=folds, bootstrap=bootstrap, seed=seed, scale=scale)


def _scale(path: Path, records: Sequence[Any]) -> Any:
    """The scale of the run at ``path`` when its records are of one aspect (None otherwise)."""
    aspects = {str(row.aspect) for row in records}
    return scale_of_run(path, next(iter(aspects))) if len(aspects) == 1 else None


def _labels(labels: Any, first_run: Any) -> Mapping[str, Any] | None:
    from debate_eval.tasks.analysis.labelled import labels_of_file

    if labels is None or isinstance(labels, Mapping):
        return labels
    return labels_of_file(labels, first_run)


def select(
    runs: Sequence[str | os.PathLike[str]] = (),
    *,
    labels: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    dev: float = DEFAULT_DEV_SHARE,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    candidates: Sequence[str | os.PathLike[str] | Mapping[str, Any]] | None = None,
    out: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Selection:
    """``debate-eval select`` as a function: among ``runs`` (candidate run directories of the same items, the
    simplest first), the best on a ``dev`` share of the labelled items, chosen only when it beats the simplest
    on the held-out rest with a paired test at ``level``; otherwise the simplest.

    With ``candidates`` (configurations, the simplest first: mappings of ``run`` options such as
    ``{"method": "debate", "max_rounds": 2}``, ``"KEY=VALUE,..."`` specs or TOML files) each candidate is run
    first, on the labelled items only, into ``out/NAME`` (resumable): ``dataset=``, ``aspect=`` and every other
    ``evaluate`` keyword (``provider``, ``model``, ...), or a ``config`` file, are the options they share."""
    from debate_eval.tasks.analysis.select import select_judge

    if candidates is not None:
        from debate_eval._evaluate import make_request
        from debate_eval._select_run import select_by_running

        if runs:
            raise UserError("select takes finished runs or candidates to run, not both")
        if out is None:
            raise UserError("select with candidates needs out=, the folder of their run directories")
        base, _ = make_request(None, options, config)
        return select_by_running(candidates, out=out, base=base, labels=labels, dev=dev, seed=seed, level=level)[0]
    if options or out is not None or config is not None:
        unexpected = sorted(options) + [n for n, v in (("out", out), ("config", config)) if v is not None]
        raise UserError(f"select: {unexpected[0]} is for candidates to run (candidates=[...])")
    runs = run_paths(runs, "select")
    given = _labels(labels, runs[0]) if runs else None
    return select_judge(runs, labels=given, dev_share=dev, seed=seed, level=level)


def cascade(
    runs: Sequence[str | os.PathLike[str]],
    *,
    alpha: float,
    delta: float = 0.1,
    labels: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    calibration: float = 0.5,
    seed: int = 0,
    tolerance: float | None = None,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> CascadeReport:
    """``debate-eval cascade`` as a function: the thresholds of the cascade of ``runs`` (run directories of
    the same items, cheapest first) chosen on a ``calibration`` share of the labelled items so that the
    agreement on the decided items is ≥ ``alpha`` with probability ≥ 1 - ``delta``, and its figures on the
    held-out rest. ``labels``: a labels file, or a mapping of item id to rating or verdict (default: the runs'
    own human labels)."""
    from debate_eval.tasks.analysis.cascade import cascade_runs
    from debate_eval.tasks.analysis.labelled import load_judge

    runs = run_paths(runs, "cascade")
    judges = [load_judge(path) for path in runs]
    given = _labels(labels, runs[0]) if runs else None
    return cascade_runs(
        judges,
        alpha=alpha,
        delta=delta,
        labels=given,  # type: ignore[arg-type]
        calibration_share=calibration,
        seed=seed,
        tolerance=tolerance,
        min_decided=min_decided,
    )


@dataclass(frozen=True)
class Escalated:
    """What a ``Cascade`` returned for one item: the deciding ``judgment`` (None when every judge was unsure:
    the item is left for a person), which judge decided (its index, or None), and every judgment made."""

    judgment: Any
    decided_by: int | None
    judgments: tuple[Any, ...]

    @property
    def abstained(self) -> bool:
        """True when no judge was sure enough: the item is for a person."""
        return self.decided_by is None


class Cascade:
    """Judges tried in order (cheapest first): judge k's judgment stands when its ``confidence`` is at least
    ``thresholds[k]``; otherwise the next judge is called; when none is sure, the item is left for a person.
    The thresholds come from ``cascade(...)`` on labelled runs (``Cascade.from_report``) or are given.
    ``judges`` are ``Judge`` objects (or anything with their ``score`` and ``compare``)."""

    def __init__(self, judges: Sequence[Any], thresholds: Sequence[float]) -> None:
        if isinstance(judges, str) or not isinstance(judges, Sequence) or not isinstance(thresholds, Sequence):
            raise TypeError("a Cascade takes a list of judges and a list of thresholds, the cheapest judge first")
        if len(judges) != len(thresholds) or not judges:
            raise ValueError("a Cascade needs one threshold per judge, and at least one judge")
        for value in thresholds:
            if isinstance(value, bool) or not isinstance(value, Real) or not (0 <= value <= 1 or value == inf):
                raise ValueError(f"a threshold is a confidence in [0, 1] (or math.inf: never decides), not {value!r}")
        self.judges = tuple(judges)
        self.thresholds = tuple(float(t) for t in thresholds)

    @classmethod
    def from_report(cls, judges: Sequence[Any], report: CascadeReport) -> Cascade:
        """A cascade of ``judges`` with the thresholds ``report`` chose (a judge that decides nothing there gets
        an infinite threshold: it is never trusted)."""
        return cls(judges, [t.value for t in report.thresholds])

    def score(self, output: str, **inputs: Any) -> Escalated:
        """Judge one output (the keywords of ``Judge.score``), escalating while the judges are unsure."""
        return self._escalate(lambda judge: judge.score(output, **inputs))

    def compare(self, output_a: str, output_b: str, **inputs: Any) -> Escalated:
        """Judge one pair (the keywords of ``Judge.compare``), escalating while the judges are unsure."""
        return self._escalate(lambda judge: judge.compare(output_a, output_b, **inputs))

    def _escalate(self, call: Callable[[Any], Any]) -> Escalated:
        made = []
        for index, (judge, threshold) in enumerate(zip(self.judges, self.thresholds, strict=True)):
            judgment = call(judge)
            made.append(judgment)
            confidence = getattr(judgment, "confidence", None)
            if getattr(judgment, "ok", True) and confidence is not None and confidence >= threshold:
                return Escalated(judgment, index, tuple(made))
        return Escalated(None, None, tuple(made))
