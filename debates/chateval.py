"""ChatEval as an AutoGen team: a panel of referees with different role personas discuss, then score.

ChatEval (Chan et al. 2023, "ChatEval: Towards Better LLM-based Evaluators through Multi-Agent Debate",
Section 2 and Appendix B, Algorithms 1-3) gives N referee agents the same evaluation prompt, each with its
own role description (Appendix A: General Public, Critic, News Author, Psychologist, Scientist), lets them
talk for T turns, and extracts the answer from their final messages: for direct scoring, the average score.

Communication strategies (how each referee's chat history grows):

``one-by-one`` (Algorithm 1)
    In every turn the referees speak in a fixed order; each one sees the task and everything said before
    it, the earlier speakers of the same turn included. AutoGen's ``RoundRobinGroupChat`` with
    ``max_turns = N * T`` is exactly this.
``simultaneous`` (simultaneous-talk, Algorithm 2)
    In every turn all referees answer from the same history, concurrently: no referee sees another's answer
    of the current turn. When the turn is over, every answer is added to every other referee's history
    (a referee's own answer is already in its history). ``ChatEvalPanel`` below: its manager selects all
    referees at once, and AutoGen's containers buffer the others' answers only after the own request is done.
``simultaneous-summarizer`` (simultaneous-talk-with-summarizer, Algorithm 3)
    As ``simultaneous``, but after each turn a summarizer agent condenses the turn's answers, and the
    referees receive the summary instead of the raw answers. The summarizer sees only the referees'
    answers (and its own earlier summaries). No summary is written after the last turn: no one would read it.

The prompt is the rendered task prompt (``EvaluationTask.prompt``) followed by ChatEval's instructions,
adapted to single-answer scoring in this project's words (``PANEL_INSTRUCTIONS``); each referee's system
message is its persona plus its name on the panel. The other agents' messages reach a referee's model
prefixed with their author's name (``[Critic]: ...``), since the model API carries no speaker names.

Final score: the mean of the referees' final scores, each parsed from the referee's *last* message with
``score_text``; a referee whose last message has no score on the scale is excluded; with no score at all
the outcome has no score (parse status ``no_score``).

Model settings: referees and summarizer use the Scorer's settings. A client override (``ClientPool``
``overrides``) for ``referee`` or ``summarizer`` wins; otherwise the Scorer's (shared) client is used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import ChatAgent, TaskResult
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_agentchat.teams import BaseGroupChat, RoundRobinGroupChat
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import ChatCompletionClient, LLMMessage, UserMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord, ObservedClient
from debate_eval.agents.personas import Persona, get_persona
from debate_eval.agents.roles import USER, role_of
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.group_chat import Accepts, RoutedGroupChat, SingleTaskManager
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.transcript import build_transcript

ONE_BY_ONE = "one-by-one"
SIMULTANEOUS = "simultaneous"
SIMULTANEOUS_SUMMARIZER = "simultaneous-summarizer"
STRATEGIES = (ONE_BY_ONE, SIMULTANEOUS, SIMULTANEOUS_SUMMARIZER)
DEFAULT_ROLES = ("general-public", "critic", "news-author")
DEFAULT_TURNS = 2

REFEREE = "referee"  # the role of every referee (transcripts, accounting)
SUMMARIZER_ROLE = "summarizer"
SUMMARIZER = "Summarizer"  # the summarizer agent's name
DECIDED_BY = "referees"  # Outcome.decided_by: the score is the referees' mean, not one agent's answer

PANEL_INSTRUCTIONS = (
    "You are a referee on a panel of {count} scoring this text together. Discuss it with the other "
    "referees: weigh what they say, question it where you disagree, and think critically for yourself "
    "before you settle on a judgment. Keep what you say short and clear. End every message with your "
    'score on its own line, as "Score: X", where X is a number from {low:g} to {high:g}.'
)
NAME_LINE = (
    "On this panel your name is {name}. The other referees' messages are shown with their names in "
    "brackets, like [{name}]."
)
SUMMARIZER_SYSTEM_MESSAGE = (
    "You keep the record of a panel of referees who are scoring a text. You receive what the referees "
    "said in the latest turn of their discussion, each message headed by its author's name in brackets. "
    "Summarise it briefly and neutrally: for each referee, by name, the main arguments and the score given. "
    "Do not judge the text yourself and do not give a score of your own."
)


@dataclass(frozen=True)
class ChatEvalConfig:
    """How a ChatEval panel is staffed and run."""

    referees: tuple[Persona, ...] = field(default_factory=lambda: tuple(get_persona(r, REFEREE) for r in DEFAULT_ROLES))
    turns: int = DEFAULT_TURNS
    strategy: str = ONE_BY_ONE

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown ChatEval strategy {self.strategy!r}; strategies are: {', '.join(STRATEGIES)}")
        if not self.referees:
            raise ValueError("ChatEval needs at least one referee")
        if self.turns < 1:
            raise ValueError("ChatEval needs at least one discussion turn")

    @property
    def uses_summarizer(self) -> bool:
        """True for simultaneous-talk-with-summarizer."""
        return self.strategy == SIMULTANEOUS_SUMMARIZER

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (persona and instruction texts included) for config.json."""
        return {
            "strategy": self.strategy,
            "turns": self.turns,
            "referees": [p.to_dict() for p in self.referees],
            "instructions": PANEL_INSTRUCTIONS,
            "name_line": NAME_LINE,
            "summarizer": SUMMARIZER_SYSTEM_MESSAGE if self.uses_summarizer else None,
        }


def referee_names(referees: Sequence[Persona]) -> list[str]:
    """Agent names for the referees: ``general-public`` -> ``General_Public``; unique, valid identifiers."""
    taken = {USER.lower(), SUMMARIZER.lower()}
    names: list[str] = []
    for persona in referees:
        words = [w for w in re.split(r"[^0-9A-Za-z]+", persona.name) if w]
        base = "_".join(w[:1].upper() + w[1:] for w in words) or "Referee"
        if base[0].isdigit():
            base = f"Referee_{base}"
        name, k = base, 2
        while name.lower() in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name.lower())
        names.append(name)
    return names


def referee_system_message(persona: Persona, name: str) -> str:
    """A referee's system message: its persona, then its name on the panel."""
    return f"{persona.text}\n\n{NAME_LINE.format(name=name)}"


def panel_prompt(task: EvaluationTask, count: int) -> str:
    """The message every referee starts from: the task prompt and the panel instructions."""
    instructions = PANEL_INSTRUCTIONS.format(count=count, low=task.scale.low, high=task.scale.high)
    return f"{task.prompt}\n\n{instructions}"


class AttributedContext(UnboundedChatCompletionContext):
    """A model context that heads every other agent's message with its author: ``[Critic]: ...``.

    AutoGen turns other agents' messages into ``UserMessage``s whose ``source`` the OpenAI request drops;
    ChatEval's chat history names the speakers, so the name goes into the text.
    """

    component_provider_override = "debate_eval.debates.chateval.AttributedContext"

    async def add_message(self, message: LLMMessage) -> None:
        """Add ``message``, attributed when another agent wrote it."""
        if isinstance(message, UserMessage) and message.source != USER and isinstance(message.content, str):
            message = UserMessage(content=f"[{message.source}]: {message.content}", source=message.source)
        await super().add_message(message)


# ------------------------------------------------------------------------------------- simultaneous talk


class ChatEvalPanelManager(SingleTaskManager):
    """Selects the speakers of each turn from a fixed schedule; several speakers of a turn run concurrently."""

    def __init__(self, *args: Any, schedule: list[list[str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._schedule = schedule

    async def select_speaker(self, thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[str] | str:
        """The speakers of the current turn (all referees, or the summarizer)."""
        if self._current_turn >= len(self._schedule):
            raise RuntimeError("no next speaker: the panel should have ended")
        return list(self._schedule[self._current_turn])


def panel_schedule(referees: Sequence[str], turns: int, summarizer: str | None) -> list[list[str]]:
    """The speaker groups, in order: all referees each turn, the summarizer between turns."""
    schedule: list[list[str]] = []
    for turn in range(turns):
        if summarizer is not None and turn > 0:
            schedule.append([summarizer])
        schedule.append(list(referees))
    return schedule


class ChatEvalPanel(RoutedGroupChat):
    """Simultaneous talk (optionally with a summarizer) as an AutoGen group chat.

    Every turn the manager selects all referees at once (AutoGen runs them concurrently); a referee's
    container processes requests and incoming answers one at a time, in order, so the answers of the turn
    arrive in its buffer after its own request is done and are seen in the next turn. With a summarizer,
    referees buffer only the task and the summaries, and the summarizer only the referees' answers.
    """

    def __init__(self, referees: list[ChatAgent], turns: int, summarizer: ChatAgent | None = None) -> None:
        self._referee_names = [agent.name for agent in referees]
        self._summarizer_name = summarizer.name if summarizer is not None else None
        self._schedule = panel_schedule(self._referee_names, turns, self._summarizer_name)
        participants: list[ChatAgent] = [*referees, *([summarizer] if summarizer is not None else [])]
        super().__init__(
            name="ChatEvalPanel",
            description="ChatEval: referees with different roles discuss and score a text.",
            participants=list(participants),
            group_chat_manager_name="ChatEvalPanelManager",
            group_chat_manager_class=ChatEvalPanelManager,
            termination_condition=None,
            max_turns=len(self._schedule),
        )

    @property
    def schedule(self) -> list[list[str]]:
        """The speaker groups of the whole discussion, in order."""
        return [list(group) for group in self._schedule]

    def accepts(self, agent_name: str) -> Accepts:
        """What ``agent_name`` may see."""
        if self._summarizer_name is None:
            return lambda message: True
        if agent_name == self._summarizer_name:
            referees = set(self._referee_names)
            return lambda message: message.source in referees
        allowed = {USER, self._summarizer_name}
        return lambda message: message.source in allowed

    def buffer_order(self) -> Sequence[str]:
        """Between two requests a buffer holds at most one message per author (one turn): sorted by author,
        every agent gets the same history on every run (and the response cache the same requests),
        whatever order the concurrent answers arrived in."""
        return [USER, *self._referee_names, *([self._summarizer_name] if self._summarizer_name else [])]

    def manager_kwargs(self) -> Mapping[str, Any]:
        """The manager follows the schedule."""
        return {"schedule": self.schedule}


# --------------------------------------------------------------------------------------------- the run


def _client(pool: ClientPool, role: str, label: str, calls: list[CallRecord]) -> ObservedClient:
    """A recorded client for ``role`` with the Scorer's settings (an override for ``role`` wins)."""
    inner: ChatCompletionClient = pool.overrides.get(role) or pool.shared("scorer")
    return ObservedClient(inner, label, calls)


def _in_turn_order(
    messages: Sequence[BaseChatMessage], schedule: list[list[str]], first_referee: str
) -> list[tuple[BaseChatMessage, int]]:
    """The answers after the task, each group in schedule order, with its discussion turn (1-based).

    A turn starts with each group that holds the first referee (a summary belongs to the turn before it).
    """
    ordered: list[tuple[BaseChatMessage, int]] = []
    rest = list(messages)
    turn = 0
    for group in schedule:
        chunk, rest = rest[: len(group)], rest[len(group) :]
        if sorted(m.source for m in chunk) != sorted(group):
            raise RuntimeError(f"the panel's messages do not follow its schedule: expected {group}")
        if first_referee in group:
            turn += 1
        ordered += [(m, turn) for m in sorted(chunk, key=lambda m: group.index(m.source))]
    if rest:
        raise RuntimeError("the panel produced more messages than its schedule")
    return ordered


def average_final_scores(finals: dict[str, ParsedScore]) -> tuple[float | None, ParsedScore, list[str]]:
    """The mean of the referees' final parsed scores, its parse record, and the referees excluded."""
    values = {name: p.value for name, p in finals.items() if p.ok and p.value is not None}
    excluded = [name for name in finals if name not in values]
    if not values:
        reason = "no referee's last message had a score on the scale"
        return None, ParsedScore(None, "no_score", "none", reason), excluded
    mean = sum(values.values()) / len(values)
    listed = ", ".join(f"{name} {value:g}" for name, value in values.items())
    reason = f"mean of the referees' final scores: {listed}"
    if excluded:
        reason += f" (excluded, no score: {', '.join(excluded)})"
    return mean, ParsedScore(mean, "parsed", "referee_mean", reason), excluded


async def run_chateval(task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
    """Run the ChatEval discussion for ``task`` and average the referees' final scores."""
    calls: list[CallRecord] = []
    material = task.material()
    names = referee_names(config.referees)
    persona_of = dict(zip(names, config.referees, strict=True))
    referees: list[ChatAgent] = [
        AssistantAgent(
            name=name,
            model_client=_client(pool, REFEREE, role_of(name), calls),
            system_message=referee_system_message(persona, name),
            description=persona.description or f"ChatEval referee ({persona.name}).",
            model_context=AttributedContext(),
        )
        for name, persona in persona_of.items()
    ]
    opening = TextMessage(source=USER, content=panel_prompt(task, len(referees)))

    if config.strategy == ONE_BY_ONE:
        schedule = [[name] for _ in range(config.turns) for name in names]
        team: BaseGroupChat = RoundRobinGroupChat(referees, max_turns=len(schedule))
    else:
        summarizer = None
        if config.uses_summarizer:
            summarizer = AssistantAgent(
                name=SUMMARIZER,
                model_client=_client(pool, SUMMARIZER_ROLE, role_of(SUMMARIZER), calls),
                system_message=SUMMARIZER_SYSTEM_MESSAGE,
                description="Summarises each turn of the referees' discussion.",
                model_context=AttributedContext(),
            )
        panel = ChatEvalPanel(referees, config.turns, summarizer)
        schedule = panel.schedule
        team = panel
    result: TaskResult = await team.run(task=opening)
    chat = [m for m in result.messages if isinstance(m, BaseChatMessage)]
    if not chat or chat[0].source != USER:
        raise RuntimeError(f"the panel did not start from the task: {result.stop_reason}")
    ordered = _in_turn_order(chat[1:], schedule, names[0])
    messages: list[BaseChatMessage] = [chat[0], *(m for m, _ in ordered)]

    def parse(message: BaseChatMessage) -> ParsedScore | None:
        return score_text(message.to_text(), task, material) if message.source in persona_of else None

    transcript = build_transcript(messages, calls, parse)
    labels = {role_of(name): REFEREE for name in names} | {role_of(SUMMARIZER): SUMMARIZER_ROLE}
    for call in calls:  # the calls were recorded per agent, so that each message gets its own call's flags
        call.role = labels.get(call.role, call.role)
    turns = [None, *(turn for _, turn in ordered)]
    for entry, turn in zip(transcript, turns, strict=True):
        entry["turn"] = turn
        if entry["agent"] in persona_of:
            entry["role"] = REFEREE
            entry["persona"] = persona_of[entry["agent"]].name
        elif entry["agent"] == SUMMARIZER:
            entry["role"] = SUMMARIZER_ROLE

    last = {message.source: message for message in messages if message.source in persona_of}
    finals = {name: score_text(last[name].to_text(), task, material) for name in names}
    score, parsed, excluded = average_final_scores(finals)
    details: dict[str, Any] = {
        "strategy": config.strategy,
        "turns": config.turns,
        "roles": [p.name for p in config.referees],
        "referees": {name: persona.name for name, persona in persona_of.items()},
        "final_scores": {name: p.value for name, p in finals.items()},
        "final_parse_status": {name: p.status for name, p in finals.items()},
        "excluded": excluded,
    }
    return Outcome(
        score=score,
        parse=parsed,
        decided_by=DECIDED_BY,
        stop_reason="turns_done",
        transcript=transcript,
        calls=calls,
        rounds=config.turns,
        details=details,
    )
