"""ChatEval's pairwise form: its FairEval setting (Chan et al. 2023, Section 3.4, Appendix A and B).

The same panel as for scores (``debates.chateval``: referees with role personas, ``AttributedContext``,
one-by-one as AutoGen's ``RoundRobinGroupChat``, simultaneous talk with or without a summarizer as
``ChatEvalPanel``), started from P (the question and both responses) with the pairwise referee
instructions (``panel.txt``); the summarizer, when there is one, records verdicts instead of scores
(``summarizer.txt``). The referees' role descriptions are ChatEval's own, which already ask for the better
of two responses.

Verdict: each referee's last message is parsed (``verdict_text``); a referee whose last message has no
verdict is asked once more for it alone (``reask.txt``); the item's verdict is the majority of the referees'
verdicts, a tie when the panel is split (``aggregate.majority_verdict``), no verdict when no referee gave one.
"""

from __future__ import annotations

from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import ChatAgent, TaskResult
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_agentchat.teams import BaseGroupChat, RoundRobinGroupChat
from autogen_core import CancellationToken

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import USER, role_of
from debate_eval.debates.chateval import (
    ONE_BY_ONE,
    REFEREE,
    SUMMARIZER,
    SUMMARIZER_ROLE,
    AttributedContext,
    ChatEvalConfig,
    ChatEvalPanel,
    _client,
    _in_turn_order,
    referee_names,
    referee_system_message,
)
from debate_eval.debates.evaluation import NO_SCORE, EvaluationTask, Outcome, planted, verdict_text
from debate_eval.debates.pairwise.aggregate import majority_verdict
from debate_eval.debates.pairwise.prompts import prompt_text, reask_text
from debate_eval.debates.pairwise.transcripts import pairwise_transcript
from debate_eval.debates.scoring.verdicts import ParsedVerdict

DECIDED_BY = "referees"
REASK_RELAY = "reask"


def pairwise_panel_prompt(task: EvaluationTask, count: int) -> str:
    """The message every referee starts from: P and the pairwise panel instructions."""
    return f"{task.prompt}\n\n{prompt_text('panel.txt').format(count=count)}"


async def run_chateval_pairwise(task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
    """Run the ChatEval discussion on ``task``'s two responses; the verdict is the referees' majority."""
    calls: list[CallRecord] = []
    material = task.material()
    markers = planted(task)
    names = referee_names(config.referees)
    persona_of = dict(zip(names, config.referees, strict=True))
    referees: dict[str, AssistantAgent] = {
        name: AssistantAgent(
            name=name,
            model_client=_client(pool, REFEREE, role_of(name), calls),
            system_message=referee_system_message(persona, name),
            description=persona.description or f"ChatEval referee ({persona.name}).",
            model_context=AttributedContext(),
        )
        for name, persona in persona_of.items()
    }
    opening = TextMessage(source=USER, content=pairwise_panel_prompt(task, len(referees)))
    participants: list[ChatAgent] = list(referees.values())
    if config.strategy == ONE_BY_ONE:
        schedule = [[name] for _ in range(config.turns) for name in names]
        team: BaseGroupChat = RoundRobinGroupChat(participants, max_turns=len(schedule))
    else:
        summarizer = None
        if config.uses_summarizer:
            summarizer = AssistantAgent(
                name=SUMMARIZER,
                model_client=_client(pool, SUMMARIZER_ROLE, role_of(SUMMARIZER), calls),
                system_message=prompt_text("summarizer.txt"),
                description="Summarises each turn of the referees' discussion.",
                model_context=AttributedContext(),
            )
        panel = ChatEvalPanel(participants, config.turns, summarizer)
        schedule = panel.schedule
        team = panel
    result: TaskResult = await team.run(task=opening)
    chat = [m for m in result.messages if isinstance(m, BaseChatMessage)]
    if not chat or chat[0].source != USER:
        raise RuntimeError(f"the panel did not start from the task: {result.stop_reason}")
    ordered = _in_turn_order(chat[1:], schedule, names[0])
    messages: list[BaseChatMessage] = [chat[0], *(m for m, _ in ordered)]
    turns: list[int | None] = [None, *(turn for _, turn in ordered)]

    last = {m.source: m for m in messages if m.source in persona_of}
    finals: dict[str, ParsedVerdict] = {}
    reasked: list[str] = []
    for name in names:
        parsed = verdict_text(last[name].to_text(), material, markers)
        if not parsed.ok:  # ask this referee once more for its verdict alone
            reasked.append(name)
            question = TextMessage(source=USER, content=reask_text(), metadata={"to": name, "relay": REASK_RELAY})
            answer = await referees[name].on_messages([question], CancellationToken())
            messages += [question, answer.chat_message]
            turns += [None, None]
            retry = verdict_text(answer.chat_message.to_text(), material, markers)
            parsed = retry if retry.ok else parsed
        finals[name] = parsed

    transcript = pairwise_transcript(messages, calls, set(persona_of), material, markers)
    labels = {role_of(name): REFEREE for name in names} | {role_of(SUMMARIZER): SUMMARIZER_ROLE}
    for call in calls:
        call.role = labels.get(call.role, call.role)
    for entry, turn in zip(transcript, turns, strict=True):
        entry["turn"] = turn
        if entry["agent"] in persona_of:
            entry["role"] = REFEREE
            entry["persona"] = persona_of[entry["agent"]].name
        elif entry["agent"] == SUMMARIZER:
            entry["role"] = SUMMARIZER_ROLE
    verdict = majority_verdict(finals)
    details: dict[str, Any] = {
        "strategy": config.strategy,
        "turns": config.turns,
        "roles": [p.name for p in config.referees],
        "referees": {name: persona.name for name, persona in persona_of.items()},
        "final_verdicts": {name: p.value for name, p in finals.items()},
        "final_parse_status": {name: p.status for name, p in finals.items()},
        "reasked_referees": reasked,
    }
    return Outcome(
        score=None,
        parse=NO_SCORE,
        decided_by=DECIDED_BY,
        stop_reason="turns_done",
        transcript=transcript,
        calls=calls,
        rounds=config.turns,
        reasked=bool(reasked),
        details=details,
        verdict=verdict.value,
        verdict_parse=verdict,
    )
