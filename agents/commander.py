"""The Commander: leads the debate and carries what was said between Scorer and Critic.

It relays with the fixed texts of the authors' released code (``gunny97/DEBATE``, ``debate.py``): to the
Critic "Check if the score is justified. Task description and the following source texts are as follows:
... And the responses from Scoring assistant as follows: ..."; to the Scorer "Here is the feedback to your
response. Please calculate the score again!" + feedback. What differs by ``--fidelity``:

- ``paper`` (Algorithm 1): the Critic gets the Scorer's *latest* answer; the fixed relays make no model
  call. (The paper's Commander "formulates prompts" but its messages are not given; ``--commander-llm``
  lets an ``AssistantAgent`` with the paper's Commander system message (Appendix G.1) write each relay in
  its own words, the forwarded material attached verbatim below them.)
- ``authors-code``: the Critic always gets the Scorer's *first* answer, and the Commander makes model calls
  of its own: pyautogen's ``initiate_chat`` with ``max_consecutive_auto_reply=1`` made their Commander
  answer the Scorer's first score once (and later ones as the reply counters allow; see
  ``debates/debate/authors.py``). Such a reply (relay ``autoreply``) is written from the Commander's own
  conversation with the Scorer (its messages as ``assistant``, the Scorer's as ``user``) under its system
  message, and lands in the Scorer's history. The Tie-breaker gets one text: their prompt layout with the
  debate log, which repeats the first answer beside each feedback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autogen_agentchat.agents import AssistantAgent, BaseChatAgent
from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_core import CancellationToken
from autogen_core.models import AssistantMessage, ChatCompletionClient, LLMMessage, SystemMessage, UserMessage

from debate_eval.agents.roles import COMMANDER, CRITIC, RELAY_TARGET, SCORER, TIEBREAKER, USER, Relay

TO_CRITIC = (
    "Check if the score is justified. Task description and the following source texts are as follows: "
    "\n{task}\n And the responses from Scoring assistant as follows: \n{answer}"
)
TO_SCORER = "Here is the feedback to your response. Please calculate the score again!\n{feedback}"
TO_TIEBREAKER = "{task}\n\nDebate Log of Other Agents:\n\n{log}\n\nDecide the final score. {answer_hint}"
REASK = "Please state only your final score as a single number. {answer_hint}"

LLM_INSTRUCTIONS = {
    Relay.TASK: (
        "Write your message to the Scorer: ask for a score and its rationale, thinking step by step. "
        "Keep it short: the task will be attached to your message verbatim."
    ),
    Relay.REVIEW: (
        "Write your message to the Critic: ask it to check, step by step, whether the Scorer's latest score "
        "is justified. Keep it short: the task and the Scorer's answer will be attached verbatim."
    ),
    Relay.FEEDBACK: (
        "Write your message to the Scorer: pass on the Critic's feedback and ask for the score again, "
        "thinking step by step. Keep it short: the Critic's feedback will be attached verbatim."
    ),
    Relay.TIEBREAK: (
        "Write your message to the Tie-breaker: the Scorer and the Critic did not agree; ask it to read "
        "the debate and decide the final score. Keep it short: the task and the debate log will be "
        "attached verbatim."
    ),
}


class CommanderAgent(BaseChatAgent):
    """Relays between the agents; ``next_relay`` (the protocol) says what to send next.

    Every message it sends carries ``metadata["to"]`` (the addressee) and ``metadata["relay"]`` (the kind).
    """

    def __init__(
        self,
        task: str,
        next_relay: Callable[[], Relay | None],
        *,
        system_message: str = "",
        answer_hint: str = "",
        llm: AssistantAgent | None = None,
        forward_first: bool = False,
        reply_client: ChatCompletionClient | None = None,
        tiebreak_text: Callable[[str], str] | None = None,
    ) -> None:
        """``forward_first``, ``reply_client`` (the ``autoreply`` relay's model) and ``tiebreak_text`` (the
        whole Tie-breaker text from the authors' debate log) are set by ``--fidelity authors-code``."""
        super().__init__(COMMANDER, "Leads the debate and relays between the Scorer and the Critic.")
        self.system_message = system_message  # the Commander's system message (LLM relays, auto-replies)
        self.task = task
        self.answer_hint = answer_hint
        self._next_relay = next_relay
        self._llm = llm
        self._forward_first = forward_first
        self._reply_client = reply_client
        self._tiebreak_text = tiebreak_text
        self._log: list[tuple[str, str]] = []  # (speaker, content) of every Scorer/Critic/Tie-breaker turn
        self._unseen: list[BaseChatMessage] = []  # messages the LLM has not been shown yet
        self._with_scorer: list[LLMMessage] = []  # the Commander's conversation with the Scorer (auto-replies)

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        """The Commander only sends text messages."""
        return (TextMessage,)

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken) -> Response:
        """Remember the new messages, then send the relay the protocol asks for."""
        for message in messages:
            if message.source in (SCORER, CRITIC, TIEBREAKER):
                self._log.append((message.source, message.to_text()))
            if message.source == SCORER:
                self._with_scorer.append(UserMessage(content=message.to_text(), source=SCORER))
            elif message.source == COMMANDER and message.metadata.get("to") == SCORER:  # the opening task
                self._with_scorer.append(AssistantMessage(content=message.to_text(), source=COMMANDER))
            if message.source != COMMANDER:
                self._unseen.append(message)
        relay = self._next_relay()
        if relay is None or relay not in RELAY_TARGET:
            raise RuntimeError(f"the Commander was asked to speak with nothing to relay ({relay})")
        usage = None
        if relay is Relay.AUTOREPLY:
            content, usage = await self._auto_reply(cancellation_token)
        elif self._llm is not None:
            words, usage = await self._llm_words(relay, cancellation_token)
            content = f"{words}\n\n{self.material(relay)}"
        else:
            content = self.fixed_text(relay)
        if RELAY_TARGET[relay] == SCORER:
            self._with_scorer.append(AssistantMessage(content=content, source=COMMANDER))
        message = TextMessage(
            source=COMMANDER,
            content=content,
            models_usage=usage,
            metadata={"to": RELAY_TARGET[relay], "relay": relay.value},
        )
        return Response(chat_message=message)

    async def _auto_reply(self, cancellation_token: CancellationToken) -> tuple[str, object]:
        """The authors' Commander answering the Scorer: one model call on its conversation with the Scorer."""
        if self._reply_client is None:
            raise RuntimeError("the Commander has no model for an auto-reply (only --fidelity authors-code has)")
        request: list[LLMMessage] = [SystemMessage(content=self.system_message), *self._with_scorer]
        result = await self._reply_client.create(request, cancellation_token=cancellation_token)
        content = result.content if isinstance(result.content, str) else str(result.content)
        return content, result.usage

    def fixed_text(self, relay: Relay) -> str:
        """The authors' fixed relay text for ``relay``."""
        if relay is Relay.TASK:
            return self.task
        if relay is Relay.REVIEW:
            answer = self._said(SCORER)[0 if self._forward_first else -1]
            return TO_CRITIC.format(task=self.task, answer=answer)
        if relay is Relay.FEEDBACK:
            return TO_SCORER.format(feedback=self._said(CRITIC)[-1])
        if relay is Relay.TIEBREAK:
            if self._tiebreak_text is not None:
                return self._tiebreak_text(self.authors_debate_log())
            return TO_TIEBREAKER.format(task=self.task, log=self._format_log(), answer_hint=self.answer_hint)
        return REASK.format(answer_hint=self.answer_hint)

    def authors_debate_log(self) -> str:
        """The authors' debate log: for every Critic turn, the Scorer's *first* answer and that feedback."""
        first = self._said(SCORER)[0]
        return "".join(f"(Scorer)\n{first}\n(Critic)\n{content}\n" for source, content in self._log if source == CRITIC)

    def material(self, relay: Relay) -> str:
        """What is forwarded verbatim under an LLM Commander's own words."""
        if relay is Relay.TASK:
            return self.task
        if relay is Relay.REVIEW:
            return (
                f"Task description and source texts:\n{self.task}\n\nThe Scorer's response:\n{self._said(SCORER)[-1]}"
            )
        if relay is Relay.FEEDBACK:
            return f"The Critic's feedback:\n{self._said(CRITIC)[-1]}"
        return f"{self.task}\n\nDebate Log of Other Agents:\n\n{self._format_log()}\n\n{self.answer_hint}".rstrip()

    async def _llm_words(self, relay: Relay, cancellation_token: CancellationToken) -> tuple[str, object]:
        assert self._llm is not None
        shown = [*self._unseen, TextMessage(source=USER, content=LLM_INSTRUCTIONS[relay])]
        self._unseen = []
        response = await self._llm.on_messages(shown, cancellation_token)
        return response.chat_message.to_text().strip(), response.chat_message.models_usage

    def _said(self, speaker: str) -> list[str]:
        """What ``speaker`` said, turn by turn (a ``RuntimeError`` when nothing yet)."""
        said = [content for source, content in self._log if source == speaker]
        if not said:
            raise RuntimeError(f"the Commander has nothing from the {speaker} to relay")
        return said

    def _format_log(self) -> str:
        return "\n".join(f"({source})\n{content}\n" for source, content in self._log).rstrip()

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        """Forget the debate."""
        self._log.clear()
        self._unseen.clear()
        self._with_scorer.clear()
        if self._llm is not None:
            await self._llm.on_reset(cancellation_token)
