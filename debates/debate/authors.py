"""``--fidelity authors-code``: the DEBATE family as the authors' released code ran it, message for message.

Two released scripts (pyautogen 0.1-era, read at ``gunny97/DEBATE`` ``debate.py`` + ``evalute_score.py`` and
``sangwongenip/geval`` branch ``tiebreaker`` ``autogen_eval_debate.py`` + ``meta_eval_summeval.py``) differ
from Algorithm 1 of the paper in ways that change the debate itself. This module holds those differences
as rules of this project's own code (none of theirs is copied):

- **Reply counters.** Their Commander and Scorer are pyautogen ``AssistantAgent`` s with
  ``max_consecutive_auto_reply=1``; ``commander.initiate_chat(score_agent, ...)`` lets the Commander answer
  the Scorer's first score once with its own model call, and from then on each of the two replies to the
  other only while its counter allows (an agent at its limit stays silent and resets its counter; so does
  one that receives a message ending with ``TERMINATE``). ``AuthorsCodeProtocol`` keeps both counters:
  with n = 2 and a Critic that never agrees the Scorer answers twice (the second feedback is delivered and
  never answered), with n = 3 the Commander speaks again after the third score, and so on.
- **Forwarded answer.** Every review relay carries the Scorer's *first* answer (their
  ``_oai_messages[score_agent][1]``), and so does the Tie-breaker's debate log.
- **Final answer.** Their code returns ``score_agent._oai_messages[commander][-2]``. That is the Scorer's
  latest answer whenever it is a Scorer message; when it is not (an agreement in round 2, or n = 1 without
  agreement: it is the feedback relay) the project takes the latest Scorer answer unless
  ``reproduce_bugs`` asks for the relay text, as their code did.
- **Tie-breaker.** One system message (their prompt with the debate log substituted: the user's copy of
  their prompt file with ``--tiebreaker-template``, else their layout around this project's task prompt),
  sent with their ``openai.ChatCompletion.create`` arguments (``TIEBREAKER_DECODING``).
- **Parsing.** Their score extraction and NO ISSUE check (no re-ask) are parsing rules, kept with the other
  parsers of this method, in ``authors_scores.py`` beside this module (with the project's safety rule they keep:
  copies of the judged texts blanked out first).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autogen_agentchat.agents import BaseChatAgent
from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_core import CancellationToken
from autogen_core.models import ChatCompletionClient, SystemMessage

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import COMMANDER, SCORER, Relay
from debate_eval.debates.debate.algorithm import DebateProtocol, ProtocolError
from debate_eval.debates.record import ResultRecord

TERMINATE = "TERMINATE"  # pyautogen's is_termination_msg in their code: a message ending with it ends a chat
# Their inference_tiebreaker's openai.ChatCompletion.create arguments besides model and messages, as written
# there (whole numbers as integers; stop=None goes as null).
TIEBREAKER_DECODING: dict[str, Any] = {
    "temperature": 0,
    "max_tokens": 10,
    "top_p": 0,
    "frequency_penalty": 0,
    "presence_penalty": 0,
    "stop": None,
    "n": 1,
}

# Without the user's copy of their Tie-breaker prompt file (``--tiebreaker-template``; their files state no
# licence and are not shipped), the parts are laid out as below: the persona is the paper's Appendix G.1
# text, the criteria, steps and texts come from this project's template (the task prompt P), and the log
# section, answer line and trailing blank lines are those of their files.
AUTHORS_TIEBREAK = (
    "{persona}\n\n{task}\n\n<Debate Log of Other Agents>:\n\n{debate}\n\n"
    "<Answer (integer from {low:g} to {high:g})>\n\n\n"
)
DEBATE_PLACEHOLDER = "Debate"  # their {{Debate}}: where the debate log goes in a Tie-breaker prompt file


@dataclass(frozen=True)
class TiebreakerTemplate:
    """The user's copy of the authors' Tie-breaker prompt file (``--tiebreaker-template FILE``).

    Read as their script read it (``open(path).read()``: universal newlines) and filled as it filled it: the
    item's inputs (``{{Document}}``, ``{{Summary}}``; any dataset's input names) and ``{{Debate}}`` (their debate
    log) replaced, everything else (``{{Evaluation Criteria}}:`` headings, blank lines) sent as it is. One
    difference, a safety rule of this project: all placeholders are filled in one pass, so text inserted from
    the judged texts or the debate is never searched for placeholders again (their chained ``str.replace``
    would also fill a ``{{Summary}}`` written inside the article).
    """

    text: str
    source: str

    def render(self, inputs: Mapping[str, str], debate_log: str) -> str:
        """The system message for one item: ``inputs`` and the debate log in their places."""
        values = {**inputs, DEBATE_PLACEHOLDER: debate_log}
        names = "|".join(re.escape(name) for name in sorted(values, key=len, reverse=True))
        return re.sub(r"\{\{(" + names + r")\}\}", lambda match: values[match.group(1)], self.text)

    def to_dict(self) -> dict[str, str]:
        """JSON-ready view for config.json (the text included: it is part of every Tie-breaker request)."""
        return {"source": self.source, "text": self.text}


def load_tiebreaker_template(path: str | Path) -> TiebreakerTemplate:
    """Read ``path`` (UTF-8; a byte-order mark dropped; CRLF and CR read as LF, as ``open().read()`` does).

    Raises ``UserError`` (one line naming the file) when it cannot be read or has no ``{{Debate}}``.
    """
    where = f"--tiebreaker-template {path}"
    try:
        data = Path(path).expanduser().read_bytes()
    except OSError as exc:
        raise UserError(f"{where}: cannot read the file ({exc.strerror or type(exc).__name__})") from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise UserError(f"{where}: not valid UTF-8 at byte offset {exc.start}") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "{{" + DEBATE_PLACEHOLDER + "}}" not in text:
        raise UserError(
            f"{where}: no {{{{Debate}}}} placeholder, so the Tie-breaker would never see the debate log (the "
            "authors' files have it under '<Debate Log of Other Agents>:')"
        )
    return TiebreakerTemplate(text=text, source=str(path))


@dataclass(frozen=True)
class AuthorsBranch:
    """One released script: its agents, marker, score extraction and default n."""

    name: str
    source: str
    commander: str  # persona names (see ``debate-eval personas``)
    scorer: str
    marker: str
    extraction: str  # "first-digit" (evalute_score.py) or "first-number" (meta_eval_summeval.py)
    default_rounds: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready view for config.json."""
        return dict(self.__dict__)


OFFICIAL = AuthorsBranch(
    name="official",
    source="gunny97/DEBATE: debate.py, evalute_score.py",
    commander="authors-commander",
    scorer="authors-scorer",
    marker="NO_ISSUE",
    extraction="first-digit",
    default_rounds=2,
)
TIEBREAKER_BRANCH = AuthorsBranch(
    name="tiebreaker",
    source="sangwongenip/geval@tiebreaker: autogen_eval_debate.py, meta_eval_summeval.py",
    commander="authors-commander-tiebreaker",
    scorer="scorer",  # the paper's "Logically think to score the following sentence."
    marker="NO_ISSUES",
    extraction="first-number",
    default_rounds=5,
)
AUTHORS_CRITIC = {"devils-advocate": "authors-devils-advocate", "plain": "authors-plain"}


def authors_branch(tie_breaker: bool) -> AuthorsBranch:
    """The released script a protocol follows: the tiebreaker branch with a Tie-breaker, else the official."""
    return TIEBREAKER_BRANCH if tie_breaker else OFFICIAL


def ends_chat(content: str) -> bool:
    """pyautogen's termination test in their code: the message ends with TERMINATE."""
    return content.rstrip().endswith(TERMINATE)


class AuthorsCodeProtocol(DebateProtocol):
    """``DebateProtocol`` with their reply counters (``max_consecutive_auto_reply=1`` on both sides).

    The Scorer answers a Commander message only when its counter is 0 (then it becomes 1); otherwise it stays
    silent and its counter returns to 0. The Commander answers a Scorer answer with its own model call
    (relay ``autoreply``) under the same rule. The Critic always answers.
    """

    def reset(self) -> None:
        """Forget everything (a new debate)."""
        super().reset()
        self.scorer_counter = 0
        self.commander_counter = 0
        self.unanswered = 0  # Commander messages the Scorer did not answer
        self.commander_replies = 0

    def max_turns(self) -> int:
        """Task, S1, an auto-reply, then per round at most review, feedback, answer, auto-reply; the Tie-breaker."""
        return 3 + 5 * self.max_rounds + 2 + 1

    def observe(self, source: str, metadata: dict[str, str] | None = None, content: str = "") -> None:
        """Advance the state with a message from ``source``."""
        if source == COMMANDER:
            super().observe(source, metadata, content)
            if self._next == SCORER:
                if self.scorer_counter < 1 and not ends_chat(content):
                    self.scorer_counter += 1
                else:  # pyautogen: "exit" - no reply, counter reset
                    self.scorer_counter = 0
                    self.unanswered += 1
                    self._after_score()
            return
        if source == SCORER:
            self._expect(self._next == SCORER, source)
            self.scorer_turns += 1
            if self.commander_counter < 1 and not ends_chat(content):
                self.commander_counter += 1
                self.commander_replies += 1
                self._ask_commander(Relay.AUTOREPLY)
            else:
                self.commander_counter = 0
                self._after_score()
            return
        super().observe(source, metadata, content)


def their_final_message(messages: Sequence[BaseChatMessage]) -> BaseChatMessage:
    """``score_agent._oai_messages[commander][-2]``: what their code returned as the final answer (of the Scorer's
    conversation with the Commander, in order: their ``score_agent._oai_messages[commander]``)."""
    to_scorer = (COMMANDER, SCORER)
    conversation = [m for m in messages if m.source == SCORER or (m.source, m.metadata.get("to")) == to_scorer]
    if len(conversation) < 2:
        raise ProtocolError("the Scorer's conversation has fewer than two messages")
    return conversation[-2]


class SystemPromptAgent(BaseChatAgent):
    """Their Tie-breaker: one request whose only message is a system message (the text it is sent), with
    fixed decoding (``TIEBREAKER_DECODING``)."""

    def __init__(self, name: str, client: ChatCompletionClient, description: str = "") -> None:
        super().__init__(name, description or "Decides the score from one system message.")
        self._client = client

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        """Text only."""
        return (TextMessage,)

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken) -> Response:
        """Send the latest message's text as the only (system) message."""
        if not messages:
            raise ProtocolError(f"{self.name} was asked to speak with nothing to read")
        prompt = messages[-1].to_text()
        result = await self._client.create(
            [SystemMessage(content=prompt)],
            extra_create_args=dict(TIEBREAKER_DECODING),
            cancellation_token=cancellation_token,
        )
        content = result.content if isinstance(result.content, str) else str(result.content)
        return Response(chat_message=TextMessage(source=self.name, content=content, models_usage=result.usage))

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        """Nothing to forget."""


def authors_staffing(critic: str, tie_breaker: bool) -> tuple[str, str, str]:
    """Persona names (scorer, critic, commander) of the released script a protocol follows.

    A built-in Critic of the paper is replaced by the script's own string (``devils-advocate`` by the official
    code's, ``plain`` by the tiebreaker branch's); any other Critic (a file, ``moderate``...) is kept.
    """
    branch = authors_branch(tie_breaker)
    return branch.scorer, AUTHORS_CRITIC.get(critic, critic), branch.commander


def record_branch(record: ResultRecord) -> AuthorsBranch | None:
    """The released script an authors-code record followed (None: the record is no authors-code one)."""
    authors = (record.details or {}).get("authors_code")
    if not authors:
        return None
    return TIEBREAKER_BRANCH if authors.get("branch") == TIEBREAKER_BRANCH.name else OFFICIAL
