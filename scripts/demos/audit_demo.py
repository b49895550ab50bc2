"""The judge card of docs/judge-card.md: ``python scripts/demos/audit_demo.py OUT [--docs N] [--screenshot PNG]``.

Two ``debate-eval audit`` commands into one folder, G-Eval on the first N SummEval documents (coherence) with two
scripted judges whose faults are planted (``agents/models/providers/planted.py``): ``planted-length`` scores the
summary's length, ``planted-copy`` copies a score planted in the summary. The card shows each fault; its numbers
are no model's. With ``--screenshot``, a PNG of the top of the card's page (headless Chromium, through
``report_demo.py`` beside this script).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from report_demo import screenshot  # beside this script, with the Chromium driver

from debate_eval.tasks.cli.main import main as cli

JUDGES = ("planted-length", "planted-copy")


def commands(out: Path, docs: int) -> list[list[str]]:
    """The audit commands the demo runs (as ``debate-eval`` arguments)."""
    return [
        ["audit", "--dataset", "summeval", "--aspect", "coherence", "--docs", str(docs), "--method", "geval",
         "--provider", "scripted", "--model", judge, "--out", str(out)]
        for judge in JUDGES
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the demo audits (and, with ``--screenshot``, take the PNG of the card's page)."""
    parser = argparse.ArgumentParser(prog="audit_demo.py", description="A judge card of scripted judges.")
    parser.add_argument("out", type=Path, help="the audit folder")
    parser.add_argument("--docs", type=int, default=10, help="SummEval documents (16 summaries each)")
    parser.add_argument("--screenshot", type=Path, help="also save a PNG of the card's page (needs chromium)")
    args = parser.parse_args(argv)
    for command in commands(args.out, args.docs):
        print("$ debate-eval " + " ".join(command), flush=True)
        if cli([*command, "--no-progress"]) != 0:
            return 1
    if args.screenshot:
        print(screenshot(args.out / "report.html", args.screenshot, width=1300, height=1700))
    return 0


if __name__ == "__main__":
    sys.exit(main())
