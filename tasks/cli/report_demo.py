"""Scripted demo runs and their report (``python scripts/report_demo.py OUT [--screenshot PNG]``).

Small runs against the scripted server with ``varied_reply`` (``tasks/analysis/report/scripted.py``): scores
that differ, Scorers that move, Critics that sometimes agree, so the report has something to show. They are
never model results. The runs go through ``debate-eval run`` (this module's ``main`` calls the CLI), which is
why the demo sits in the command line's layer and not in the report package.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.analysis.report.scripted import varied_reply

METHODS = ("debate", "geval", "chateval")  # the demo's choice of runs to show, not a branch on a method


def _scripted_runs(out: Path, name: str, what: list[str], methods: tuple[str, ...]) -> list[Path]:
    """``debate-eval run`` per method with the options ``what`` into ``out/NAME_METHOD``, against one scripted
    server; a failed run stops the demo with one line."""
    from debate_eval.tasks.cli.main import main

    runs = []
    with ScriptedOpenAIServer(reply=varied_reply) as server:
        for method in methods:
            run = out / f"{name}_{method}"
            args = ["run", *what, "--protocol", method, "--base-url", server.base_url, "--model", "scripted"]
            args += ["--out", str(run), "--no-progress", "--no-cache", "--no-preflight"]
            if main(args) != 0:
                raise SystemExit(f"the {name} {method} run failed")
            runs.append(run)
    return runs


def make_runs(out: Path, docs: int = 2, methods: tuple[str, ...] = METHODS) -> list[Path]:
    """Run each method on the first ``docs`` SummEval documents (coherence) against a scripted server with
    ``varied_reply``; returns the run directories. Needs the SummEval data (``DEBATE_EVAL_DATA_DIR``)."""
    what = ["--dataset", "summeval", "--aspect", "coherence", "--docs", str(docs)]
    return _scripted_runs(out, "summeval_coherence", what, methods)


def make_pairwise_runs(out: Path, limit: int = 8, methods: tuple[str, ...] = ("geval", "debate")) -> list[Path]:
    """Run each method on the first ``limit`` FairEval questions in both orders (``--swap``) against the
    scripted server; returns the run directories. Needs the FairEval data."""
    what = ["--dataset", "faireval", "--aspect", "preference", "--limit", str(limit), "--swap"]
    return _scripted_runs(out, "faireval_preference", what, methods)


def screenshot(page: Path, png: Path, width: int = 1400, height: int = 1500, open_row: bool = False) -> Path:
    """A PNG of the top of a report (overview and plots) in headless Chromium; with ``open_row``, of the
    first item's transcript instead."""
    from debate_eval.tasks.analysis.report.browser import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        raise SystemExit("no chromium found (apt-get install chromium)")
    with Browser(executable) as browser:
        browser.resize(width, height)
        browser.open(page)
        browser.wait_until("document.documentElement.getAttribute('data-report-ready') === '1'")
        if open_row:  # the DEBATE item with the most rounds
            browser.click("#items-table th[data-col='rounds']")
            browser.click("#items-table tbody tr")
        return browser.screenshot(png)


def main(argv: list[str] | None = None) -> int:
    """Make the scripted demo runs and their report (and, with ``--screenshot``, PNGs of it)."""
    parser = argparse.ArgumentParser(
        prog="report_demo.py", description="Scripted demo runs and their report (not model results)."
    )
    parser.add_argument("out", type=Path, help="folder for the runs and report.html")
    parser.add_argument("--docs", type=int, default=2, help="SummEval documents (16 summaries each)")
    parser.add_argument(
        "--screenshot", type=Path, help="also save PNGs of the report's top and of a transcript (needs chromium)"
    )
    args = parser.parse_args(argv)
    from debate_eval.tasks.analysis.report import write_report

    runs = make_runs(args.out, args.docs)
    target = write_report(runs, args.out / "report.html", title="Report of scripted runs (not model results)")
    print(target)
    if args.screenshot:
        print(screenshot(target, args.screenshot))
        transcript = args.screenshot.with_name(args.screenshot.stem + "_transcript" + args.screenshot.suffix)
        print(screenshot(target, transcript, height=1600, open_row=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
