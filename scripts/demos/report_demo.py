"""Scripted demo runs and their report: ``python scripts/demos/report_demo.py OUT [--docs N] [--screenshot PNG]``.

Three small SummEval coherence runs (DEBATE, G-Eval and ChatEval) against the scripted server
(``tests/support/demo_runs.py``, the runs the report's tests use), their report, and screenshots of it
(docs/report.md's), taken in headless Chromium with ``tests/support/chromium_driver.py``. The scores are a hash
of the request, never model results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from debate_eval.tasks.analysis.report import write_report

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))  # tests/support: the demo runs
from support.chromium_driver import Browser, find_chromium
from support.demo_runs import make_runs


def screenshot(page: Path, png: Path, width: int = 1400, height: int = 1500, open_row: bool = False) -> Path:
    """A PNG of the top of a report (overview and plots) in headless Chromium; with ``open_row``, of the
    first item's transcript instead."""
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
