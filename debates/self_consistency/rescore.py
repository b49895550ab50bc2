"""What one sample brings to self-consistency's combination (``sample_vote``: a run and ``rescore`` both combine
these), and re-reading a record (``rescore``): each sample is a record of the base method of its own (its
transcript entries, its stored results), re-read by the base method's rescore; then combined again."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from debate_eval.debates.base import Method, Reparser, get_method, with_parse
from debate_eval.debates.kit.combine import MAJORITY, combine_scores, combine_verdicts
from debate_eval.debates.kit.reread import combine_both_orders
from debate_eval.debates.pairwise.swap import ORIGINAL, SWAPPED
from debate_eval.debates.record import R, ResultRecord, details_of, entries
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict


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
