"""The report page of an audit folder: the judge card first, then every sub-run as a run of the page (overview,
plots, items and transcripts), so each figure's link can show the items behind it."""

from __future__ import annotations

import contextlib
from pathlib import Path

from debate_eval.tasks.analysis.audit.card import Card
from debate_eval.tasks.analysis.report.audit_section import audit_section, key_resolver
from debate_eval.tasks.analysis.report.gather import Run, attach_inputs, load_run
from debate_eval.tasks.analysis.report.page import render, write_page
from debate_eval.tasks.engine.rundir import RunDir


def audit_runs(card: Card, out: Path) -> tuple[list[Run], dict[tuple[str, str], int]]:
    """The sub-runs of every judge that have results, labelled ``JUDGE · RUN``, and their indexes."""
    runs: list[Run] = []
    index_of: dict[tuple[str, str], int] = {}
    for judge in card.judges:
        for name, folder in judge.runs.items():
            path = out / folder
            if not RunDir(path).results_path.is_file():
                continue
            run = load_run(path)
            run.label = f"{judge.label} · {name}"
            index_of[(judge.label, name)] = len(runs)
            runs.append(run)
    return runs, index_of


def register_derived_sets(card: Card, runs: list[Run], out: Path) -> None:
    """Register the audit's own files again (the user's data file, the injected and paraphrased texts) so the page
    can show each record's judged texts; a file that cannot be read only costs the texts (attach_inputs says so)."""
    from debate_eval.tasks.data.own_file import restore_dataset
    from debate_eval.tasks.engine.injections import CONTROL_ITEMS_FILE, CONTROL_SUFFIX, ITEMS_FILE
    from debate_eval.tasks.engine.paraphrases import SUFFIX
    from debate_eval.tasks.engine.variants import register_variant_file

    for run in runs:
        with contextlib.suppress(Exception):
            restore_dataset(run.config.get("result_config") or {})
    derived = (("injected", ITEMS_FILE), (CONTROL_SUFFIX, CONTROL_ITEMS_FILE), (SUFFIX, "paraphrased_items.jsonl"))
    for suffix, name in derived:
        if (out / name).is_file():
            with contextlib.suppress(Exception):
                register_variant_file(card.dataset, out / name, suffix, f"audit: {suffix} texts")


def render_audit(card: Card, out: Path, with_texts: bool = True) -> str:
    """The page: the card section, then the sub-runs."""
    runs, index_of = audit_runs(card, out)
    if with_texts and runs:
        register_derived_sets(card, runs, out)
    notes = attach_inputs(runs) if with_texts and runs else []
    section = audit_section(card, key_resolver(runs, index_of))
    title = f"Judge card: {card.dataset} / {card.aspect}" + (" (scripted judges, not models)" if card.scripted else "")
    return render(runs, title, notes, lead=section)


def write_audit_report(card: Card, out: Path, target: Path) -> Path:
    """Write the audit's report page to ``target`` (atomically); returns it."""
    return write_page(target, render_audit(card, out))
