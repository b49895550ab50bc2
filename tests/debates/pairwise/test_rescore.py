"""Pairwise rescore of a ``--swap`` record: both orders re-read, the combination follows an edited answer (each
method's own pairwise rescore is tested in its folder, ``tests/debates/<method>/test_pairwise.py``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from debate_eval.debates.geval.pairwise import run_geval_pairwise
from debate_eval.debates.pairwise.prompts import render_task
from debate_eval.debates.pairwise.swap import evaluate_both_orders, with_swapped


def test_both_orders(pw: SimpleNamespace) -> None:
    pool, _ = pw.pool(scorer=["[[A]]", "[[A]]"])
    task = with_swapped(pw.task(), render_task)
    outcome = asyncio.run(evaluate_both_orders(lambda t, p: run_geval_pairwise(t, 1, p), task, pool))
    record = pw.record_of(outcome)
    pw.check_same("geval", outcome, list(pw.inputs.values()))
    record["transcript"][-1]["content"] = "[[B]]"  # the swapped order now prefers the same response
    new = pw.rescore_pairwise("geval", record, list(pw.inputs.values()))
    assert new["verdict"] == "first" and new["consistent"] is True
