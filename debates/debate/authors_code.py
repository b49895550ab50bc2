"""The authors' released DEBATE code as a ``Flow`` (``--fidelity authors-code``; the pieces are in
``authors.py``): their NO_ISSUE substring ends the debate, the Commander forwards first and its auto-replies
are model calls, the Tie-breaker gets their text around the debate log, and the final answer is read with
their extraction (with ``--reproduce-authors-bugs``, taken at their ``[-2]`` index)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.roles import COMMANDER, SCORER, TIEBREAKER
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.authors import (
    AUTHORS_TIEBREAK,
    AuthorsBranch,
    AuthorsCodeProtocol,
    SystemPromptAgent,
    record_branch,
    their_final_message,
)
from debate_eval.debates.debate.authors_scores import authors_marker, authors_score
from debate_eval.debates.debate.flow import Final, Finished, last_from
from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.method import with_parse
from debate_eval.debates.record import R, ResultRecord, entries
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

if TYPE_CHECKING:
    from autogen_core.models import ChatCompletionClient

    from debate_eval.debates.debate.config import DebateConfig
    from debate_eval.debates.method import Reparser


@dataclass
class AuthorsCodeFlow:
    """``--fidelity authors-code``, following the released script of ``branch`` (their official script, or
    their tiebreaker branch)."""

    branch: AuthorsBranch
    forward_first: ClassVar[bool] = True
    commander_replies: ClassVar[bool] = True

    def protocol(self, config: DebateConfig, material: UntrustedMaterial) -> DebateProtocol:
        """Their turn order; the Critic agrees with their case-sensitive marker substring."""
        marker = self.branch.marker
        return AuthorsCodeProtocol(
            max_rounds=config.max_rounds,
            tie_breaker=config.tiebreaker is not None,
            critic_agrees=lambda text: authors_marker(text, marker, material),
        )

    def tiebreaker(self, config: DebateConfig, client: ChatCompletionClient) -> ChatAgent:
        """Their Tie-breaker: a system prompt, no persona turns."""
        assert config.tiebreaker is not None
        return SystemPromptAgent(TIEBREAKER, client, config.tiebreaker.description)

    def tiebreak_text(self, task: EvaluationTask, config: DebateConfig) -> Callable[[str], str] | None:
        """The Tie-breaker's input: the user's copy of their prompt file filled in, else their layout around the
        task prompt (``AUTHORS_TIEBREAK``)."""
        persona, template = config.tiebreaker, config.tiebreaker_template
        assert persona is not None

        def text(log: str) -> str:
            if template is not None:
                return template.render(task.inputs, log)
            return AUTHORS_TIEBREAK.format(
                persona=persona.text, task=task.prompt, debate=log, low=task.scale.low, high=task.scale.high
            )

        return text

    def parse(self, text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
        """Their extraction."""
        return authors_score(text, task.aspect, self.branch.extraction, material)

    async def final(self, debate: Finished) -> Final:
        """The deciding agent's last message (their ``[-2]`` message with ``--reproduce-authors-bugs``), read
        with their extraction; no re-ask."""
        protocol = debate.protocol
        assert isinstance(protocol, AuthorsCodeProtocol)
        decider = protocol.decided_by
        final = last_from(debate.messages, decider)
        if decider == SCORER and debate.config.reproduce_bugs:
            final = their_final_message([m for m in debate.messages if isinstance(m, BaseChatMessage)])
            decider = final.source
        details = {
            "authors_code": {
                "branch": self.branch.name,
                "commander_replies": protocol.commander_replies,
                "scorer_unanswered": protocol.unanswered,
                "final_relay": final.metadata.get("relay") if final.source == COMMANDER else None,
            }
        }
        parsed = self.parse(final.to_text(), debate.task, debate.material)
        return Final(parsed, decider, debate.messages, details=details)


def authors_reparser(record: ResultRecord, reparse: Reparser) -> Reparser:
    """``reparse`` reading an authors-code record's answers with their flow's extraction (``AuthorsCodeFlow.parse``,
    as the run read them); any other record's ``reparse`` as it is."""
    branch = record_branch(record)
    if branch is None:
        return reparse
    flow = AuthorsCodeFlow(branch)
    task = EvaluationTask(str(record.item_id), "", reparse.aspect or "", reparse.scale, ())

    def read(rp: Reparser, entry: dict[str, Any]) -> ParsedScore:
        return flow.parse(str(entry.get("content", "")), task, rp.material)

    return replace(reparse, read_entry=read)


def rescore_authors(record: R, reparse: Any) -> R | None:
    """``rescore`` of an authors-code record: a copy with their extraction on the deciding message again
    (read as their flow reads it: ``authors_reparser``, the run's reading; None when the record is
    none: it is left to the project's parser)."""
    authors = (record.details or {}).get("authors_code")
    if not authors or record_branch(record) is None:
        return None
    decider = record.decided_by
    answers = [e for e in entries(record) if e.get("agent") == decider]
    if decider == COMMANDER:  # --reproduce-authors-bugs took a relay: the one their [-2] index pointed at
        answers = [e for e in answers if e.get("relay") == authors.get("final_relay")]
    if not answers:
        return None
    parsed = authors_reparser(record, reparse).read(answers[-1])
    return with_parse(record, parsed, score=parsed.value if parsed.ok else None)
