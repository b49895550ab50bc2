"""Re-parse a pairwise record's verdicts from its transcript, as a run parses them (``debate-eval rescore``).

Every transcript entry that carries a ``verdict`` is parsed again (``verdict_text``: copies of the judged
texts and echoes of the instructions, read from the first message, blanked out; planted verdicts ignored).
Then the item's verdict is recomputed the way its method decided it, per order (``--swap`` records hold
both, each entry marked with its ``order``):

- one deciding agent (G-Eval's Evaluator, DEBATE's Scorer or Tie-breaker, ``decided_by``): its last answer
  before a re-ask, or the re-ask's answer when that one had no verdict; G-Eval samples (each started by a
  task message of the user) vote, a tie when split;
- ChatEval (``decided_by`` ``referees``): each referee's final verdict likewise, then the majority;
- Fennec (``decided_by`` ``branches``): each branch judgment's verdict, then the summed preferences;
- ChatEval's released FairEval flow (``--fidelity authors-code``): their aggregation of the stored scores
  of both orders (``debates/pairwise/faireval.py``).

With both orders, the swapped order's verdict is put back in the original order and the two are combined
(the agreeing one, a tie when they disagree); ``verdicts`` and ``consistent`` are rewritten.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

from debate_eval.debates.evaluation import verdict_text
from debate_eval.debates.fennec.merge import merge_verdicts
from debate_eval.debates.fennec.team import BRANCHES as FENNEC_BRANCHES
from debate_eval.debates.fennec.team import JUDGMENT
from debate_eval.debates.pairwise.aggregate import combine_orders, majority_verdict
from debate_eval.debates.pairwise.faireval import is_faireval_record, rescore_faireval
from debate_eval.debates.pairwise.prompts import judge_material
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict, planted_verdicts, swap_value

REASK = "reask"
REFEREES = "referees"


def _deciding(entries: Sequence[dict[str, Any]], agent: str, parse: Any) -> ParsedVerdict:
    """``agent``'s verdict in ``entries``: its last answer before a re-ask, or the re-ask's answer."""
    reask_at = next(
        (i for i, e in enumerate(entries) if e.get("relay") == REASK and e.get("to") in (agent, None)), None
    )
    before = [e for e in entries[: reask_at if reask_at is not None else len(entries)] if e.get("agent") == agent]
    after = [e for e in entries[reask_at + 1 :] if e.get("agent") == agent] if reask_at is not None else []
    first = parse(before[-1]) if before else no_verdict(f"No verdict: no answer of the {agent}.")
    if not first.ok and after:
        retry = parse(after[0])
        return retry if retry.ok else first
    return first


def _order_verdict(entries: Sequence[dict[str, Any]], decided_by: str, parse: Any) -> ParsedVerdict:
    if decided_by == FENNEC_BRANCHES:  # Fennec: the summed preferences of its branch judgments
        return merge_verdicts([parse(e) for e in entries if e.get("step") == JUDGMENT and "verdict" in e])
    if decided_by == REFEREES:
        referees = list(dict.fromkeys(str(e["agent"]) for e in entries if e.get("role") == "referee"))
        finals = {}
        for name in referees:
            own = [e for e in entries if e.get("agent") == name or (e.get("relay") == REASK and e.get("to") == name)]
            finals[name] = _deciding(own, name, parse)
        return majority_verdict(finals)
    starts = [i for i, e in enumerate(entries) if e.get("agent") == "user" and not e.get("relay")]
    if decided_by == "Evaluator" and len(starts) > 1:  # G-Eval samples: one session each
        bounds = [*starts, len(entries)]
        votes = {
            f"sample{k}": _deciding(entries[a:b], decided_by, parse)
            for k, (a, b) in enumerate(itertools.pairwise(bounds))
        }
        return majority_verdict(votes)
    return _deciding(entries, decided_by, parse)


def rescore_pairwise(record: dict[str, Any], texts: Sequence[str]) -> dict[str, Any]:
    """A copy of the pairwise ``record`` with every verdict parsed again from its transcript; ``texts`` are
    the item's judged texts (question, input, both responses)."""
    new = json.loads(json.dumps(record))
    if is_faireval_record(new):  # chateval --fidelity authors-code: their aggregation of the stored scores
        return rescore_faireval(new, texts)
    transcript = new.get("transcript") or []
    prompt = str(transcript[0].get("content", "")) if transcript else ""  # P (the panel's opening for ChatEval)
    if new.get("decided_by") == FENNEC_BRANCHES:  # Fennec: P with the instructions of its first judgment
        prompt = next((str(e.get("content", "")) for e in transcript if e.get("step") == JUDGMENT), prompt)
    material = judge_material(list(texts), prompt)
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
    decided_by = str(new.get("decided_by") or "")
    orders = list(dict.fromkeys(e.get("order") for e in transcript))
    if orders and orders != [None] and set(orders) == {"original", "swapped"}:
        original = _order_verdict([e for e in transcript if e.get("order") == "original"], decided_by, parse)
        swapped = _order_verdict([e for e in transcript if e.get("order") == "swapped"], decided_by, parse)
        back = (
            swapped
            if not swapped.ok
            else ParsedVerdict(swap_value(swapped.value), "parsed", swapped.method, swapped.reason)
        )
        parsed, consistent = combine_orders(original, back)
        new.update(verdicts={"original": original.value, "swapped": back.value}, consistent=consistent)
    else:
        parsed = _order_verdict(transcript, decided_by, parse)
    new.update(parsed.record_fields())
    return new
