"""How ``example-single`` judges: one AutoGen ``AssistantAgent`` asked once, its answer scored by debate-eval's
score parser. Loaded by ``ExampleSingle.judge`` when the method first judges (it imports AutoGen)."""

from __future__ import annotations

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseChatMessage, TextMessage

from debate_eval.debates import CallRecord, ClientPool, EvaluationTask, Outcome, build_transcript, score_text

JUDGE = "Scorer"  # the agent's name; its role, "scorer", picks its model settings and its transcript entries


async def ask_once(task: EvaluationTask, system_prompt: str, pool: ClientPool) -> Outcome:
    """Ask once; parse the answer (copies of the judged texts are blanked out before parsing)."""
    calls: list[CallRecord] = []
    material = task.material()
    client = pool.for_debate("scorer", calls)  # records each call (usage, cache hits) into ``calls``
    agent = AssistantAgent(JUDGE, model_client=client, system_message=system_prompt)
    result = await agent.run(task=TextMessage(source="user", content=task.prompt))
    messages = [m for m in result.messages if isinstance(m, BaseChatMessage)]
    parsed = score_text(messages[-1].to_text(), task, material)
    transcript = build_transcript(
        messages, calls, lambda m: score_text(m.to_text(), task, material) if m.source == JUDGE else None
    )
    return Outcome(
        score=parsed.value if parsed.ok else None,
        parse=parsed,
        decided_by=JUDGE,
        stop_reason="single_answer",
        transcript=transcript,
        calls=calls,
    )
