"""ChatEval as its paper describes it (``--fidelity paper``): Algorithms 1-3 of Chan et al. (2023).

Each referee is an ``AssistantAgent`` whose system message is its role description (Appendix A) and its name
on the panel; all start from the task prompt P and the panel instructions (``PANEL_INSTRUCTIONS``).

``one-by-one`` (Algorithm 1): AutoGen's ``RoundRobinGroupChat`` with ``max_turns = N * T``; each referee sees
everything said before it. ``simultaneous`` (Algorithm 2): ``ChatEvalPanel``; no referee sees another's answer
of the current turn, and after the turn all answers join every history in the referees' order.
``simultaneous-summarizer`` (Algorithm 3): after each turn but the last a summarizer condenses the turn's
answers; the referees' histories get the summary only.

A referee whose final answer has no score of its own is asked again (``REASK``, at most ``REASK_LIMIT``
times). Scores are read from a referee's own verdict line (``referee_scores.referee_score``).
"""

from __future__ import annotations

from collections.abc import Callable

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_core.model_context import ChatCompletionContext

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.personas import Persona
from debate_eval.agents.roles import USER, role_of
from debate_eval.debates.chateval.config import (
    ONE_BY_ONE,
    REASK_LIMIT,
    REFEREE,
    SUMMARIZER,
    SUMMARIZER_ROLE,
    ChatEvalConfig,
    referee_names,
)
from debate_eval.debates.chateval.panel import (
    AlgorithmContext,
    AttributedContext,
    _client,
    _in_turn_order,
    run_panel,
)
from debate_eval.debates.chateval.prompts import NAME_LINE, PANEL_INSTRUCTIONS, REASK, SUMMARIZER_SYSTEM_MESSAGE
from debate_eval.debates.chateval.referee_scores import PAPER_LABEL, referee_score
from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.kit.reask import Reask, ask_again, in_context, latest


def referee_system_message(persona: Persona, name: str) -> str:
    """A referee's system message: its persona, then its name on the panel."""
    return f"{persona.text}\n\n{NAME_LINE.format(name=name)}"


async def run_paper_panel(
    task: EvaluationTask,
    config: ChatEvalConfig,
    pool: ClientPool,
    calls: list[CallRecord],
    *,
    opening: str | None = None,
    summarizer_message: str = SUMMARIZER_SYSTEM_MESSAGE,
    answered: Callable[[str, list[str]], bool] | None = None,
    reask: str | None = None,
    reask_limit: int = REASK_LIMIT,
) -> list[tuple[BaseChatMessage, int | None]]:
    """Run the discussion (and the re-asks); every chat message with its discussion turn (None: the task).

    The pairwise form (``debates.chateval.pairwise``) runs the same panel with its own texts: ``opening``
    (default P and ``PANEL_INSTRUCTIONS``), the summarizer's ``summarizer_message``, ``answered(text,
    other referees)`` (default: the referee's own score parses), the ``reask`` text and ``reask_limit``."""
    material = task.material()
    names = referee_names(config.referees)
    persona_of = dict(zip(names, config.referees, strict=True))

    def context(name: str) -> ChatCompletionContext:
        if config.strategy == ONE_BY_ONE:
            return AttributedContext()
        return AlgorithmContext(names, name, keep_own=not config.uses_summarizer)

    referees: dict[str, AssistantAgent] = {
        name: AssistantAgent(
            name=name,
            model_client=_client(pool, REFEREE, role_of(name), calls),
            system_message=referee_system_message(persona, name),
            description=persona.description or f"ChatEval referee ({persona.name}).",
            model_context=context(name),
        )
        for name, persona in persona_of.items()
    }
    if not opening:  # what every referee starts from: the task prompt and the panel instructions
        instructions = PANEL_INSTRUCTIONS.format(count=len(referees), low=task.scale.low, high=task.scale.high)
        opening = f"{task.prompt}\n\n{instructions}"
    first = TextMessage(source=USER, content=opening)
    summarizer = None
    if config.uses_summarizer:
        summarizer = AssistantAgent(
            name=SUMMARIZER,
            model_client=_client(pool, SUMMARIZER_ROLE, role_of(SUMMARIZER), calls),
            system_message=summarizer_message,
            description="Summarises each turn of the referees' discussion.",
            model_context=AttributedContext(),
        )
    chat, schedule = await run_panel(list(referees.values()), config, first, summarizer)
    ordered: list[tuple[BaseChatMessage, int | None]] = [(chat[0], None)]
    ordered += _in_turn_order(chat[1:], schedule, names[0])

    question = reask or REASK.format(low=task.scale.low, high=task.scale.high)
    # whether an answer holds what was asked for: by default the referee's own score on the paper's verdict line
    check = answered or (lambda text, others: referee_score(text, task, material, label=PAPER_LABEL, others=others).ok)
    for name in names:  # a referee whose final answer has no score is asked again, a bounded number of times
        last = next(m for m, _ in reversed(ordered) if m.source == name)
        others = [n for n in names if n != name]
        request = Reask(
            lambda _: question,
            lambda text, others=others: check(text, others),
            to=name,
            limit=reask_limit,
            done=bool,
            settle=latest,
        )
        final = await ask_again(request.read(last.to_text()), in_context(referees[name]), request)
        ordered += [(message, config.turns) for message in final.messages]
    return ordered
