"""The Commander: leads the debate and carries what was said between Scorer and Critic.

By default it relays with fixed texts and makes no model call, as the authors' released code does
(``gunny97/DEBATE``, ``debate.py``): to the Critic "Check if the score is justified. Task description and
the following source texts are as follows: ... And the responses from Scoring assistant as follows: ...";
to the Scorer "Here is the feedback to your response. Please calculate the score again!" + feedback. One
difference, on purpose: the Critic gets the Scorer's *latest* answer (Algorithm 1), where that code always
forwarded the first one.

With an LLM (``--commander-llm``), an ``AssistantAgent`` with the paper's Commander system message
(Appendix G.1) writes each relay in its own words. It sees every message of the debate (the collective
memory); the material it forwards (the task, the Scorer's answer, the Critic's feedback, the debate log)
is attached verbatim below its words, so that no agent loses information to a paraphrase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autogen_agentchat.agents import AssistantAgent, BaseChatAgent
from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_core import CancellationToken

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
    ) -> None:
        super().__init__(COMMANDER, "Leads the debate and relays between the Scorer and the Critic.")
        self.system_message = system_message  # the paper's Commander text; the LLM Commander's system message
        self.task = task
        self.answer_hint = answer_hint
        self._next_relay = next_relay
        self._llm = llm
        self._log: list[tuple[str, str]] = []  # (speaker, content) of every Scorer/Critic/Tie-breaker turn
        self._unseen: list[BaseChatMessage] = []  # messages the LLM has not been shown yet

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        """The Commander only sends text messages."""
        return (TextMessage,)

    @property
    def debate_log(self) -> list[tuple[str, str]]:
        """Every Scorer, Critic and Tie-breaker turn so far, in order."""
        return list(self._log)

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken) -> Response:
        """Remember the new messages, then send the relay the protocol asks for."""
        for message in messages:
            if message.source in (SCORER, CRITIC, TIEBREAKER):
                self._log.append((message.source, message.to_text()))
            if message.source != COMMANDER:
                self._unseen.append(message)
        relay = self._next_relay()
        if relay is None or relay not in RELAY_TARGET:
            raise RuntimeError(f"the Commander was asked to speak with nothing to relay ({relay})")
        material = self.material(relay)
        usage = None
        if self._llm is not None:
            words, usage = await self._llm_words(relay, cancellation_token)
            content = f"{words}\n\n{material}"
        else:
            content = self.fixed_text(relay)
        message = TextMessage(
            source=COMMANDER,
            content=content,
            models_usage=usage,
            metadata={"to": RELAY_TARGET[relay], "relay": relay.value},
        )
        return Response(chat_message=message)

    def fixed_text(self, relay: Relay) -> str:
        """The authors' fixed relay text for ``relay``."""
        if relay is Relay.TASK:
            return self.task
        if relay is Relay.REVIEW:
            return TO_CRITIC.format(task=self.task, answer=self._latest(SCORER))
        if relay is Relay.FEEDBACK:
            return TO_SCORER.format(feedback=self._latest(CRITIC))
        if relay is Relay.TIEBREAK:
            return TO_TIEBREAKER.format(task=self.task, log=self._format_log(), answer_hint=self.answer_hint)
        return REASK.format(answer_hint=self.answer_hint)

    def material(self, relay: Relay) -> str:
        """What is forwarded verbatim under an LLM Commander's own words."""
        if relay is Relay.TASK:
            return self.task
        if relay is Relay.REVIEW:
            return f"Task description and source texts:\n{self.task}\n\nThe Scorer's response:\n{self._latest(SCORER)}"
        if relay is Relay.FEEDBACK:
            return f"The Critic's feedback:\n{self._latest(CRITIC)}"
        return f"{self.task}\n\nDebate Log of Other Agents:\n\n{self._format_log()}\n\n{self.answer_hint}".rstrip()

    async def _llm_words(self, relay: Relay, cancellation_token: CancellationToken) -> tuple[str, object]:
        assert self._llm is not None
        shown = [*self._unseen, TextMessage(source=USER, content=LLM_INSTRUCTIONS[relay])]
        self._unseen = []
        response = await self._llm.on_messages(shown, cancellation_token)
        return response.chat_message.to_text().strip(), response.chat_message.models_usage

    def _latest(self, speaker: str) -> str:
        for source, content in reversed(self._log):
            if source == speaker:
                return content
        raise RuntimeError(f"the Commander has nothing from the {speaker} to relay")

    def _format_log(self) -> str:
        return "\n".join(f"({source})\n{content}\n" for source, content in self._log).rstrip()

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        """Forget the debate."""
        self._log.clear()
        self._unseen.clear()
        if self._llm is not None:
            await self._llm.on_reset(cancellation_token)
