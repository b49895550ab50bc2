"""The re-ask: an agent whose answer has no score (no verdict, too few criteria) is asked again for it alone.

One rule for every method: while the reading of the agent's latest answer is not done (by default: it has no
parsable score or verdict) and fewer than ``limit`` questions were asked, ask once more; the answer is read
like the first. What differs between methods is a ``Reask``'s parameters, never a code path:

- the wording (``question``, given the reading that had none) and who asks (``source``: the user, or the
  Commander addressing the agent with ``to``);
- who answers and from what (``in_context``: the agent answers from its own context, as a debate's deciding
  agent or a panel's referee does; ``in_conversation``: a new run of the agent's conversation, as a single
  judge is asked);
- how an answer is read (``read``, with ``done`` when the reading has no ``ok``); ``for_score`` and
  ``for_verdict`` read as a run reads a deciding answer: copies of the judged texts blanked out (a score or a
  verdict copied from them is not the agent's), planted verdicts ignored;
- which reading stands after a re-ask (``settle``): by default the re-ask's answer when it has one, else the
  earlier reading (``standing``, the rule ``rescore`` re-reads stored records by); ``latest`` keeps the last
  answer's reading either way.

Every question is a chat message with the relay ``reask`` (and the addressee, when there is one), followed in
the messages by what the agent answered: the transcript records both, and ``rescore`` finds the re-ask there.
``Reasked`` gives the reading that stands, the added messages and how many questions were asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from debate_eval.agents.roles import USER, Relay

if TYPE_CHECKING:  # loaded without AutoGen: rescore's re-reading imports ``RELAY`` only
    from autogen_agentchat.base import ChatAgent
    from autogen_agentchat.messages import BaseChatMessage, TextMessage

    from debate_eval.debates.evaluation import EvaluationTask
    from debate_eval.debates.scoring.scores import ParsedScore
    from debate_eval.debates.scoring.untrusted import UntrustedMaterial
    from debate_eval.debates.scoring.verdicts import ParsedVerdict

RELAY = Relay.REASK.value  # the relay of a re-ask's question in the messages and the transcript

R = TypeVar("R")
Ask = Callable[["TextMessage"], Awaitable[Sequence["BaseChatMessage"]]]  # a question -> the messages it adds


def has_answer(reading: Any) -> bool:
    """The default ``done``: the reading parsed (``reading.ok``)."""
    return bool(reading.ok)


def standing(first: R, retry: Callable[[], R] | None, done: Callable[[R], bool] = has_answer) -> R:
    """The reading that stands after one re-ask (``retry`` reads the re-ask's answer, None when there is
    none): ``first`` when it is done or nothing followed it, else the re-ask's reading when that is done, else
    ``first``. The re-ask's default, and how ``rescore`` re-reads a stored deciding answer."""
    if done(first) or retry is None:
        return first
    second = retry()
    return second if done(second) else first


def latest(before: R, after: R) -> R:
    """A ``settle``: the last answer's reading, with or without a score."""
    return after


@dataclass(frozen=True)
class Reask(Generic[R]):
    """How an agent is asked again: the question's wording and sender, how an answer is read, how often."""

    question: Callable[[R], str]  # the wording, given the reading that had no answer
    read: Callable[[str], R]  # an answer's text -> its reading
    source: str = USER  # who asks (the user, the Commander)
    to: str | None = None  # the addressee named in the question's metadata (None: none named)
    limit: int = 1  # questions at most (0: never asked again)
    done: Callable[[R], bool] = has_answer  # whether a reading needs no re-ask
    settle: Callable[[R, R], R] | None = None  # (reading so far, the re-ask's) -> the one that stands

    @classmethod
    def for_score(
        cls, task: EvaluationTask, material: UntrustedMaterial, question: Callable[[ParsedScore], str], **how: Any
    ) -> Reask[ParsedScore]:
        """A re-ask for a score on ``task``'s scale, read with the judged texts (``material``) blanked out;
        ``how``: the other fields."""
        from debate_eval.debates.evaluation import score_text

        return Reask(question, lambda text: score_text(text, task, material), **how)

    @classmethod
    def for_verdict(
        cls,
        material: UntrustedMaterial,
        markers: Sequence[str],
        question: Callable[[ParsedVerdict], str],
        **how: Any,
    ) -> Reask[ParsedVerdict]:
        """A re-ask for a verdict, read with the judged texts and instructions (``material``) blanked out and
        the verdicts planted in them (``markers``) ignored; ``how``: the other fields."""
        from debate_eval.debates.evaluation import verdict_text

        return Reask(question, lambda text: verdict_text(text, material, markers), **how)

    def message(self, reading: R) -> TextMessage:
        """The question for ``reading``, marked as a re-ask (and its addressee)."""
        from autogen_agentchat.messages import TextMessage

        metadata = {"relay": RELAY} if self.to is None else {"to": self.to, "relay": RELAY}
        return TextMessage(source=self.source, content=self.question(reading), metadata=metadata)

    def then(self, before: R, after: R) -> R:
        """The reading that stands after a re-ask whose answer reads ``after``."""
        if self.settle is not None:
            return self.settle(before, after)
        return standing(before, lambda: after, self.done)


@dataclass(frozen=True)
class Reasked(Generic[R]):
    """What re-asking gave: the reading that stands, the questions and answers added, the questions asked."""

    reading: R
    messages: tuple[BaseChatMessage, ...] = ()
    count: int = 0

    @property
    def reasked(self) -> bool:
        """Whether the agent was asked again."""
        return self.count > 0


async def ask_again(reading: R, ask: Ask, request: Reask[R]) -> Reasked[R]:
    """Ask again (through ``ask``) while ``reading``, the agent's latest answer read, is not done, at most
    ``request.limit`` times; each answer is the last message its question adds."""
    added: list[BaseChatMessage] = []
    count = 0
    while count < request.limit and not request.done(reading):
        new = await ask(request.message(reading))
        count += 1
        added += new
        reading = request.then(reading, request.read(new[-1].to_text()))
    return Reasked(reading, tuple(added), count)


def in_context(agent: ChatAgent) -> Ask:
    """``agent`` answers from its own context (``on_messages``): the messages added are the question and the
    answer."""

    async def ask(question: TextMessage) -> list[BaseChatMessage]:
        from autogen_core import CancellationToken

        answer = await agent.on_messages([question], CancellationToken())
        return [question, answer.chat_message]

    return ask


def in_conversation(agent: ChatAgent) -> Ask:
    """A new run of ``agent``'s conversation (``run``): the messages added are the run's chat messages, the
    question first."""

    async def ask(question: TextMessage) -> list[BaseChatMessage]:
        from autogen_agentchat.messages import BaseChatMessage

        result = await agent.run(task=question)
        return [m for m in result.messages if isinstance(m, BaseChatMessage)]

    return ask
