"""The judge card of docs/judge-card.md: ``python scripts/audit_demo.py OUT [--docs N] [--screenshot PNG]``.

A thin entry point over ``debate_eval.tasks.cli.audit_demo`` (two ``debate-eval audit`` commands with scripted
judges whose faults are planted; their numbers are no model's).
"""

from __future__ import annotations

import sys

from report_demo import screenshot  # beside this script, with the Chromium driver

from debate_eval.tasks.cli.audit_demo import main

if __name__ == "__main__":
    sys.exit(main(screenshot=screenshot))
