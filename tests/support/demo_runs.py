"""Scripted runs for the report's tests and its demo (``python scripts/demos/report_demo.py OUT [--screenshot PNG]``
writes them, their report and its screenshots).

Small runs against the scripted server with ``varied_reply`` (``varied_replies.py`` beside this module): scores
that differ, Scorers that move, Critics that sometimes agree, so the report has something to show. They are
never model results. The runs go through ``debate-eval run`` (the CLI's ``main``).
"""

from __future__ import annotations

from pathlib import Path

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from support.varied_replies import varied_reply

METHODS = ("debate", "geval", "chateval")  # the demo's choice of runs to show, not a branch on a method


def _scripted_runs(out: Path, name: str, what: list[str], methods: tuple[str, ...]) -> list[Path]:
    """``debate-eval run`` per method with the options ``what`` into ``out/NAME_METHOD``, against one scripted
    server; a failed run stops the demo with one line."""
    from debate_eval.tasks.cli.main import main

    runs = []
    with ScriptedOpenAIServer(reply=varied_reply) as server:
        for method in methods:
            run = out / f"{name}_{method}"
            args = ["run", *what, "--method", method, "--base-url", server.base_url, "--model", "scripted"]
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
