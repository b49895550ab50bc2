"""Fennec as a registered method (``fennec``): options, roles, evaluation, rescoring, the run summary line.

``--branches k`` (default 3): criteria per item, one branch each; ``--correct`` rewrites low-scored (single)
or losing (pairwise) responses, ``--correct-below S`` sets the single threshold, ``--rescore-corrected``
grades the corrected text again. Personas do not apply; ``--role-model`` does for its four roles.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import Method, MethodContext, OptionError, Reparser, option, register_method, with_parse
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.fennec.prompts import PROMPT_FILES, prompt_text
from debate_eval.debates.fennec.roles import (
    CORRECTOR_ROLE,
    CRITERIA_WRITER_ROLE,
    GUIDELINE_WRITER_ROLE,
    JUDGE,
    JUDGE_ROLE,
)
from debate_eval.debates.fennec.scripted import SCRIPTED_REPLIES
from debate_eval.debates.kit.confidence import Confidence, agreement, parsed_vote
from debate_eval.debates.pairwise.scripted import PAIRWISE_PROMPTS
from debate_eval.debates.record import R, ResultRecord, details_of, entries
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

if TYPE_CHECKING:  # the teams (AutoGen) load when an item is evaluated: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool

DEFAULT_BRANCHES = 3


@dataclass(frozen=True)
class FennecConfig:
    """How many branches, and whether (and below what) to correct (config.json: every field)."""

    branches: int = DEFAULT_BRANCHES
    correct: bool = False
    correct_below: float | None = None  # None: the middle of the aspect's scale (3 on 1-5)
    rescore_corrected: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json (the prompts' texts too: editing them changes the run's hash)."""
        return {**asdict(self), "prompts": {name: prompt_text(name) for name in PROMPT_FILES}}


async def run_fennec(task: EvaluationTask, config: FennecConfig, pool: ClientPool) -> Outcome:
    """Criteria, branches, merge; then the correction when asked for."""
    from debate_eval.debates.fennec.correction import correct, scaled_threshold
    from debate_eval.debates.fennec.team import run_branches

    outcome = await run_branches(task, config.branches, pool)
    if config.correct:
        threshold = scaled_threshold(config.correct_below, task.scale)
        outcome = await correct(task, outcome, threshold, config.rescore_corrected, pool)
    return outcome


def _branches(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 10:
        raise OptionError(f"expected 1 to 10 branches, got {text}")
    return value


@dataclass(frozen=True)
class FennecOptions:
    """Fennec's options."""

    branches: int = option(
        DEFAULT_BRANCHES,
        convert=_branches,
        help=f"fennec: k, the criteria (branches) per item (default {DEFAULT_BRANCHES}; the paper studies 1-5)",
    )
    correct: bool = option(
        False, help="fennec: rewrite responses scored below --correct-below (single) or losing (pairwise)"
    )
    correct_below: float | None = option(
        convert=float,
        metavar="S",
        help="fennec: correct single items scored below S (default: the scale's middle, 3 on 1-5)",
    )
    rescore_corrected: bool = option(
        False, help="fennec: grade each corrected text again under the same criteria; report the gain"
    )


def corrections(records: Iterable[ResultRecord]) -> list[dict[str, Any]]:
    """Every correction a run's records hold (both orders of a ``--swap`` record)."""
    found = []
    for record in records:
        details = record.details or {}
        holders = [details, *((o or {}).get("details") or {} for o in (details.get("orders") or {}).values())]
        found += [h["correction"] for h in holders if isinstance(h.get("correction"), dict)]
    return found


def branches_verdict(entries: Sequence[dict[str, Any]], decided_by: str, parse: Any) -> Any:
    """One order's verdict re-read (``rescore``): the summed preferences of its branch judgments."""
    from debate_eval.debates.fennec.merge import merge_verdicts
    from debate_eval.debates.fennec.team import JUDGMENT

    return merge_verdicts([parse(e) for e in entries if e.get("step") == JUDGMENT and "verdict" in e])


def judgment_prompt(transcript: Sequence[dict[str, Any]]) -> str:
    """The prompt of a Fennec pairwise record: P with the instructions of its first judgment."""
    from debate_eval.debates.fennec.team import JUDGMENT
    from debate_eval.debates.kit.reread import first_message

    return next((str(e.get("content", "")) for e in transcript if e.get("step") == JUDGMENT), first_message(transcript))


@register_method
class FennecMethod(Method[FennecConfig]):
    """``fennec``: criteria, then per criterion a guideline and a judgment, merged; optional correction."""

    scripted_replies = (PAIRWISE_PROMPTS, SCRIPTED_REPLIES)  # canned replies for offline runs (scripted.py)
    name = "fennec"
    description = "Fennec: k criteria, a guideline and a judgment per criterion, merged; optional correction"
    config_type = FennecConfig
    config_key = "fennec"
    Options = FennecOptions

    def build_config(self, options: FennecOptions, ctx: MethodContext) -> FennecConfig:
        """From ``--branches`` and the correction options (which need ``--correct``)."""
        below = options.correct_below
        if (below is not None or options.rescore_corrected) and not options.correct:
            raise UserError("--correct-below and --rescore-corrected need --correct")
        if below is not None and ctx.task_type == "pairwise":
            raise UserError("--correct-below is for single-score items; a pairwise run corrects the losing response")
        return FennecConfig(
            branches=options.branches or DEFAULT_BRANCHES,
            correct=options.correct,
            correct_below=below,
            rescore_corrected=options.rescore_corrected,
        )

    def roles(self, config: FennecConfig) -> tuple[str, ...]:
        """Criteria writer, guideline writer, judge; the corrector with ``--correct``."""
        roles = (CRITERIA_WRITER_ROLE, GUIDELINE_WRITER_ROLE, JUDGE_ROLE)
        return (*roles, CORRECTOR_ROLE) if config.correct else roles

    async def judge(self, task: EvaluationTask, config: FennecConfig, pool: ClientPool) -> Outcome:
        """One item: criteria, a guideline and a judgment per criterion, their mean score."""
        return await run_fennec(task, config, pool)

    async def judge_pair(self, task: EvaluationTask, config: FennecConfig, pool: ClientPool) -> Outcome:
        """One order of a pairwise item (the engine runs both under ``--swap``): the same branches, with the
        pairwise prompts, their summed preferences."""
        return await run_fennec(task, config, pool)

    def describe(self, config: FennecConfig) -> dict[str, Any]:
        """Branches and correction."""
        return {"branches": config.branches, "correct": config.correct}

    def summary_lines(self, records: Iterable[ResultRecord]) -> list[str]:
        """Lines the run summary adds: corrections made and the mean gain (none when the run corrected nothing)."""
        found = corrections(records)
        if not found:
            return []
        made = [c for c in found if c.get("corrected")]
        line = f"corrections: {len(made)} of {len(found)} checked"
        gains = [c["rescore"]["gain"] for c in made if isinstance(c.get("rescore"), dict)]
        scored = [g for g in gains if g is not None]
        if gains:
            mean = f"{sum(scored) / len(scored):+.3f}" if scored else "n/a"
            line += f"; re-judged {len(gains)}, mean gain {mean} ({len(scored)} with a gain)"
        return [line]

    def record_view(self, record: ResultRecord, full: bool = False) -> str | None:
        """The branches as a tree (``debate-eval show``)."""
        from debate_eval.debates.fennec.tree import format_tree

        return format_tree(record, full)

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """The branches' agreement: the share of the k criteria branches (``details["tree"]``) whose parsed score
        (or preference) is the most common one among the branches."""
        tree = (record.details or {}).get("tree") or []
        pairwise = record.task_type == "pairwise"
        votes = [parsed_vote(branch.get("verdict" if pairwise else "score") or {}, not pairwise) for branch in tree]
        return agreement(votes, "branches")

    def rescore_pairwise(self, record: R, texts: list[str]) -> R:
        """Every branch judgment's verdict re-read (the instructions of its first judgment set aside), then
        their summed preferences again."""
        from debate_eval.debates.kit.reread import reread_pairwise

        return reread_pairwise(record, texts, branches_verdict, judgment_prompt)

    def rescore(self, record: R, reparse: Reparser) -> R:
        """Every judgment parsed again; the score is their mean again, and a correction's gain is recomputed."""
        from debate_eval.debates.fennec.merge import merge_scores
        from debate_eval.debates.fennec.team import JUDGMENT, RESCORE

        transcript = entries(record)
        judged = [i for i, e in enumerate(transcript) if e.get("step") == JUDGMENT and e.get("agent") == JUDGE]
        if not judged:
            return record
        parses = [reparse.entry(i) for i in judged]
        for index, parsed in zip(judged, parses, strict=True):
            transcript[index]["score"] = parsed.to_dict()
        details = details_of(record)
        for branch, parsed in zip(details.get("tree") or [], parses, strict=False):
            branch["score"] = parsed.to_dict()
        merged = merge_scores(parses)
        info = details.get("correction")
        rescored = [i for i, e in enumerate(transcript) if e.get("step") == RESCORE and e.get("agent") == JUDGE]
        if isinstance(info, dict) and isinstance(info.get("rescore"), dict) and rescored:
            corrected = UntrustedMaterial([str(info.get("corrected") or "")])  # judged in those answers too
            texts = [corrected.neutralize(str(transcript[i].get("content", ""))) for i in rescored]
            again = merge_scores([reparse.text(text) for text in texts])
            gain = None if merged.value is None or again.value is None else again.value - merged.value
            info["rescore"].update(score=again.value, gain=gain)
        return with_parse(record, merged, score=merged.value, details=details, transcript=transcript)
