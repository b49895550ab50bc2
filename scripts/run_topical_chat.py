"""Run DEBATE on one Topical-Chat aspect: ``python scripts/run_topical_chat.py --aspect engagingness [run flags]``.

A thin wrapper over ``debate-eval run --dataset topical_chat`` (see ``debate-eval run --help``), for users who
run per-dataset scripts as the paper's repository did.
"""

from __future__ import annotations

import sys

from debate_eval.tasks.cli.run import main_for_dataset

if __name__ == "__main__":
    sys.exit(main_for_dataset("topical_chat"))
