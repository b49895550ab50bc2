"""Shared helpers for the methods' pairwise tests (``tests/debates/<method>/test_pairwise.py``): a pairwise task,
a pool of scripted (replay) clients, the flow of an outcome's transcript, and its record re-read by rescore."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest
from autogen_core.models import ChatCompletionClient
from autogen_ext.models.replay import ReplayChatCompletionClient

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.debates.base import get_method
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.pairwise.prompts import render_task
from debate_eval.debates.scoring.scores import ScoreRange
from tests.support.records import stored

INPUTS = {
    "question": "How many legs does a spider have?",
    "input": "",
    "output_a": "A spider has eight legs, in four pairs.",
    "output_b": "Spiders have six legs like other insects.",
}


def pairwise_task(inputs: Mapping[str, str] = INPUTS, item_id: str = "q1") -> EvaluationTask:
    """A pairwise task as the engine builds it (P rendered from the inputs)."""
    return EvaluationTask(
        item_id=item_id,
        prompt=render_task(inputs),
        aspect="preference",
        scale=ScoreRange(0, 1),
        untrusted=tuple(inputs.values()),
        task_type="pairwise",
        inputs=dict(inputs),
    )


def scripted_pool(**answers: list[str]) -> tuple[ClientPool, dict[str, ReplayChatCompletionClient]]:
    """A pool whose roles answer from the given lists, in order."""
    clients = {role: ReplayChatCompletionClient(list(texts)) for role, texts in answers.items()}
    for client in clients.values():
        client.set_cached_bool_value(False)
    overrides: dict[str, ChatCompletionClient] = dict(clients)
    return ClientPool(resolve_model_config(environ={}), overrides=overrides), clients


def requests_of(client: ReplayChatCompletionClient) -> int:
    """How many completions the replay client served."""
    return client._current_index


def flow(outcome: Outcome) -> list[tuple[Any, ...]]:
    """Each transcript entry's agent, addressee and relay."""
    return [(e["agent"], e["to"], e["relay"]) for e in outcome.transcript]


def record_of(outcome: Outcome) -> dict[str, Any]:
    """A pairwise outcome as the stored record's fields that its rescore reads."""
    return {
        "task_type": "pairwise",
        "decided_by": outcome.decided_by,
        "verdict": outcome.verdict,
        "verdicts": outcome.verdicts,
        "consistent": outcome.consistent,
        "transcript": outcome.transcript,
    }


def rescore_pairwise(method: str, record: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """``rescore`` of a pairwise record, through its method."""
    return get_method(method).rescore_pairwise(stored(record), texts).to_json()


def check_same(method: str, outcome: Outcome, texts: list[str]) -> dict[str, Any]:
    """The rescore of ``outcome``'s record gives the run's verdicts; the rescored record."""
    new = rescore_pairwise(method, record_of(outcome), texts)
    assert (new["verdict"], new.get("verdicts"), new.get("consistent")) == (
        outcome.verdict,
        outcome.verdicts,
        outcome.consistent,
    )
    assert new["parse_status"] == outcome.verdict_parse.status
    return new


@pytest.fixture
def pw() -> SimpleNamespace:
    """The helpers above, for the test modules (which cannot import this file under importlib mode)."""
    return SimpleNamespace(
        inputs=INPUTS,
        task=pairwise_task,
        pool=scripted_pool,
        served=requests_of,
        flow=flow,
        record_of=record_of,
        rescore_pairwise=rescore_pairwise,
        check_same=check_same,
    )
