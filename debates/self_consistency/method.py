"""``self-consistency``: K independent samples of a base method's judge per item, combined.

The standard self-consistency / jury baseline (Wang et al. 2023, self-consistency: sample several answers and
take the majority; Verga et al. 2024, a jury of judges: pool their scores or votes): the base method
(``--sc-base``, any registered method, default ``geval``) judges the item ``--sc-samples`` times, each sample a
fresh model call (its own cache variant and seed, ``debates.kit.samples``), and the samples are combined
(``--sc-combine``, ``debates.kit.combine``): the mean or the majority of the scores, the majority of the
verdicts (a tie when split) or their mean preference. The base method's own options apply to every sample
(``--sc-base debate --max-rounds 3``).

The record's transcript holds every sample's messages, each entry marked with its ``sample`` (from 0);
``details`` holds the base method's name, the combination, and per sample its score or verdict and what the
base method recorded (``sample_results``: its ``score`` as the base method gives it and its ``parse``, whose
``value`` is the value its answer parsed to, before any weighting), which ``rescore`` reads back through the base
method's own rescore and ``answer_value``. ``majority`` votes on the parsed answers, ``mean`` averages the scores
(``sample_vote``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import (
    Method,
    MethodContext,
    Reparser,
    get_method,
    option,
    positive_int,
    register_method,
    with_parse,
)
from debate_eval.debates.evaluation import EvaluationTask, Outcome, marked_transcript
from debate_eval.debates.kit.combine import COMBINES, MAJORITY, MEAN, combine_scores, combine_verdicts
from debate_eval.debates.kit.confidence import Confidence, agreement, parsed_vote
from debate_eval.debates.kit.reread import combine_both_orders
from debate_eval.debates.kit.samples import SamplePool, identical_samples_warning
from debate_eval.debates.pairwise.swap import ORIGINAL, SWAPPED
from debate_eval.debates.record import R, ResultRecord, details_of, entries
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool

NAME = "self-consistency"
DECIDED_BY = "samples"  # Outcome.decided_by: the combined samples, not one agent's answer
DEFAULT_BASE = "geval"
DEFAULT_SAMPLES = 5


@dataclass(frozen=True)
class SelfConsistencyOptions:
    """Self-consistency's options (the base method's own options apply to each sample)."""

    sc_base: str = option(
        DEFAULT_BASE,
        metavar="METHOD",
        help=f"self-consistency: the method whose judge is sampled (default {DEFAULT_BASE}; its own options apply)",
    )
    sc_samples: int = option(
        DEFAULT_SAMPLES,
        convert=positive_int,
        help=f"self-consistency: K, the samples per item, each a fresh call (default {DEFAULT_SAMPLES})",
    )
    sc_combine: str | None = option(
        choices=COMBINES,
        help="self-consistency: how the samples combine (default: mean of the scores, majority of the verdicts, "
        "a tie when split)",
    )


@dataclass(frozen=True)
class SelfConsistencyConfig:
    """The base method and its configuration, the samples per item and how they combine."""

    base: str
    base_config: Any
    samples: int = DEFAULT_SAMPLES
    combine: str = MEAN

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json (the base method's config included: it changes the results)."""
        base = get_method(self.base)
        return {
            "base": self.base,
            "samples": self.samples,
            "combine": self.combine,
            "base_config": base.config_dict(self.base_config),
        }


def sample_result(outcome: Outcome) -> dict[str, Any]:
    """What a record keeps of one sample besides its messages (what the base method's rescore reads): its
    ``score`` (the base method's) and its ``parse`` (its parsed answer's value, status, method and reason)."""
    parse = outcome.verdict_parse if outcome.verdict_parse is not None else outcome.parse
    return {
        "score": outcome.score,
        "verdict": outcome.verdict,
        "parse": parse.to_dict(),
        **outcome.run_fields(),
    }


def samples_fields(outcomes: list[Outcome], config: SelfConsistencyConfig) -> dict[str, Any]:
    """The ``Outcome`` fields the samples share, score or verdict aside: every sample's messages (marked with
    ``sample``), every call, each sample's result in ``details``."""
    details = {
        "base": config.base,
        "combine": config.combine,
        "samples": config.samples,
        "sample_results": [sample_result(outcome) for outcome in outcomes],
    }
    return {
        "decided_by": DECIDED_BY,
        "stop_reason": "samples",
        "transcript": marked_transcript(({"sample": k}, outcome.transcript) for k, outcome in enumerate(outcomes)),
        "calls": [call for outcome in outcomes for call in outcome.calls],
        "reasked": any(outcome.reasked for outcome in outcomes),
        "details": details,
    }


# re-reading a record (``rescore``): each sample is a record of the base method of its own (its transcript
# entries, its stored results), re-read by the base method's rescore; then combined again


def answer_reading(answer: float | None, status: str, method: str, reason: str) -> ParsedScore:
    """One sample's parsed answer, from what its base method's record says (``answer``: ``answer_value``, the
    value its answer parsed to, before any weighting) and how it was parsed; no value unless it was parsed."""
    if status == "parsed" and answer is not None:
        return ParsedScore(float(answer), status, method, reason)
    return ParsedScore(None, status if status != "parsed" else "no_score", method, reason)


def sample_vote(score: float | None, answer: ParsedScore, combine: str) -> ParsedScore:
    """What one sample brings to the combination (a run and ``rescore`` both combine these): for ``majority``
    its parsed answer (``answer``: a G-Eval sample's parsed integer, never its probability-weighted score, so
    the samples vote on the answers they gave); for ``mean`` its ``score`` as its base method gives it (a
    G-Eval sample's probability-weighted score when it was weighted). No score unless its answer was parsed."""
    if combine == MAJORITY or not answer.ok:
        return answer
    if score is None:
        return ParsedScore(None, "no_score", answer.method, answer.reason)
    return ParsedScore(float(score), answer.status, answer.method, answer.reason)


def sample_record(record: R, result: dict[str, Any], sample_entries: list[dict[str, Any]]) -> R:
    """Sample ``result`` as the record the base method wrote for it (``sample_entries``: its transcript
    entries): the item's record with the sample's results in place of the combined ones."""
    parse = result.get("parse") or {}
    return record.replace(
        score=result.get("score"),
        verdict=result.get("verdict"),
        verdicts=None,
        consistent=None,
        parse_status=parse.get("status"),
        parse_method=parse.get("method"),
        parse_reason=parse.get("reason"),
        decided_by=result.get("decided_by"),
        stop_reason=result.get("stop_reason"),
        agreed=result.get("agreed"),
        rounds=result.get("rounds"),
        reasked=result.get("reasked"),
        details=result.get("details") or {},
        transcript=sample_entries,
    )


def _sample_reparsers(record: ResultRecord, reparse: Reparser) -> dict[int, tuple[Method, Reparser, list[int]]]:
    """Per sample k: its base method, the reparser its base method's run read it with (over the sample's own
    entries) and the positions of those entries in the record's transcript."""
    details = details_of(record)
    base = get_method(str(details.get("base")))
    transcript = reparse.transcript
    found: dict[int, tuple[Method, Reparser, list[int]]] = {}
    for k, result in enumerate(details.get("sample_results") or []):
        positions = [i for i, entry in enumerate(transcript) if entry.get("sample") == k]
        own = [transcript[i] for i in positions]
        generic = replace(reparse, transcript=own, read_entry=None)
        found[k] = (base, base.reparser(sample_record(record, result, own), generic), positions)
    return found


def samples_reparser(record: ResultRecord, reparse: Reparser) -> Reparser:
    """``reparse`` reading each sample's entries as its base method's run read them."""
    readers = _sample_reparsers(record, reparse)

    def read(rp: Reparser, entry: dict[str, Any]) -> ParsedScore:
        sample = entry.get("sample")
        if isinstance(sample, int) and sample in readers:
            return readers[sample][1].read(entry)
        return rp.text(str(entry.get("content", "")))

    return replace(reparse, read_entry=read)


def rescore_samples(record: R, reparse: Reparser) -> R:
    """A single record: each sample's score re-read by the base method (what it writes into the sample's
    transcript entries is kept) and its parsed answer (``answer_value``), then combined again as the run
    combined them (``sample_vote``, in sample order)."""
    details = details_of(record)
    transcript = entries(record)
    readers = _sample_reparsers(record, replace(reparse, transcript=transcript))
    combine = str(details.get("combine"))
    parses: list[ParsedScore] = []
    for k, result in enumerate(details.get("sample_results") or []):
        base, own_reparse, positions = readers[k]
        sub = base.rescore(sample_record(record, result, own_reparse.transcript), own_reparse)
        for i, entry in zip(positions, entries(sub), strict=True):
            transcript[i] = entry
        status, method, reason = (str(value or "") for value in (sub.parse_status, sub.parse_method, sub.parse_reason))
        answer = answer_reading(base.answer_value(sub, own_reparse), status, method, reason)
        result.update(score=sub.score, parse=answer.to_dict(), details=dict(sub.details or {}))
        parses.append(sample_vote(sub.score, answer, combine))
    if not parses:
        return record
    combined = combine_scores(parses, combine)
    return with_parse(record, combined, score=combined.value, details=details, transcript=transcript)


def _sample_verdicts(
    record: R, order_entries: list[dict[str, Any]], details: dict[str, Any], texts: list[str]
) -> ParsedVerdict:
    """One order's verdict: each sample's re-read by the base method's pairwise rescore, combined (each
    sample's results in ``details`` and its entries' verdicts are rewritten)."""
    base = get_method(str(details.get("base")))
    parses: list[ParsedVerdict] = []
    for k, result in enumerate(details.get("sample_results") or []):
        own = [entry for entry in order_entries if entry.get("sample") == k]
        plain = [{key: value for key, value in entry.items() if key != "order"} for entry in own]
        again = base.rescore_pairwise(sample_record(record.replace(task_type="pairwise"), result, plain), texts)
        for entry, reread in zip(own, entries(again), strict=False):
            if "verdict" in reread:
                entry["verdict"] = reread["verdict"]
        parsed = (
            ParsedVerdict(again.verdict, "parsed", str(again.parse_method), str(again.parse_reason))
            if again.verdict is not None
            else no_verdict(str(again.parse_reason or "No verdict."))
        )
        result.update(verdict=parsed.value, parse=parsed.to_dict(), details=dict(again.details or {}))
        parses.append(parsed)
    return combine_verdicts(parses, str(details.get("combine")))


def rescore_samples_pairwise(record: R, texts: list[str]) -> R:
    """A copy of the pairwise ``record`` with every sample's verdict re-read and combined again; with both
    orders (``--swap``), each order's, then the two combined as the run combined them."""
    transcript = entries(record)
    details = details_of(record)
    orders = details.get("orders")
    changes: dict[str, Any] = {}
    if isinstance(orders, dict) and set(orders) == {ORIGINAL, SWAPPED}:
        found = {
            order: _sample_verdicts(
                record,
                [e for e in transcript if e.get("order") == order],
                orders[order].get("details") or {},
                texts,
            )
            for order in (ORIGINAL, SWAPPED)
        }
        parsed, changes = combine_both_orders(found[ORIGINAL], found[SWAPPED])
    else:
        parsed = _sample_verdicts(record, transcript, details, texts)
    return record.replace(transcript=transcript, details=details, **changes, **parsed.record_fields())


@register_method
class SelfConsistencyMethod(Method[SelfConsistencyConfig]):
    """``self-consistency``: K samples of a base method's judge, combined by mean or majority."""

    name = NAME
    description = "Self-consistency / jury: K samples of a base method's judge, mean or majority"
    config_type = SelfConsistencyConfig
    Options = SelfConsistencyOptions

    def build_config(self, options: SelfConsistencyOptions, ctx: MethodContext) -> SelfConsistencyConfig:
        """The base method configured from the same options, K and the combination."""
        if options.sc_base == NAME:
            raise UserError("--sc-base: self-consistency samples another method's judge, not itself")
        base = get_method(options.sc_base)
        if ctx.task_type not in base.task_types:
            raise UserError(f"--sc-base {base.name}: it has no {ctx.task_type} form")
        combine = options.sc_combine or (MAJORITY if ctx.task_type == "pairwise" else MEAN)
        return SelfConsistencyConfig(base.name, base.configure(ctx.options, ctx), options.sc_samples, combine)

    def sampled_method(self, values: Mapping[str, Any]) -> str | None:
        """The base method (``--sc-base``)."""
        return str(values.get("sc_base") or DEFAULT_BASE)

    def roles(self, config: SelfConsistencyConfig) -> tuple[str, ...]:
        """The base method's roles."""
        return get_method(config.base).roles(config.base_config)

    async def judge(self, task: EvaluationTask, config: SelfConsistencyConfig, pool: ClientPool) -> Outcome:
        """The base method's ``judge`` on ``task`` once per sample; the scores combined."""
        outcomes = await _samples(get_method(config.base).judge, task, config, pool)
        votes = [sample_vote(outcome.score, outcome.parse, config.combine) for outcome in outcomes]
        parsed = combine_scores(votes, config.combine)
        return Outcome(score=parsed.value, parse=parsed, **samples_fields(outcomes, config))

    async def judge_pair(self, task: EvaluationTask, config: SelfConsistencyConfig, pool: ClientPool) -> Outcome:
        """The base method's ``judge_pair`` on ``task`` once per sample (one order); the verdicts combined."""
        outcomes = await _samples(get_method(config.base).judge_pair, task, config, pool)
        parses = [o.verdict_parse for o in outcomes if o.verdict_parse is not None]
        return Outcome.for_verdict(combine_verdicts(parses, config.combine), **samples_fields(outcomes, config))

    def describe(self, config: SelfConsistencyConfig) -> dict[str, Any]:
        """Base method, samples, combination."""
        return {"base": config.base, "samples": config.samples, "combine": config.combine}

    def warnings(self, config: SelfConsistencyConfig, temperature: float) -> list[str]:
        """The base method's warnings; identical samples at temperature 0."""
        found = list(get_method(config.base).warnings(config.base_config, temperature))
        warning = identical_samples_warning("--sc-samples", config.samples, temperature, "independent samples")
        return [*found, warning] if warning else found

    # re-reading: each sample's messages as its base method's run read them, each sample re-read
    # by the base method's rescore (pairwise: per order), then combined again
    reparser = staticmethod(samples_reparser)
    rescore = staticmethod(rescore_samples)
    rescore_pairwise = staticmethod(rescore_samples_pairwise)

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """The samples' agreement: the share of the K samples (``details["sample_results"]``) that gave the most
        common verdict or parsed answer (an unparsed sample counts as disagreeing)."""
        results = (record.details or {}).get("sample_results") or []
        if record.task_type == "pairwise":
            return agreement((r.get("verdict") for r in results), "samples")
        return agreement((parsed_vote(result.get("parse") or {}) for result in results), "samples")


async def _samples(
    judge: Callable[[EvaluationTask, Any, ClientPool], Awaitable[Outcome]],
    task: EvaluationTask,
    config: SelfConsistencyConfig,
    pool: ClientPool,
) -> list[Outcome]:
    """``judge`` (a base method's ``judge`` or ``judge_pair``) on ``task`` once per sample, one after the other,
    each through its ``SamplePool``."""
    return [await judge(task, config.base_config, SamplePool(pool, k, config.samples)) for k in range(config.samples)]  # type: ignore[arg-type]
