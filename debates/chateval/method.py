"""ChatEval as a registered method (``chateval``): its options, roles and rescoring.

The panel itself (``run_chateval``, in ``run``/``panel``/``paper``/``faireval``) is loaded when an item is
evaluated; this module declares how the method is selected and configured (with ``config``, the panel's
settings), so the registry and ``run --help`` load without AutoGen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.personas import get_persona
from debate_eval.debates.base import (
    Method,
    MethodContext,
    Reparser,
    option,
    positive_int,
    register_method,
    with_parse,
)
from debate_eval.debates.chateval.config import (
    DEFAULT_ROLES,
    DEFAULT_TURNS,
    ONE_BY_ONE,
    REFEREE,
    STRATEGIES,
    SUMMARIZER_ROLE,
    ChatEvalConfig,
    authors_referee,
)
from debate_eval.debates.chateval.scripted import SCRIPTED_REPLIES
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.fidelity import AUTHORS_CODE, PAPER, bugs_option, fidelity_of, fidelity_option
from debate_eval.debates.kit.confidence import Confidence, agreement, score_key
from debate_eval.debates.pairwise.scripted import PAIRWISE_PROMPTS
from debate_eval.debates.record import R, ResultRecord, details_of

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool


def chateval_config(
    roles: str | list[str] | tuple[str, ...] | None = None,
    turns: int | None = None,
    strategy: str | None = None,
    fidelity: str = PAPER,
    reproduce_bugs: bool = False,
) -> ChatEvalConfig:
    """The panel: ``roles`` are referee persona names (or text files), as a list or comma-separated;
    defaults (the paper's main setting): general-public, critic; 2 turns; one-by-one; ``--fidelity paper``."""
    if isinstance(roles, str):
        roles = [part.strip() for part in roles.split(",")]
    names = list(roles) if roles else list(DEFAULT_ROLES)
    if not all(names):
        raise UserError("--chateval-roles: empty role name (expected e.g. general-public,critic,news-author)")
    if reproduce_bugs and fidelity != AUTHORS_CODE:
        raise UserError("--reproduce-authors-bugs needs --fidelity authors-code")
    referees = tuple(get_persona(name, REFEREE) for name in names)
    if fidelity == AUTHORS_CODE:
        referees = tuple(authors_referee(persona) for persona in referees)
    return ChatEvalConfig(
        referees=referees,
        turns=DEFAULT_TURNS if turns is None else turns,
        strategy=strategy or ONE_BY_ONE,
        fidelity=fidelity,
        reproduce_bugs=reproduce_bugs,
    )


@dataclass(frozen=True)
class ChatEvalOptions:
    """ChatEval's options."""

    chateval_roles: str | None = option(
        metavar="A,B,C",
        help="chateval: comma-separated referee personas (names of role 'referee' in 'debate-eval personas', "
        f"or text files; default: {','.join(DEFAULT_ROLES)})",
    )
    chateval_turns: int | None = option(
        convert=positive_int, help=f"chateval: T, the discussion turns (default {DEFAULT_TURNS})"
    )
    chateval_strategy: str | None = option(
        choices=STRATEGIES, help=f"chateval: communication strategy (default {ONE_BY_ONE})"
    )
    fidelity: str = fidelity_option()
    reproduce_authors_bugs: bool = bugs_option()


@register_method
class ChatEvalMethod(Method[ChatEvalConfig]):
    """``chateval``: role-played referees discuss for T turns; the mean of their final scores."""

    scripted_replies = (PAIRWISE_PROMPTS, SCRIPTED_REPLIES)  # canned replies for offline runs (scripted.py)
    name = "chateval"
    description = "ChatEval: referees with role personas discuss; mean of their scores"
    config_type = ChatEvalConfig
    config_key = "chateval"
    Options = ChatEvalOptions

    def build_config(self, options: ChatEvalOptions, ctx: MethodContext) -> ChatEvalConfig:
        """The panel from ``--chateval-*``."""
        if ctx.task_type == "pairwise" and fidelity_of(options)[0] != PAPER and ctx.swap:
            raise UserError(
                "chateval --fidelity authors-code judges every pairwise item in both orders already (their "
                "FairEval flow sums the scores of both); drop --swap"
            )
        return chateval_config(
            options.chateval_roles, options.chateval_turns, options.chateval_strategy, *fidelity_of(options)
        )

    def roles(self, config: ChatEvalConfig) -> tuple[str, ...]:
        """Referees (with the Scorer's settings unless a client is given for the role), and the summarizer."""
        return (REFEREE, SUMMARIZER_ROLE) if config.uses_summarizer else (REFEREE,)

    async def judge(self, task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
        """Run the discussion and average the referees' final scores."""
        from debate_eval.debates.chateval.run import run_chateval

        return await run_chateval(task, config, pool)

    async def judge_pair(self, task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
        """The majority of the referees' final verdicts (``debates.chateval.pairwise``), or with ``--fidelity
        authors-code`` their FairEval flow over both orders (``debates.chateval.pairwise_faireval``)."""
        if config.authors_code:
            from debate_eval.debates.chateval.pairwise_faireval import run_faireval_pairwise

            return await run_faireval_pairwise(task, config, pool)
        from debate_eval.debates.chateval.pairwise import run_chateval_pairwise

        return await run_chateval_pairwise(task, config, pool)

    def describe(self, config: ChatEvalConfig) -> dict[str, Any]:
        """Strategy, turns, referees."""
        return {"strategy": config.strategy, "turns": config.turns, "referees": [p.name for p in config.referees]}

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """The referees' agreement: the share of referees whose final score (``details["final_scores"]``) or
        verdict (``details["final_verdicts"]``) is the panel's most common one (a referee without an answer
        counts as disagreeing)."""
        details = record.details or {}
        if record.task_type == "pairwise":
            return agreement((details.get("final_verdicts") or {}).values(), "referees")
        return agreement((score_key(value) for value in (details.get("final_scores") or {}).values()), "referees")

    def rescore_pairwise(self, record: R, texts: list[str]) -> R:
        """The referees' final verdicts re-read, their majority again; a record of the FairEval flow
        (``--fidelity authors-code``): their aggregation of the stored scores of both orders."""
        from debate_eval.debates.chateval.pairwise import referees_verdict
        from debate_eval.debates.chateval.pairwise_faireval import is_faireval_record, rescore_faireval
        from debate_eval.debates.kit.reread import reread_pairwise

        if is_faireval_record(record):
            return rescore_faireval(record, texts)
        return reread_pairwise(record, texts, referees_verdict)

    def reparser(self, record: ResultRecord, reparse: Reparser) -> Reparser:
        """A referee's message read as the run read it: its own verdict line, the others' scores aside."""
        from debate_eval.debates.chateval.run import referee_reparser

        return referee_reparser(record, reparse)

    def rescore(self, record: R, reparse: Reparser) -> R:
        """The mean of each referee's last answer, parsed again."""
        from debate_eval.debates.chateval.referee_scores import average_final_scores
        from debate_eval.debates.chateval.run import rescored_finals

        finals = rescored_finals(record, reparse)  # each referee's own verdict line, as the run reads it
        score, parsed, excluded = average_final_scores(finals)
        details = details_of(record)
        details.update(
            final_scores={name: p.value for name, p in finals.items()},
            final_parse_status={name: p.status for name, p in finals.items()},
            excluded=excluded,
        )
        return with_parse(record, parsed, score=score, details=details)
