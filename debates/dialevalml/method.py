"""DialEvalML's prompted submetric (Mendonça et al. 2023): one short prompt per aspect, one call per item.

The paper's prompt asks for "a single score and nothing else" on a 1-5 scale, at turn level (a context and
its response) or dialogue level (the whole dialogue); the prompts (``debates/dialevalml/prompts/``) say the
same in this project's words. The answer is parsed with the project's parser (a bare number is the normal
answer; a per-turn list is averaged, as the paper does); while no score comes, the same conversation is
asked again for the score alone, at most ``max_reasks`` times (the paper: "until a score is provided").

**Scale.** The prompt always asks the paper's 1-5 (``PROMPT_SCALE``), whatever the humans' scale (FED rates
most qualities 0-2): the model's answer is the record's ``score`` on 1-5, and ``score_normalized`` =
(score - 1) / 4 in [0, 1] (the paper normalises to [0, 1] to ensemble submetrics). Correlations with the
humans do not depend on the scale. ``--dialevalml-scale aspect`` asks the aspect's own scale instead
(then ``score_normalized`` is taken from that scale).

**Level.** ``dialogue`` input: dialogue level. ``context``/``response`` (FED, xDial-Eval), ``Dialogue``/
``Fact``/``Response`` (Topical-Chat, the fact shown with the context), own files' ``context`` or ``source``
with ``output``: turn level; an own file with only ``output`` is judged as a whole dialogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.base import (
    Method,
    MethodContext,
    Reparser,
    non_negative_int,
    option,
    register_method,
    with_parse,
)
from debate_eval.debates.dialevalml.scripted import SCRIPTED_REPLIES
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.kit.prompt_files import prompt_file, prompt_file_table
from debate_eval.debates.record import R, ResultRecord, details_of, entries
from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.agents.models.wrappers import CallRecord

PROMPT_SCALE = ScoreRange(1.0, 5.0)  # the paper's "from 1-5"
DEFAULT_MAX_REASKS = 3
TURN, DIALOGUE = "turn", "dialogue"
SCALES = ("paper", "aspect")


def prompt_text(name: str) -> str:
    """The text of ``prompts/NAME.txt`` beside this module (or NAME itself when it has a suffix), without its
    trailing whitespace."""
    return prompt_file(__package__, name if "." in name else f"{name}.txt")


def aspect_label(aspect: str) -> str:
    """The aspect as the prompt names it: FED's ``semantically_appropriate`` -> ``semantic appropriateness``
    (``prompts/dialevalml/aspects.json``); any other aspect with ``_`` read as a space."""
    names = prompt_file_table(__package__, "aspects.json")
    return names.get(aspect.lower(), aspect.replace("_", " ").strip())


def _field(inputs: Mapping[str, str], *names: str) -> str | None:
    """The first non-empty input among ``names`` (case-insensitive)."""
    lowered = {key.lower(): value for key, value in inputs.items()}
    for name in names:
        value = lowered.get(name)
        if value is not None and str(value).strip():
            return str(value)
    return None


def dialogue_parts(inputs: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The level (``turn`` or ``dialogue``) and the prompt's slots for an item's inputs.

    A ``UserError`` when the inputs hold neither a dialogue nor a response.
    """
    dialogue = _field(inputs, "dialogue") if _field(inputs, "response", "output") is None else None
    if dialogue is not None:
        return DIALOGUE, {"dialogue": dialogue}
    response = _field(inputs, "response", "output")
    if response is None:
        raise UserError(f"dialevalml: the item has no dialogue or response (inputs: {', '.join(inputs) or 'none'})")
    context = _field(inputs, "context", "dialogue", "source")
    if context is None:
        return DIALOGUE, {"dialogue": response}  # an own file with only the dialogue's text
    fact = _field(inputs, "fact")
    if fact is not None:
        context = f"{context}\n\n{prompt_text('fact').format(fact=fact)}"
    return TURN, {"context": context, "response": response}


def render_prompt(inputs: Mapping[str, str], aspect: str, scale: ScoreRange = PROMPT_SCALE) -> tuple[str, str]:
    """The level and the prompt for one item and ``aspect`` on ``scale``."""
    level, slots = dialogue_parts(inputs)
    words = {"aspect": aspect_label(aspect), "low": f"{scale.low:g}", "high": f"{scale.high:g}"}
    return level, prompt_text(level).format(**words, **slots)


def reask_prompt(aspect: str, scale: ScoreRange = PROMPT_SCALE) -> str:
    """The follow-up question when an answer had no score."""
    return prompt_text("reask").format(aspect=aspect_label(aspect), low=f"{scale.low:g}", high=f"{scale.high:g}")


def normalize(score: float | None, scale: ScoreRange) -> float | None:
    """``score`` mapped from ``scale`` to [0, 1] (None stays None)."""
    if score is None:
        return None
    return (score - scale.low) / (scale.high - scale.low)


@dataclass(frozen=True)
class DialEvalMLConfig:
    """How DialEvalML asks."""

    max_reasks: int = DEFAULT_MAX_REASKS
    scale: str = "paper"  # "paper": 1-5; "aspect": the aspect's own scale (the template's)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json (the prompts' texts too: editing them changes the run's hash)."""
        return {
            "max_reasks": self.max_reasks,
            "scale": self.scale,
            "prompts": {name: prompt_text(name) for name in ("turn", "dialogue", "reask", "fact", "aspects.json")},
        }


async def run_dialevalml(task: EvaluationTask, config: DialEvalMLConfig, pool: ClientPool) -> Outcome:
    """Ask the simple prompt; ask again for the score alone (at most ``max_reasks`` times) while none comes."""
    from debate_eval.debates.geval.single import ask_evaluator
    from debate_eval.debates.kit.reask import Reask, ask_again, in_conversation, latest
    from debate_eval.debates.kit.transcript import build_transcript

    scale = task.scale if config.scale == "aspect" else PROMPT_SCALE  # the scale the prompt asks for
    material = task.material()
    level, prompt = render_prompt(task.inputs, task.aspect, scale)
    scored = EvaluationTask(task.item_id, prompt, task.aspect, scale, task.untrusted, task.kind)
    calls: list[CallRecord] = []
    # G-Eval's single Evaluator; "Give a single score and nothing else": a constrained answer is the score alone
    agent, messages = await ask_evaluator(scored, pool, calls, answer="score_only")
    # while no score comes, the same conversation is asked for the score alone; the last answer stands
    request = Reask.for_score(
        scored, material, lambda _: reask_prompt(task.aspect, scale), limit=config.max_reasks, settle=latest
    )
    final = await ask_again(request.read(messages[-1].to_text()), in_conversation(agent), request)
    messages += final.messages
    parsed, reasks = final.reading, final.count
    for call in calls:  # the evaluator's calls are made through the Scorer's settings
        call.role = "evaluator"
    transcript = build_transcript(
        messages, calls, lambda m: score_text(m.to_text(), scored, material) if m.source == EVALUATOR else None
    )
    score = parsed.value if parsed.ok else None
    details = {
        "level": level,
        "prompt_scale": str(scale),
        "reasks": reasks,
        "score_normalized": normalize(score, scale),
    }
    return Outcome(
        score=score,
        parse=parsed,
        decided_by=EVALUATOR,
        stop_reason="single_answer" if parsed.ok else "no_score_after_reasks",
        transcript=transcript,
        calls=calls,
        reasked=reasks > 0,
        details=details,
    )


@dataclass(frozen=True)
class DialEvalMLOptions:
    """DialEvalML's options."""

    max_reasks: int = option(
        DEFAULT_MAX_REASKS,
        convert=non_negative_int,
        help=f"dialevalml: times an answer without a score is asked again (default {DEFAULT_MAX_REASKS})",
    )
    dialevalml_scale: str = option(
        "paper",
        choices=SCALES,
        help="dialevalml: the scale the prompt asks: paper = 1-5 (default), aspect = the aspect's own scale",
    )


@register_method
class DialEvalMLMethod(Method[DialEvalMLConfig]):
    """``dialevalml``: the simple per-aspect prompt, re-asked while no score comes, normalised to [0, 1]; one
    agent, on the Scorer's model (the default ``roles``)."""

    scripted_replies = (SCRIPTED_REPLIES,)  # canned replies for offline runs (scripted.py)
    name = "dialevalml"
    description = "DialEvalML: one short prompt per aspect (turn or dialogue level), score normalised to [0, 1]"
    config_type = DialEvalMLConfig
    Options = DialEvalMLOptions

    def build_config(self, options: DialEvalMLOptions, ctx: MethodContext) -> DialEvalMLConfig:
        """Dialogue data only (an own file counts: its inputs are checked per item)."""
        return DialEvalMLConfig(max_reasks=options.max_reasks, scale=options.dialevalml_scale or "paper")

    async def judge(self, task: EvaluationTask, config: DialEvalMLConfig, pool: ClientPool) -> Outcome:
        """One conversation per item and aspect."""
        return await run_dialevalml(task, config, pool)

    def describe(self, config: DialEvalMLConfig) -> dict[str, Any]:
        """Re-asks and scale."""
        return {"max_reasks": config.max_reasks, "scale": config.scale}

    def reparser(self, record: ResultRecord, reparse: Reparser) -> Reparser:
        """Answers read on the scale the prompt asked (``details.prompt_scale``), as the run read them."""
        return replace(reparse, scale=_scale_of(details_of(record).get("prompt_scale"), reparse.scale))

    def rescore(self, record: R, reparse: Reparser) -> R:
        """The last answer with a score (the re-asks' answers after the first), re-parsed on the prompt's scale
        (``reparse`` reads on it: ``reparser``); ``score_normalized`` follows."""
        details = details_of(record)
        answers = [i for i, e in enumerate(entries(record)) if e.get("agent") == EVALUATOR]
        chosen: ParsedScore | None = None
        for index in answers:  # the run asked again while an answer had no score: the last one stands
            chosen = reparse.entry(index)
            if chosen.ok:
                break
        if chosen is None:
            return record
        score = chosen.value if chosen.ok else None
        details["score_normalized"] = normalize(score, reparse.scale)
        return with_parse(record, chosen, score=score, details=details, score_normalized=details["score_normalized"])


def _scale_of(text: Any, fallback: ScoreRange) -> ScoreRange:
    """A stored ``"1-5"`` back as a ``ScoreRange``."""
    try:
        low, high = str(text).split("-", 1)
        return ScoreRange(float(low), float(high))
    except ValueError:
        return fallback
