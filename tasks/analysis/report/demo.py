"""Scripted runs to look at: varied, deterministic replies for the scripted server, so a report of a
scripted run has scores that differ, Scorers that move and Critics that sometimes agree.

This is a test and documentation aid (like ``agents.models.providers.scripted_server``), never a model: the scores
are a hash of the request, unrelated to the text's quality. ``python -m debate_eval.tasks.analysis.report.demo
OUT [--screenshot PNG]`` makes three small SummEval coherence runs (DEBATE, G-Eval, ChatEval) in ``OUT``, their
report, and a screenshot of it (the README's).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.models.providers.scripted_server import (
    DEFAULT_REPLIES,
    ScriptedOpenAIServer,
    role_of_request,
)

METHODS = ("debate", "geval", "chateval")


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def _verdict(a: int, b: int) -> str:
    return "[[A]]" if a > b else "[[B]]" if b > a else "[[C]]"


def varied_reply(request: Mapping[str, Any]) -> str:
    """A reply whose score depends on the judged item and the round (deterministic)."""
    messages = list(request.get("messages") or [])
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    first = users[0] if users else ""
    seed = _hash(first)
    base = 1 + seed % 5
    answers = sum(1 for m in messages if m.get("role") == "assistant")
    role = role_of_request(request)
    if role == "judge":  # Fennec: one criterion's judgment, varying with the item and the criterion
        last = str(messages[-1].get("content", "")) if messages else ""
        mark = _hash(last)
        if "Score A:" in last:
            a, b = 1 + mark % 5, 1 + (mark >> 4) % 5
            return f"Under this criterion the two differ.\nScore A: {a}\nScore B: {b}\nVerdict: {_verdict(a, b)}"
        return f"Under this criterion the text is uneven.\nScore: {1 + mark % 5}"
    if role in ("criteria_writer", "guideline_writer", "corrector"):
        return DEFAULT_REPLIES[role]
    if "[[A]]" in first and role in ("scorer", "evaluator", "referee", "tiebreaker"):
        # A pairwise prompt: a verdict that depends on the item and on the order of the two responses.
        return f"Response {'AB'[seed % 2]} answers more of the question.\n{('[[A]]', '[[B]]', '[[C]]')[seed % 3]}"
    if role == "scorer":
        drift = [0, -1, 1, 0][(seed >> 3) % 4] * answers
        score = min(5, max(1, base + drift))
        return f"Step by step: the sentences connect in places, less so elsewhere.\nScore: {score}"
    if role == "critic":
        if (seed >> 5) % 3 == 0:
            return "The rationale is sound and the score fits the text. NO ISSUE"
        return "The score overlooks abrupt topic shifts; it should be reconsidered."
    if role == "evaluator":
        return str(1 + (seed >> 7) % 5)
    if role == "referee":
        return f"The text mostly holds together.\nScore: {1 + (seed + answers + _hash(str(messages[0])) % 2) % 5}"
    if role == "tiebreaker":
        return f"Having read the debate, the final score is {base}."
    if role == "summarizer":
        return "The referees disagreed on the transitions; their scores were close."
    return "Please think step by step."


def make_runs(out: Path, docs: int = 2, methods: tuple[str, ...] = METHODS) -> list[Path]:
    """Run each method on the first ``docs`` SummEval documents (coherence) against a scripted server with
    ``varied_reply``; returns the run directories. Needs the SummEval data (``DEBATE_EVAL_DATA_DIR``)."""
    from debate_eval.tasks.cli.main import main

    runs = []
    with ScriptedOpenAIServer(reply=varied_reply) as server:
        for method in methods:
            run = out / f"summeval_coherence_{method}"
            args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--docs", str(docs)]
            args += ["--protocol", method, "--base-url", server.base_url, "--model", "scripted"]
            args += ["--out", str(run), "--no-progress", "--no-cache", "--no-preflight"]
            if main(args) != 0:
                raise SystemExit(f"the {method} run failed")
            runs.append(run)
    return runs


def make_pairwise_runs(out: Path, limit: int = 8, methods: tuple[str, ...] = ("geval", "debate")) -> list[Path]:
    """Run each method on the first ``limit`` FairEval questions in both orders (``--swap``) against the
    scripted server; returns the run directories. Needs the FairEval data."""
    from debate_eval.tasks.cli.main import main

    runs = []
    with ScriptedOpenAIServer(reply=varied_reply) as server:
        for method in methods:
            run = out / f"faireval_preference_{method}"
            args = ["run", "--dataset", "faireval", "--aspect", "preference", "--limit", str(limit), "--swap"]
            args += ["--protocol", method, "--base-url", server.base_url, "--model", "scripted"]
            args += ["--out", str(run), "--no-progress", "--no-cache", "--no-preflight"]
            if main(args) != 0:
                raise SystemExit(f"the pairwise {method} run failed")
            runs.append(run)
    return runs


def main(argv: list[str] | None = None) -> int:
    """Make the scripted demo runs and their report."""
    parser = argparse.ArgumentParser(description="Scripted demo runs and their report (not model results).")
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


if __name__ == "__main__":
    sys.exit(main())
