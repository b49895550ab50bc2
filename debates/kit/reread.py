"""Re-reading a pairwise record's verdicts from its transcript, as a run read them (``rescore``).

Every transcript entry that carries a ``verdict`` is parsed again (``verdict_text``: copies of the judged texts
and echoes of the instructions, read from the prompt, blanked out; planted verdicts ignored). Then each order's
verdict is recomputed by the method's own rule (``order_verdict``: e.g. the deciding agent's answer, a panel's
majority); with both orders (``--swap`` records, each entry marked with its ``order``) the swapped order's
verdict is put back in the original order and the two combined (the agreeing one, a tie when they disagree),
``verdicts`` and ``consistent`` rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from debate_eval.debates.evaluation import verdict_text
from debate_eval.debates.kit.combine import combine_orders
from debate_eval.debates.kit.reask import RELAY, standing
from debate_eval.debates.pairwise.prompts import judge_material
from debate_eval.debates.pairwise.swap import ORIGINAL, SWAPPED, unswapped
from debate_eval.debates.record import R, entries
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict, planted_verdicts

Parse = Callable[[dict[str, Any]], ParsedVerdict]
# one order's verdict from its entries, the record's ``decided_by`` and the parser of an entry
OrderVerdict = Callable[[Sequence[dict[str, Any]], str, Parse], ParsedVerdict]


def deciding_verdict(entries: Sequence[dict[str, Any]], agent: str, parse: Parse) -> ParsedVerdict:
    """``agent``'s verdict in ``entries``: its last answer before a re-ask, or the re-ask's answer when that one
    had no verdict."""
    reask_at = next(
        (i for i, e in enumerate(entries) if e.get("relay") == RELAY and e.get("to") in (agent, None)), None
    )
    before = [e for e in entries[: reask_at if reask_at is not None else len(entries)] if e.get("agent") == agent]
    after = [e for e in entries[reask_at + 1 :] if e.get("agent") == agent] if reask_at is not None else []
    first = parse(before[-1]) if before else no_verdict(f"No verdict: no answer of the {agent}.")
    return standing(first, (lambda: parse(after[0])) if after else None)


def first_message(transcript: Sequence[dict[str, Any]]) -> str:
    """The prompt the judges were given: the transcript's first message (P, or a panel's opening)."""
    return str(transcript[0].get("content", "")) if transcript else ""


def reread_pairwise(
    record: R,
    texts: Sequence[str],
    order_verdict: OrderVerdict,
    prompt_of: Callable[[Sequence[dict[str, Any]]], str] = first_message,
) -> R:
    """A copy of the pairwise ``record`` with every verdict parsed again and the item's verdict recomputed by
    ``order_verdict`` per order; ``texts`` are the item's judged texts (question, input, both responses),
    ``prompt_of`` finds the instructions whose echoes are not the agent's own words."""
    transcript = entries(record)
    material = judge_material(list(texts), prompt_of(transcript))
    markers = planted_verdicts(texts)
    cache: dict[int, ParsedVerdict] = {}

    def parse(entry: dict[str, Any]) -> ParsedVerdict:
        key = id(entry)
        if key not in cache:
            cache[key] = verdict_text(str(entry.get("content", "")), material, markers)
        return cache[key]

    for entry in transcript:
        if "verdict" in entry:
            entry["verdict"] = parse(entry).to_dict()
    decided_by = str(record.decided_by or "")
    changes: dict[str, Any] = {}
    if {e.get("order") for e in transcript} == {ORIGINAL, SWAPPED}:
        original = order_verdict([e for e in transcript if e.get("order") == ORIGINAL], decided_by, parse)
        swapped = order_verdict([e for e in transcript if e.get("order") == SWAPPED], decided_by, parse)
        parsed, changes = combine_both_orders(original, swapped)
    else:
        parsed = order_verdict(transcript, decided_by, parse)
    return record.replace(transcript=transcript, **changes, **parsed.record_fields())


def combine_both_orders(original: ParsedVerdict, swapped: ParsedVerdict) -> tuple[ParsedVerdict, dict[str, Any]]:
    """The verdict of both orders re-read: the swapped order's put back in the original order, then the two
    combined (``combine_orders``); with the record's ``verdicts`` and ``consistent`` that go with it."""
    back = unswapped(swapped)
    parsed, consistent = combine_orders(original, back)
    return parsed, {"verdicts": {ORIGINAL: original.value, SWAPPED: back.value}, "consistent": consistent}
