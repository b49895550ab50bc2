"""The report: one self-contained HTML page for one or several runs (``debate-eval report``).

Modules: ``gather`` (read run directories), ``numbers`` (what is counted and correlated), ``plots`` (inline
SVG), ``sections`` (server-rendered HTML), ``page`` (assembly, embedded data, safety), ``assets/`` (CSS, JS,
the page template), ``demo`` (scripted runs to look at).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import CI_METHODS, DEFAULT_CI_METHOD
from debate_eval.tasks.analysis.report.gather import Run, attach_inputs, label_items, load_runs
from debate_eval.tasks.analysis.report.page import (
    MARK,
    SAMPLE_ITEMS,
    SIDECAR_SUFFIX,
    holds_mark,
    render,
    render_page,
    write_page,
)
from debate_eval.tasks.engine.rundir import refuse_foreign_file

__all__ = ["Run", "load_runs", "render", "render_page", "write_report"]


def write_report(
    names: Sequence[str | Path],
    out: str | Path,
    title: str | None = None,
    data_dir: str | Path | None = None,
    with_texts: bool = True,
    ci_method: str = DEFAULT_CI_METHOD,
    labels: str | Path | None = None,
) -> Path:
    """Read the runs, render the page and write it to ``out`` (its folder is created); returns the path.

    With ``with_texts``, records that do not hold the judged texts get them from the dataset (``data_dir``,
    else the usual places); a dataset that cannot be loaded is named in a note on the page. A run of more than
    ``SAMPLE_ITEMS`` items gets a page with a sample of them (its plots and figures use every item) and the full
    table in ``OUT.items.json.gz`` beside it, which the page loads when the reader picks it. ``ci_method``
    (``percentile`` or ``bca``) is the bootstrap interval method of the meta-evaluation tables, as
    ``meta-eval --ci-method``; the page names it. An audit folder (``debate-eval audit --out DIR``, with its
    ``card.json``) gives its judge card page, whose intervals are the audit's own (``audit --ci-method``).
    ``labels`` (a ``labels.jsonl`` of one run, as ``debate-eval label`` downloads it) are the human ratings of
    that run's items, in place of the dataset's: the agreement figures, the scatter and the reliability
    diagram read them.
    """
    if ci_method not in CI_METHODS:
        raise UserError(f"ci_method: choose one of {', '.join(CI_METHODS)} (not {ci_method!r})")
    target = Path(out)
    refuse_foreign_file(target, "a report page written by debate-eval report", holds_mark(MARK))
    if len(names) == 1 and (Path(names[0]) / "card.json").is_file():  # an audit folder: its judge card page
        from debate_eval.tasks.analysis.audit.card import read_card
        from debate_eval.tasks.analysis.report.audit_section import render_audit

        html = render_audit(read_card(Path(names[0]) / "card.json"), Path(names[0]), with_texts=with_texts)
        return write_page(target, html)
    runs = load_runs(names)
    if labels is not None:
        if len(runs) != 1:
            raise UserError("--labels reads the labels of one run; give one RUN")
        label_items(runs[0], labels)
    notes = attach_inputs(runs, data_dir) if with_texts else []
    sidecar_path = target.with_name(target.name + SIDECAR_SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = sidecar_path.with_name(sidecar_path.name + ".tmp")
    try:
        html, wrote = render_page(runs, title, notes, ci_method=ci_method, sample=SAMPLE_ITEMS, sidecar=partial)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if wrote:  # a run larger than a page holds: every item beside it, in place before the page
        partial.replace(sidecar_path)
    else:
        sidecar_path.unlink(missing_ok=True)  # an earlier, larger report's
    return write_page(target, html)
