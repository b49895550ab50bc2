"""ChatEval as the authors' released code ran it (``--fidelity authors-code``): the FairEval setting of
``chanchimin/ChatEval`` (agentverse ``llm_eval_multi`` and ``llm_eval_multi_con`` agents, ``LLMEvalParser``,
the ``sequential``/``concurrent`` orders, the ``basic`` updater and the ``summary`` memory manipulator).
This is this project's code; none of theirs is copied. What it reproduces, request by request:

- **No system message.** Each request is ``[user: the filled template, assistant: "Sender: content" for
  every message in the referee's memory (its own included), user: final_prompt]``; the template holds the
  role description and the referee's name, and ``final_prompt`` is empty until the last turn.
- **Score only in the last turn**: the final prompt (with "Remember that you are not required to output
  the same value as other referees !") is set for the last turn only.
- **Memory.** Every non-empty message of a step is added to every referee's memory in the referees' order
  (simultaneous talk included); a step in which nobody said anything adds ``[Silence]`` (sender "").
- **Summarizer** (simultaneous-talk-with-summarizer): before each turn but the first, each referee has its
  whole memory summarised (the summary prompt with the previous summary and every memory line, plus the
  memory as messages), and the summary joins *its own* memory beside the raw history.
- **Retries**: a last-turn answer that fails their parser's check (single score: the last line starts with
  "The score:"; pairwise: the last two lines start with "The score of Assistant 1:" / "... 2:") is asked for
  again with the identical request (a new call: each attempt has its own cache namespace), up to
  ``FAIREVAL_MAX_RETRY`` attempts; after that the referee's message is empty, and their updater puts
  ``[Silence]`` in every memory in its place. The single-score form also requires a score on the scale.
- **Their evaluation**: ``get_evaluation(setting="every_agent")``: the last N entries of the first referee's
  memory (N referees), ``[Silence]`` included; kept in the record's details.
- **Decoding**: their ``OpenAIChatArgs`` (``faireval_decoding``): ``max_tokens=512`` (or the run's lower cap,
  e.g. the embedded model's 256 or ``--max-tokens``), the run's temperature as a float (their pydantic field
  made the configured 0 a 0.0), ``top_p=1``, ``n=1``, ``stop=None``, penalties 0, no seed.

The two forms differ only in what ``FairEvalForm`` holds: the filled template, the final prompt and the
format check (``single_score_form`` here; the pairwise one in ``debates/chateval/pairwise_faireval.py``).

``reproduce_bugs``: their concurrent agent checks the format whenever ``cnt_turn >= max_turns - agents``,
with ``cnt_turn`` counting turns, not messages; with two referees and two turns that is every turn, so a
first-turn answer, asked for no score, is retried until it happens to end with one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from autogen_agentchat.agents import BaseChatAgent
from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_core import CancellationToken
from autogen_core.models import AssistantMessage, ChatCompletionClient, LLMMessage, RequestUsage, UserMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import USER, role_of
from debate_eval.debates.chateval.config import (
    FAIREVAL_MAX_RETRY,
    FAIREVAL_MAX_TOKENS,
    ONE_BY_ONE,
    REFEREE,
    SUMMARIZER,
    SUMMARIZER_ROLE,
    ChatEvalConfig,
    display_name,
    referee_names,
)
from debate_eval.debates.chateval.faireval_scores import their_format_ok
from debate_eval.debates.chateval.panel import _client, run_panel
from debate_eval.debates.chateval.prompts import (
    FAIREVAL_FINAL_PROMPT,
    FAIREVAL_FRAME,
    FAIREVAL_SILENCE,
    FAIREVAL_SUMMARY_PROMPT,
)
from debate_eval.debates.evaluation import EvaluationTask

RETRY_RELAY = "format_retry"  # a rejected attempt, kept in the transcript
SUMMARY_RELAY = "summary"
Key = tuple[int, float]  # (turn, place in the turn): the order of a referee's memory


@dataclass(frozen=True)
class FairEvalForm:
    """What the single-score and pairwise forms of their flow do differently."""

    prompt: Callable[[str, str, str], str]  # (role description, name as shown, final prompt) -> their template
    final_prompt: str  # their final_prompt_to_use
    format_ok: Callable[[str], bool]  # their parser's check of a last-turn answer
    kind: str = "single"


def single_score_form(task: EvaluationTask) -> FairEvalForm:
    """Their flow scoring one text: P where their question and answers stood, one score line."""
    material = task.material()

    def prompt(role_description: str, agent_name: str, final_prompt: str) -> str:
        return FAIREVAL_FRAME.format(
            task=task.prompt, role_description=role_description, agent_name=agent_name, final_prompt=final_prompt
        )

    return FairEvalForm(prompt, FAIREVAL_FINAL_PROMPT, lambda text: their_format_ok(text, task, material))


def faireval_decoding(pool: ClientPool) -> dict[str, Any]:
    """Their ``OpenAIChatArgs`` of the FairEval configuration, besides model and messages: the run's lower
    token cap wins over their 512; the run's temperature as a float (their pydantic model's)."""
    sampling = pool.settings_for("scorer").sampling
    cap = sampling.max_tokens
    return {
        "max_tokens": min(FAIREVAL_MAX_TOKENS, cap) if cap else FAIREVAL_MAX_TOKENS,
        "temperature": float(sampling.temperature),
        "top_p": 1,
        "n": 1,
        "stop": None,
        "presence_penalty": 0,
        "frequency_penalty": 0,
    }


class FairEvalReferee(BaseChatAgent):
    """One referee of the released FairEval setting (see the module docstring)."""

    def __init__(
        self,
        name: str,
        role_description: str,
        clients: Sequence[ChatCompletionClient],
        *,
        form: FairEvalForm,
        config: ChatEvalConfig,
        order: Sequence[str],
        decoding: Mapping[str, Any],
        summary_client: ChatCompletionClient | None = None,
    ) -> None:
        super().__init__(name, f"ChatEval referee {display_name(name)} (authors' FairEval flow).")
        self._decoding = dict(decoding)
        self._clients = list(clients)  # one per attempt: a retry is a new call, never the cache's first answer
        self._summary_client = summary_client
        self._role_description = role_description
        self._form = form
        self._config = config
        self._rank = {n: r for r, n in enumerate(order)}
        self._memory: list[tuple[Key, str, str]] = []  # (key, sender, content)
        self._turn = 0
        self._summary = ""
        self._final_prompt = ""
        self._heard: dict[int, list[str]] = {}  # simultaneous: the turn's contents (for [Silence])
        self._heard_keys: set[Key] = set()  # the other referees' messages remembered so far

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        """Text only."""
        return (TextMessage,)

    @property
    def memory(self) -> list[tuple[str, str]]:
        """(sender, content) of the referee's memory, in order."""
        return [(sender, content) for _, sender, content in sorted(self._memory, key=lambda e: e[0])]

    def _remember(self, key: Key, sender: str, content: str) -> None:
        simultaneous = self._config.strategy != ONE_BY_ONE
        if content:
            self._memory.append((key, sender, content))
        elif not simultaneous:  # one-by-one: a step is one referee; its silence is heard by all
            self._memory.append((key, "", FAIREVAL_SILENCE))
        if simultaneous:
            heard = self._heard.setdefault(key[0], [])
            heard.append(content)
            if len(heard) == len(self._rank) and not any(heard):
                self._memory.append(((key[0], len(self._rank)), "", FAIREVAL_SILENCE))

    def hear(self, messages: Sequence[BaseChatMessage]) -> None:
        """Remember the other referees' accepted messages not remembered yet (their updater adds every step's
        messages to every memory at once; here a referee hears them when it next speaks, or from this call
        after the discussion)."""
        for message in messages:
            if message.source not in self._rank or message.source == self.name:
                continue
            if message.metadata.get("relay") is not None:  # rejected attempts and summaries: never shared
                continue
            key: Key = (int(message.metadata.get("turn", "0")), self._rank[message.source])
            if key not in self._heard_keys:
                self._heard_keys.add(key)
                self._remember(key, display_name(message.source), message.to_text())

    @property
    def evaluation(self) -> list[dict[str, str]]:
        """Their ``get_evaluation(setting="every_agent")`` on this referee's memory: the last N entries."""
        return [{"role": sender, "evaluation": content} for sender, content in self.memory[-len(self._rank) :]]

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken) -> Response:
        """One step: remember the others' messages, (summarise), answer with retries until the format parses."""
        self.hear(messages)
        self._turn += 1
        turn = self._turn
        inner: list[BaseAgentEvent | BaseChatMessage] = []
        if self._summary_client is not None and self._memory:
            inner.append(await self._summarise(turn, cancellation_token))
        last = turn == self._config.turns
        if last:
            self._final_prompt = self._form.final_prompt
        checked = last or (
            self._config.reproduce_bugs
            and self._config.strategy != ONE_BY_ONE
            and turn - 1 >= self._config.turns - len(self._rank)
        )
        request = self._request()
        content = ""
        for attempt in range(1, FAIREVAL_MAX_RETRY + 1):
            result = await self._clients[attempt - 1].create(
                request, extra_create_args=dict(self._decoding), cancellation_token=cancellation_token
            )
            text = result.content if isinstance(result.content, str) else str(result.content)
            accepted = not checked or self._form.format_ok(text)
            metadata = self._meta(turn, attempt) | ({} if accepted else {"relay": RETRY_RELAY})
            message = TextMessage(source=self.name, content=text, models_usage=result.usage, metadata=metadata)
            if accepted:
                content, answer = text, message
                break
            inner.append(message)  # a rejected attempt, kept in the transcript
        else:
            answer = TextMessage(
                source=self.name,
                content="",
                models_usage=RequestUsage(0, 0),
                metadata=self._meta(turn, FAIREVAL_MAX_RETRY),
            )
        self._remember((turn, self._rank[self.name]), display_name(self.name), content)
        return Response(chat_message=answer, inner_messages=inner)

    def _meta(self, turn: int, attempt: int) -> dict[str, str]:
        return {"turn": str(turn), "attempt": str(attempt)}

    def _history(self) -> list[LLMMessage]:
        return [AssistantMessage(content=f"{sender}: {content}", source=self.name) for sender, content in self.memory]

    def _request(self) -> list[LLMMessage]:
        prompt = self._form.prompt(self._role_description, display_name(self.name), self._final_prompt)
        return [
            UserMessage(content=prompt, source=USER),
            *self._history(),
            UserMessage(content=self._final_prompt, source=USER),
        ]

    async def _summarise(self, turn: int, cancellation_token: CancellationToken) -> TextMessage:
        assert self._summary_client is not None
        new_lines = "".join(f"[{sender}] : {content}\n" for sender, content in self.memory)
        prompt = FAIREVAL_SUMMARY_PROMPT.format(summary=self._summary, new_lines=new_lines)
        request = [UserMessage(content=prompt, source=USER), *self._history(), UserMessage(content="", source=USER)]
        result = await self._summary_client.create(request, extra_create_args=dict(self._decoding))
        text = result.content if isinstance(result.content, str) else str(result.content)
        self._summary = text
        self._memory.append(((turn - 1, len(self._rank) + 0.5), SUMMARIZER, text))
        meta = {"to": self.name, "turn": str(turn), "relay": SUMMARY_RELAY}
        return TextMessage(source=SUMMARIZER, content=text, models_usage=result.usage, metadata=meta)

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        """Forget the discussion."""
        self._memory.clear()
        self._heard.clear()
        self._heard_keys.clear()
        self._turn = 0
        self._summary = ""
        self._final_prompt = ""


def _attempt_clients(pool: ClientPool, label: str, calls: list[CallRecord]) -> list[ChatCompletionClient]:
    """A recorded client per attempt. Their code had no response cache, so a retry of the identical request
    was a new API call; here attempts 2 and 3 get cache namespaces of their own (a rerun still replays)."""
    clients: list[ChatCompletionClient] = []
    for attempt in range(1, FAIREVAL_MAX_RETRY + 1):
        variant = "" if attempt == 1 else f"faireval-attempt-{attempt}"
        inner = pool.overrides.get(REFEREE) or pool.shared("scorer", variant)
        clients.append(pool.observe(inner, label, calls, settings_role="scorer", answer="score"))
    return clients


@dataclass
class FairEvalRun:
    """One discussion of their flow: every chat message with its turn, and their evaluation list."""

    ordered: list[tuple[BaseChatMessage, int | None]]
    evaluation: list[dict[str, str]]  # get_evaluation: the last N entries of the first referee's memory


async def run_faireval_panel(
    task: EvaluationTask,
    config: ChatEvalConfig,
    pool: ClientPool,
    calls: list[CallRecord],
    form: FairEvalForm | None = None,
    opening: str | None = None,
) -> FairEvalRun:
    """Run the authors' flow (``form``: the single-score form of ``task`` unless given; ``opening``: the task
    message shown in the transcript, P by default); every chat message (rejected attempts and summaries
    included) with its turn, and their evaluation list."""
    form = form or single_score_form(task)
    names = referee_names(config.referees)
    decoding = faireval_decoding(pool)
    summary_client = None
    if config.uses_summarizer:
        summary_client = _client(pool, SUMMARIZER_ROLE, role_of(SUMMARIZER), calls)
    referees = [
        FairEvalReferee(
            name,
            persona.text,
            _attempt_clients(pool, role_of(name), calls),
            form=form,
            config=config,
            order=names,
            decoding=decoding,
            summary_client=summary_client,
        )
        for name, persona in zip(names, config.referees, strict=True)
    ]
    start = TextMessage(source=USER, content=task.prompt if opening is None else opening)
    chat, _ = await run_panel(referees, config, start)
    rank = {n: r for r, n in enumerate(names)}
    kind = {SUMMARY_RELAY: 0, RETRY_RELAY: 1}

    def order(message: BaseChatMessage) -> tuple[int, int, int, int]:
        owner = message.metadata.get("to", message.source) if message.source == SUMMARIZER else message.source
        return (
            int(message.metadata.get("turn", "0")),
            rank.get(owner, len(rank)),
            kind.get(message.metadata.get("relay", ""), 2),
            int(message.metadata.get("attempt", "0")),
        )

    rest = sorted(chat[1:], key=order)
    referees[0].hear(rest)  # the steps after its last turn, which their updater had added to its memory
    ordered = [(chat[0], None), *((m, int(m.metadata.get("turn", "0"))) for m in rest)]
    return FairEvalRun(ordered=ordered, evaluation=referees[0].evaluation)
