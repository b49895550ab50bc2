"""Meta-evaluation from Python: ``meta_evaluate(runs...) -> MetaEval`` (the numbers of ``debate-eval
meta-eval RUN... --json``), ``compare(run_a, run_b)`` (``meta-eval RUN_A RUN_B --compare``) and
``assert_judge_meets(run, spearman=0.4)`` (``meta-eval RUN --fail-under spearman=0.4``, for a pytest suite)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from debate_eval._run import Run, load_run
from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, DEFAULT_RESAMPLES
from debate_eval.tasks.analysis.compare import DEFAULT_MISSING
from debate_eval.tasks.analysis.formatting import format_json
from debate_eval.tasks.analysis.gates import DEFAULT_MIN_COVERAGE
from debate_eval.tasks.analysis.gates import assert_judge_meets as _assert_judge_meets
from debate_eval.tasks.analysis.labels import labelled_run_rows
from debate_eval.tasks.analysis.meta_eval import AspectReport, Comparison, PairwiseReport, compare_runs
from debate_eval.tasks.analysis.meta_eval import meta_evaluate as evaluate_records
from debate_eval.tasks.analysis.records import load_results, require_human_ratings, results_path
from debate_eval.tasks.engine.config_checksum import leaf_values

if TYPE_CHECKING:
    import pandas

RunLike = Union[Run, str, "os.PathLike[str]"]


@dataclass(frozen=True)
class MetaEval:
    """Agreement with the human ratings per dataset and aspect: ``reports[dataset][aspect]`` is an
    ``AspectReport`` (Spearman, Kendall, Pearson per group and over all items, counts, ``ci95``) or a
    ``PairwiseReport`` (accuracy, kappa, macro-F1, consistency, agreement). ``to_dict()`` is exactly the JSON of
    ``debate-eval meta-eval --json``."""

    reports: Mapping[str, Mapping[str, AspectReport | PairwiseReport]]
    bootstrap: int = DEFAULT_RESAMPLES
    _json: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """``{dataset: {aspect: {statistic: value, ..., "ci95": ...}}}``, as ``meta-eval --json`` prints it."""
        return json.loads(json.dumps(self._json))

    def to_pandas(self) -> pandas.DataFrame:
        """One row per dataset and aspect, one column per value of ``to_dict()``; nested values are flattened
        with ``_`` (``ci95_spearman``: the interval of Spearman's rho; a reason without an interval stays one
        text column)."""
        import pandas

        rows = []
        for dataset, aspects in self.to_dict().items():
            for aspect, values in aspects.items():
                rows.append({"dataset": dataset, "aspect": aspect, **leaf_values(values, "_")})
        return pandas.DataFrame(rows)

    def __getitem__(self, dataset: str) -> Mapping[str, AspectReport | PairwiseReport]:
        return self.reports[dataset]

    def __iter__(self) -> Iterator[str]:
        return iter(self.reports)


def _path_of(run: RunLike) -> str:
    return str(run.path if isinstance(run, Run) else load_run(run).path)


def meta_evaluate(
    *runs: RunLike,
    bootstrap: int | None = None,
    ci_method: str = DEFAULT_CI_METHOD,
    labels: str | os.PathLike[str] | None = None,
) -> MetaEval:
    """Meta-evaluate one or several runs (``Run`` objects or run directories) together, as ``debate-eval
    meta-eval RUN... --json``: later runs win for a repeated item; ``bootstrap`` resamples for ``ci95``
    (default as the command, 0 for none); ``ci_method`` ``percentile`` or ``bca`` (``--ci-method``);
    ``labels`` a ``labels.jsonl`` of one run's items whose labels are the human ratings (``--labels``)."""
    if not runs:
        raise TypeError("meta_evaluate needs at least one run")
    resamples = DEFAULT_RESAMPLES if bootstrap is None else int(bootstrap)
    paths = [_path_of(run) for run in runs]
    records = load_results([results_path(path) for path in paths])
    if labels is not None:
        if len(paths) != 1:
            raise UserError("labels: give the labels of one run")
        records = labelled_run_rows(records, labels, paths[0])
    require_human_ratings(records, ", ".join(paths))
    report = evaluate_records(records, bootstrap=resamples, ci_method=ci_method)
    return MetaEval(reports=report, bootstrap=resamples, _json=json.loads(format_json(report)))


def compare(
    run_a: RunLike,
    run_b: RunLike,
    *,
    bootstrap: int = DEFAULT_RESAMPLES,
    missing: str = DEFAULT_MISSING,
    ci_method: str = DEFAULT_CI_METHOD,
) -> list[Comparison]:
    """Run B against run A on the items (or groups) both scored, per dataset and aspect: paired bootstrap
    differences of each statistic, with the counts shared, used and dropped (as ``debate-eval meta-eval RUN_A
    RUN_B --compare``; ``Comparison.to_dict()`` is its JSON). Each difference has the bootstrap's ``p_value``,
    at group level the paired t-test's ``p_ttest`` (then the reported p), and ``p_holm``: the reported p
    Holm-adjusted over every p of the returned comparisons (``family_size``). ``missing`` (pairwise): a missing
    verdict counts as ``wrong`` (the default) or is ``drop``ped from both runs; ``ci_method``: ``percentile``
    or ``bca``."""
    run_paths = [_path_of(run_a), _path_of(run_b)]
    records_a, records_b = (load_results([results_path(path)]) for path in run_paths)
    require_human_ratings(records_a, run_paths[0])
    require_human_ratings(records_b, run_paths[1])
    return compare_runs(records_a, records_b, n=bootstrap, missing=missing, ci_method=ci_method)


def assert_judge_meets(
    *runs: RunLike,
    lower_ci: bool = False,
    bootstrap: int = DEFAULT_RESAMPLES,
    ci_method: str = DEFAULT_CI_METHOD,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    **bars: float,
) -> MetaEval:
    """For a judge regression test in your own pytest suite: raise ``AssertionError`` (one line naming every
    part below its bar or short of coverage) when a figure of ``runs``, or with ``lower_ci`` the lower end of
    its 95 % interval, is below its bar (``spearman=0.40, kappa=0.3``; as ``meta-eval RUN --fail-under``/
    ``--fail-under-ci``), or when it stands on too little: fewer than ``min_coverage`` of the rated items with
    a score/verdict or of the groups with a defined correlation, or fewer than 10 units (``--min-coverage``;
    0 turns the requirement off). A bar that is not a finite number in the statistic's range is a
    ``UserError``. Returns the meta-evaluation, for further checks of your own."""
    paths = [_path_of(run) for run in runs]
    resamples = bootstrap if lower_ci else 0
    report = _assert_judge_meets(
        *paths, lower_ci=lower_ci, bootstrap=bootstrap, ci_method=ci_method, min_coverage=min_coverage, **bars
    )
    return MetaEval(reports=report, bootstrap=resamples, _json=json.loads(format_json(report)))
