"""The garbage collector set for a run's debates and given back after them (tasks/engine/heap.py)."""

from __future__ import annotations

import asyncio
import gc
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, default_reply
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.debates.debate.method import debate_config
from debate_eval.tasks.data.templates import resolve_template
from debate_eval.tasks.engine.heap import YOUNG_THRESHOLD, collector_for_run
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.runner import run

# the collector's own functions, for the fixture below: a test may replace gc.freeze/gc.unfreeze with
# monkeypatch, whose undo may come after this module's fixture (the suite's autouse fixtures use monkeypatch)
UNFREEZE = gc.unfreeze


@pytest.fixture(autouse=True)
def restore_collector() -> Iterator[None]:
    """Each test leaves the collector as it found it."""
    thresholds, enabled, frozen = gc.get_threshold(), gc.isenabled(), gc.get_freeze_count()
    yield
    gc.set_threshold(*thresholds)
    if enabled:
        gc.enable()
    else:
        gc.disable()
    if gc.get_freeze_count() and not frozen:
        UNFREEZE()


def test_objects_of_before_the_run_are_frozen_and_the_young_collected_less_often() -> None:
    gc.set_threshold(700, 10, 10)
    before = object()
    with collector_for_run() as changed:
        assert changed
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        gc.collect()
        assert before is not None
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_the_settings_come_back_after_an_error() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(ValueError), collector_for_run():
        raise ValueError("a debate failed")
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)


def test_a_heap_frozen_by_the_process_stays_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The block neither freezes nor unfreezes; the count itself may fall as frozen objects die by reference
    counting (another thread's, too), so the calls are what is checked, not the count."""
    gc.freeze()
    calls: list[str] = []
    # undone at the end of the block, before the fixture that unfreezes the heap again runs (a fixture set
    # up before this file's would otherwise see the stand-ins and leave the heap frozen for the next tests)
    with monkeypatch.context() as patch:
        patch.setattr(gc, "freeze", lambda: calls.append("freeze"))
        patch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
        with collector_for_run() as changed:
            assert changed
    assert calls == []
    assert gc.get_freeze_count() > 0


def test_a_higher_threshold_is_kept_and_a_disabled_collector_left_alone() -> None:
    gc.set_threshold(50_000, 10, 10)
    with collector_for_run():
        assert gc.get_threshold()[0] == 50_000
    gc.disable()
    with collector_for_run() as changed:
        assert not changed and gc.get_freeze_count() == 0 and not gc.isenabled()


def test_a_runs_debates_see_the_collector_set_and_the_run_gives_it_back(isolated_env: Path) -> None:
    """Read while the scripted endpoint (a thread of this process) answers the run's calls."""
    seen: list[tuple[int, int]] = []

    def reply(request: Mapping[str, Any]) -> str:
        seen.append((gc.get_freeze_count(), gc.get_threshold()[0]))
        return default_reply(request)

    gc.set_threshold(700, 10, 10)
    with ScriptedOpenAIServer(reply=reply) as server:
        models = resolve_model_config(ModelOverrides(base_url=server.base_url, model="scripted"), environ={})
        config = RunConfig(
            dataset="summeval",
            aspect="coherence",
            protocol="debate",
            template=resolve_template("summeval", "coherence"),
            models=models,
            method_config=debate_config("devils-advocate", False, "summarization", max_rounds=1),
        )
        options = RunOptions(
            out_dir=isolated_env / "run", data_dir=None, limit=2, use_cache=False, progress=False, preflight=False
        )
        summary = asyncio.run(run(config, options, stream=io.StringIO()))
    assert summary.now.finished == 2 and len(seen) == 2 * 3
    assert all(frozen > 0 and young == YOUNG_THRESHOLD for frozen, young in seen)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)
