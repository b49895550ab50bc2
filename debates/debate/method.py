"""The DEBATE family as registered methods: ``debate``, ``multiagent``, ``tiebreaker``, ``both``.

==============  ==========================================================================================
``debate``      DEBATE: Devil's-Advocate Critic (``devils-advocate``), the n-th score stands without agreement
``multiagent``  the paper's MultiAgent baseline: the same debate with the ``plain`` Critic
``tiebreaker``  the plain debate, with the Tie-breaker deciding when the Critic never agrees (Figure 2, right)
``both``        Devil's Advocate and Tie-breaker together (Figure 2, right, "Both")
==============  ==========================================================================================

The four share one config (``DebateConfig``) and one set of options; ``--critic`` overrides a method's own
Critic and ``--tie-breaker`` adds the Tie-breaker (the config records the staffing actually used).
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
    non_negative_int,
    option,
    register_method,
)
from debate_eval.debates.debate.algorithm import StopReason
from debate_eval.debates.debate.scripted import SCRIPTED_REPLIES
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.fidelity import AUTHORS_CODE, PAPER, bugs_option, fidelity_of, fidelity_option
from debate_eval.debates.kit.confidence import Confidence
from debate_eval.debates.pairwise.scripted import PAIRWISE_PROMPTS
from debate_eval.debates.record import R, ResultRecord

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.debates.debate.config import DebateConfig
    from debate_eval.debates.method import Evaluator


def debate_config(
    critic: str,
    tie_breaker: bool,
    dataset_kind: str,
    *,
    max_rounds: int = 2,
    commander_llm: bool = False,
    reask: bool = True,
    marker_case_sensitive: bool = False,
    fidelity: str = PAPER,
    reproduce_bugs: bool = False,
    tiebreaker_template: str | None = None,
) -> DebateConfig:
    """The debate staffing: ``critic`` a persona name or file; the Tie-breaker's wording by dataset kind;
    with ``fidelity`` authors-code, the released script's own system messages (``authors_staffing``) and,
    given ``tiebreaker_template`` (a path), the user's copy of their Tie-breaker prompt file."""
    from debate_eval.debates.debate.authors import authors_staffing, load_tiebreaker_template
    from debate_eval.debates.debate.config import DebateConfig

    if max_rounds == 0 and tie_breaker:
        raise UserError("the Tie-breaker needs at least one round: use --max-rounds 1 or more")
    scorer, commander = "scorer", "commander"
    if fidelity == AUTHORS_CODE:
        if commander_llm:
            raise UserError("--commander-llm belongs to --fidelity paper (the authors' Commander calls are fixed)")
        scorer, critic, commander = authors_staffing(critic, tie_breaker)
    elif reproduce_bugs:
        raise UserError("--reproduce-authors-bugs needs --fidelity authors-code")
    template = None
    if tiebreaker_template is not None:
        if fidelity != AUTHORS_CODE or not tie_breaker:
            raise UserError(
                "--tiebreaker-template is the authors' Tie-breaker prompt file: it needs --fidelity authors-code "
                "and a Tie-breaker (--method tiebreaker or both, or --tie-breaker)"
            )
        template = load_tiebreaker_template(tiebreaker_template)
    tiebreaker_name = "tiebreaker-dialogue" if dataset_kind == "dialogue" else "tiebreaker"
    return DebateConfig(
        scorer=get_persona(scorer, "scorer"),
        critic=get_persona(critic, "critic"),
        commander=get_persona(commander, "commander"),
        tiebreaker=get_persona(tiebreaker_name, "tiebreaker") if tie_breaker else None,
        max_rounds=max_rounds,
        commander_llm=commander_llm,
        reask=reask,
        marker_case_sensitive=marker_case_sensitive,
        fidelity=fidelity,
        reproduce_bugs=reproduce_bugs,
        tiebreaker_template=template,
    )


@dataclass(frozen=True)
class DebateOptions:
    """The options the four DEBATE variants share."""

    critic: str | None = option(help="Critic persona name (see 'debate-eval personas') or a text file")
    max_rounds: int = option(
        2,
        convert=non_negative_int,
        help="n, the most Critic rounds (default 2: the paper leaves n open and finds 4 best; the authors' "
        "official script also used 2, their tiebreaker branch 5)",
    )
    tie_breaker: bool = option(False, help="a Tie-breaker decides when the Critic never agrees")
    commander_llm: bool = option(
        False,
        help="--fidelity paper: the Commander writes its relays with the model (default: fixed relay texts, "
        "no Commander call)",
    )
    no_reask: bool = option(False, help="do not ask the deciding agent again when its answer has no parsable score")
    marker_case_sensitive: bool = option(
        False,
        help="accept NO ISSUE only in upper case; default: any case (--fidelity authors-code uses their "
        "case-sensitive NO_ISSUE / NO_ISSUES substring)",
    )
    tiebreaker_template: str | None = option(
        metavar="FILE",
        help="--fidelity authors-code with a Tie-breaker: your copy of the authors' Tie-breaker prompt file "
        "(e.g. prompts/summeval/coh_tiebreak.txt of sangwongenip/geval, branch tiebreaker; not shipped: it "
        "has no licence), filled as their script filled it ({{Document}}, {{Summary}}, {{Debate}})",
    )
    fidelity: str = fidelity_option()
    reproduce_authors_bugs: bool = bugs_option()


class DebateMethod(Method["DebateConfig"]):
    """One DEBATE-family variant: its default Critic persona and whether a Tie-breaker decides."""

    scripted_replies = (PAIRWISE_PROMPTS, SCRIPTED_REPLIES)  # canned replies for offline runs (scripted.py)
    has_critic = True
    config_key = "debate"
    Options = DebateOptions

    def __init__(self, name: str, description: str, critic: str, tie_breaker: bool) -> None:
        self.name = name
        self.description = description
        self.critic = critic
        self.tie_breaker = tie_breaker

    def authors_prompt_file(self, dataset: str, aspect: str) -> str | None:
        """DEBATE's released prompt files: SummEval's four (``prompts/summeval/coh_detailed.txt``, ...)."""
        if dataset == "summeval" and aspect in ("coherence", "consistency", "fluency", "relevance"):
            return f"DEBATE's prompts/summeval/{aspect[:3]}_detailed.txt"
        return None

    @property
    def config_type(self) -> type:  # type: ignore[override]
        """``DebateConfig`` (imported when asked for: it lives with the debate's AutoGen code)."""
        from debate_eval.debates.debate.config import DebateConfig

        return DebateConfig

    def build_config(self, options: DebateOptions, ctx: MethodContext) -> DebateConfig:
        """The staffing from the options (``--critic`` and ``--tie-breaker`` override the variant's)."""
        fidelity, reproduce_bugs = fidelity_of(options)
        if ctx.task_type == "pairwise" and fidelity != PAPER:
            raise UserError("--fidelity authors-code has no pairwise form (the authors' code scores single texts)")
        return debate_config(
            options.critic or self.critic,
            self.tie_breaker or options.tie_breaker,
            ctx.dataset_kind,
            max_rounds=options.max_rounds,
            commander_llm=options.commander_llm,
            reask=not options.no_reask,
            marker_case_sensitive=options.marker_case_sensitive,
            fidelity=fidelity,
            reproduce_bugs=reproduce_bugs,
            tiebreaker_template=options.tiebreaker_template,
        )

    def reparser(self, record: ResultRecord, reparse: Reparser) -> Reparser:
        """``--fidelity authors-code`` records' answers read with their flow's extraction; others as usual."""
        from debate_eval.debates.debate.authors_code import authors_reparser

        return authors_reparser(record, reparse)

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """The debate's course: the Critic's agreement at its first turn is the surest (1); agreement after r
        Critic turns gives 1/r (each objection the Scorer had to answer halves, thirds... it); a debate that ended
        without the Critic's agreement (the n-th score stands, or the Tie-breaker decided) gives 0. ``None`` for
        a debate without a Critic turn."""
        rounds = record.rounds or 0
        if rounds < 1 or record.agreed is None:
            return None
        if record.agreed:
            at = "at once" if rounds == 1 else f"after {rounds} Critic turns"
            return Confidence(1.0 / rounds, f"the Critic agreed {at}")
        if record.stop_reason == StopReason.TIEBREAKER.value:
            return Confidence(0.0, f"the Critic objected in all {rounds} rounds; the Tie-breaker decided")
        return Confidence(0.0, f"the Critic objected in all {rounds} rounds")

    def rescore(self, record: R, reparse: Reparser) -> R:
        """``--fidelity authors-code`` records are read again with their extraction; others as usual."""
        from debate_eval.debates.debate.authors_code import rescore_authors

        rescored = rescore_authors(record, reparse)
        return rescored if rescored is not None else super().rescore(record, reparse)

    def roles(self, config: DebateConfig) -> tuple[str, ...]:
        """Scorer and Critic; the Tie-breaker and the Commander when they call the model."""
        roles = ["scorer", "critic"]
        if config.tiebreaker is not None:
            roles.append("tiebreaker")
        if config.commander_llm or config.authors_code:  # authors-code: the Commander's auto-replies
            roles.append("commander")
        return tuple(roles)

    async def judge(self, task: EvaluationTask, config: DebateConfig, pool: ClientPool) -> Outcome:
        """Run the debate (Algorithm 1)."""
        from debate_eval.debates.debate.run import run_debate

        return await run_debate(task, config, pool)

    def evaluator(self, config: DebateConfig) -> Evaluator:
        """``Method.evaluator``, whose debates of single scores keep their teams from item to item (one per item
        in flight: ``debates.debate.run.DebateTeams``) for as long as the judge or run that made it."""
        from debate_eval.debates.debate.run import DebateTeams, run_debate

        teams = DebateTeams()

        async def run(task: EvaluationTask, pool: ClientPool) -> Outcome:
            if task.pairwise:
                return await self.judge_pair(task, config, pool)
            return await run_debate(task, config, pool, teams)

        return run

    async def judge_pair(self, task: EvaluationTask, config: DebateConfig, pool: ClientPool) -> Outcome:
        """Run the debate's pairwise form (``debates.debate.pairwise``)."""
        from debate_eval.debates.debate.pairwise import run_debate_pairwise

        return await run_debate_pairwise(task, config, pool)

    def describe(self, config: DebateConfig) -> dict[str, Any]:
        """Critic persona, rounds, Tie-breaker, Commander."""
        return {
            "critic": config.critic.name,
            "rounds": config.max_rounds,
            "tiebreaker": config.tiebreaker is not None,
            "commander": "llm" if config.commander_llm else "fixed",
            "fidelity": config.fidelity,
        }


VARIANTS = (
    DebateMethod("debate", "DEBATE: Scorer vs Devil's-Advocate Critic", "devils-advocate", False),
    DebateMethod("multiagent", "MultiAgent baseline: the debate with the plain Critic", "plain", False),
    DebateMethod("tiebreaker", "plain debate, Tie-breaker decides without agreement", "plain", True),
    DebateMethod("both", "Devil's Advocate and Tie-breaker", "devils-advocate", True),
)
for _variant in VARIANTS:
    register_method(_variant)
