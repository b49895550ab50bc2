"""A new method with a single and a pairwise form, written as a method author would: one folder (a package in
a temporary directory) that imports only the method kit, and one registration line (its entry point). It runs
offline on the scripted provider, which answers its own agent with the replies its folder registers."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from debate_eval.debates import base
from debate_eval.tasks.cli.main import main

SCRIPTED = """
from debate_eval.debates import PAIRWISE_PROMPTS, ScriptedReplies, ScriptedRole

SYSTEM = "You are Tiny, a judge of few words."
REPLIES = ScriptedReplies(
    "tiny",
    roles=(ScriptedRole("tiny", system_starts=(SYSTEM,)),),
    replies={"tiny": "Tiny finds it weak.\\nScore: 2"},
    pairwise_replies={"tiny": "Tiny prefers the second response.\\n[[B]]"},
)
SCRIPTED_REPLIES = (PAIRWISE_PROMPTS, REPLIES)
"""

METHOD = """
from dataclasses import dataclass

from debate_eval.debates import (
    NO_SCORE, Method, Outcome, judge_material, option, planted, register_method, score_text, verdict_text,
)
from tiny_method.scripted import SCRIPTED_REPLIES, SYSTEM


@dataclass(frozen=True)
class TinyOptions:
    tiny_note: str = option("", help="tiny: a note kept in the config")


async def ask(task, pool):
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import BaseChatMessage, TextMessage

    from debate_eval.debates import build_transcript

    calls = []
    agent = AssistantAgent("Tiny", model_client=pool.for_debate("scorer", calls), system_message=SYSTEM)
    result = await agent.run(task=TextMessage(source="user", content=task.prompt))
    messages = [m for m in result.messages if isinstance(m, BaseChatMessage)]
    return messages[-1].to_text(), build_transcript(messages, calls, lambda m: None), calls


@register_method
class Tiny(Method[dict]):
    name = "tiny"
    description = "A tiny judge: one call, its own system message"
    Options = TinyOptions
    scripted_replies = SCRIPTED_REPLIES

    def build_config(self, options, ctx):
        return {"note": options.tiny_note}

    async def judge(self, task, config, pool):
        text, transcript, calls = await ask(task, pool)
        parsed = score_text(text, task, task.material())
        return Outcome(parsed.value, parsed, "Tiny", "single_answer", transcript, calls)

    async def judge_pair(self, task, config, pool):
        text, transcript, calls = await ask(task, pool)
        verdict = verdict_text(text, judge_material(task.untrusted, task.prompt), planted(task))
        return Outcome(
            None, NO_SCORE, "Tiny", "single_answer", transcript, calls, verdict=verdict.value, verdict_parse=verdict
        )
"""

PAIRS = """id,prompt,answer_1,answer_2,winner
a,What is the capital of France?,Paris.,Lyon.,A
b,How many legs has a spider?,Six.,Eight.,B
"""


@pytest.fixture
def tiny_method(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The method's folder on the path and its one registration line (an entry point); the registry is a
    private copy, so the method is gone after the test."""
    folder = tmp_path / "src" / "tiny_method"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "scripted.py").write_text(SCRIPTED, encoding="utf-8")
    (folder / "method.py").write_text(METHOD, encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder.parent))
    base.all_methods()
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(base, "_PLUGINS_TRIED", set())
    monkeypatch.setattr(base, "_SOURCES", {})
    entry = metadata.EntryPoint(name="tiny", value="tiny_method.method", group=base.ENTRY_POINT_GROUP)
    monkeypatch.setattr(base, "_entry_points", lambda: [entry])
    yield
    for name in [m for m in sys.modules if m.startswith("tiny_method")]:
        del sys.modules[name]


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_new_method_runs_offline_in_both_forms(isolated_env: Path, tiny_method: None) -> None:
    common = ["--method", "tiny", "--provider", "scripted", "--no-progress"]
    single = ["run", *common, "--dataset", "summeval", "--aspect", "coherence", "--limit", "2"]
    assert main([*single, "--out", str(isolated_env / "single")]) == 0
    scored = records(isolated_env / "single")
    # the method's own reply (2), not the scripted server's Scorer reply (3)
    assert [r["score"] for r in scored] == [2.0, 2.0]
    assert {e["agent"] for r in scored for e in r["transcript"]} == {"user", "Tiny"}

    (isolated_env / "pairs.csv").write_text(PAIRS, encoding="utf-8")
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    pairwise = ["run", *common, "--dataset", str(isolated_env / "pairs.csv"), "--aspect", "preference"]
    pairwise += ["--fields", fields, "--labels", "first=A,second=B,tie=T", "--out", str(isolated_env / "pairs")]
    assert main(pairwise) == 0
    # its pairwise reply ([[B]]), not the Scorer's ([[A]])
    assert [r["verdict"] for r in records(isolated_env / "pairs")] == ["second", "second"]
