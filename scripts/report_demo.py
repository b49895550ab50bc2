"""Scripted demo runs and their report: ``python scripts/report_demo.py OUT [--docs N] [--screenshot PNG]``.

A thin entry point over ``debate_eval.tasks.cli.report_demo`` (three small SummEval coherence runs, DEBATE,
G-Eval and ChatEval, against the scripted server; their report; screenshots of it, the README's). The scores
are a hash of the request, never model results.
"""

from __future__ import annotations

import sys

from debate_eval.tasks.cli.report_demo import main

if __name__ == "__main__":
    sys.exit(main())
