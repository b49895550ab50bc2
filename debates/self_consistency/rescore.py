"""Re-reading a self-consistency record (``rescore``): each sample is a record of the base method of its own
(its transcript entries, its stored results), re-read by the base method's rescore; then combined again."""

from __future__ import annotations

import json
from typing import Any

from debate_eval.debates.base import Reparser, get_method, set_parse
from debate_eval.debates.kit.combine import combine_scores, combine_verdicts
from debate_eval.debates.kit.reread import combine_both_orders
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict

SHARED = ("item_id", "dataset", "aspect", "task_type", "method")  # a sample's record shares these with the item
ORDERS = ("original", "swapped")


def sample_record(record: dict[str, Any], result: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Sample ``result`` as the record the base method wrote for it (``entries``: its transcript entries)."""
    parse = result.get("parse") or {}
    return {
        **{key: record[key] for key in SHARED if key in record},
        "score": result.get("score"),
        "verdict": result.get("verdict"),
        "parse_status": parse.get("status"),
        "parse_method": parse.get("method"),
        "parse_reason": parse.get("reason"),
        "decided_by": result.get("decided_by"),
        "stop_reason": result.get("stop_reason"),
        "agreed": result.get("agreed"),
        "rounds": result.get("rounds"),
        "reasked": result.get("reasked"),
        "details": result.get("details") or {},
        "transcript": entries,
    }


def rescore_samples(record: dict[str, Any], reparse: Reparser) -> dict[str, Any]:
    """A single record: each sample's score re-read by the base method (its entries are ``record``'s, so what
    the base method writes into them stays), the score combined again."""
    details = record.get("details") or {}
    base = get_method(str(details.get("base")))
    transcript = record.get("transcript") or []
    parses: list[ParsedScore] = []
    for k, result in enumerate(details.get("sample_results") or []):
        entries = [entry for entry in transcript if entry.get("sample") == k]
        sub = sample_record(record, result, entries)
        sub = base.rescore(sub, Reparser(entries, reparse.scale, reparse.aspect, reparse.material))
        status, method, reason = (str(sub.get(key) or "") for key in ("parse_status", "parse_method", "parse_reason"))
        parsed = ParsedScore(sub.get("score") if status == "parsed" else None, status, method, reason)
        result.update(score=sub.get("score"), parse=parsed.to_dict(), details=sub.get("details") or {})
        parses.append(parsed)
    if not parses:
        return record
    combined = combine_scores(parses, str(details.get("combine")))
    record["score"] = combined.value
    set_parse(record, combined)
    return record


def _sample_verdicts(entries: list[dict[str, Any]], details: dict[str, Any], texts: list[str]) -> ParsedVerdict:
    """One order's verdict: each sample's re-read by the base method's pairwise rescore, combined."""
    base = get_method(str(details.get("base")))
    parses: list[ParsedVerdict] = []
    for k, result in enumerate(details.get("sample_results") or []):
        own = [entry for entry in entries if entry.get("sample") == k]
        plain = [{key: value for key, value in entry.items() if key != "order"} for entry in own]
        again = base.rescore_pairwise(sample_record({"task_type": "pairwise"}, result, plain), texts)
        for entry, reread in zip(own, again.get("transcript") or [], strict=False):
            if "verdict" in reread:
                entry["verdict"] = reread["verdict"]
        verdict = again.get("verdict")
        parsed = (
            ParsedVerdict(verdict, "parsed", str(again.get("parse_method")), str(again.get("parse_reason")))
            if verdict is not None
            else no_verdict(str(again.get("parse_reason") or "No verdict."))
        )
        result.update(verdict=parsed.value, parse=parsed.to_dict(), details=again.get("details") or {})
        parses.append(parsed)
    return combine_verdicts(parses, str(details.get("combine")))


def rescore_samples_pairwise(record: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """A copy of the pairwise ``record`` with every sample's verdict re-read and combined again; with both
    orders (``--swap``), each order's, then the two combined as the run combined them."""
    new = json.loads(json.dumps(record))
    transcript = new.get("transcript") or []
    details = new.get("details") or {}
    orders = details.get("orders")
    if isinstance(orders, dict) and set(orders) == set(ORDERS):
        found = {
            order: _sample_verdicts(
                [e for e in transcript if e.get("order") == order], orders[order].get("details") or {}, texts
            )
            for order in ORDERS
        }
        parsed = combine_both_orders(new, found["original"], found["swapped"])
    else:
        parsed = _sample_verdicts(transcript, details, texts)
    new.update(parsed.record_fields())
    return new
