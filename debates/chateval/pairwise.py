"""ChatEval's pairwise form: its FairEval setting (Chan et al. 2023, Section 3.4, Appendix A and B).

The same panel as for scores (``debates.chateval.paper.run_paper_panel``, ``--fidelity paper``, Algorithms
1-3), started from P (the question and both responses) with the pairwise referee instructions (``panel.txt``);
the summarizer, when there is one, records verdicts instead of scores (``summarizer.txt``). The referees'
role descriptions are ChatEval's own, which already ask for the better of two responses.

Verdict: each referee's last message is parsed (``verdict_text``); a referee whose last message has no
verdict is asked once more for it alone (``reask.txt``); the item's verdict is the majority of the referees'
verdicts, a tie when the panel is split (``kit.combine.majority_verdict``), no verdict when no referee gave one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.debates.chateval.config import DECIDED_BY, ChatEvalConfig, referee_names
from debate_eval.debates.chateval.paper import run_paper_panel
from debate_eval.debates.chateval.run import label_panel, panel_details
from debate_eval.debates.evaluation import EvaluationTask, Outcome, planted, verdict_text
from debate_eval.debates.kit.combine import majority_verdict
from debate_eval.debates.kit.reask import RELAY
from debate_eval.debates.kit.reread import Parse, deciding_verdict
from debate_eval.debates.kit.transcript import pairwise_transcript
from debate_eval.debates.pairwise.prompts import judge_material, prompt_text, reask_text
from debate_eval.debates.scoring.verdicts import ParsedVerdict

REASK_LIMIT = 1  # a referee whose final message has no verdict is asked once more


async def run_chateval_pairwise(task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
    """Run the ChatEval discussion on ``task``'s two responses; the verdict is the referees' majority."""
    if config.fidelity != "paper":
        raise ValueError(
            f"--fidelity {config.fidelity} has no pairwise form here (the released FairEval flow scores each "
            "response 1-10); use --fidelity paper"
        )
    calls: list[CallRecord] = []
    material = judge_material(task.untrusted, task.prompt)  # the responses and the instructions
    markers = planted(task)
    names = referee_names(config.referees)
    persona_of = dict(zip(names, config.referees, strict=True))
    ordered = await run_paper_panel(
        task,
        config,
        pool,
        calls,
        opening=f"{task.prompt}\n\n{prompt_text('panel.txt').format(count=len(names))}",  # P, the instructions
        summarizer_message=prompt_text("summarizer.txt"),
        answered=lambda text, _others: verdict_text(text, material, markers).ok,
        reask=reask_text(),
        reask_limit=REASK_LIMIT,
    )
    messages: list[BaseChatMessage] = [message for message, _ in ordered]
    reasked = [str(m.metadata.get("to")) for m in messages if m.metadata.get("relay") == RELAY]
    last = {m.source: m for m in messages if m.source in persona_of}
    finals: dict[str, ParsedVerdict] = {name: verdict_text(last[name].to_text(), material, markers) for name in names}

    transcript = pairwise_transcript(messages, calls, set(persona_of), material, markers)
    label_panel(transcript, calls, ordered, persona_of)
    verdict = majority_verdict(finals)
    details: dict[str, Any] = {
        **panel_details(config, persona_of),
        "final_verdicts": {name: p.value for name, p in finals.items()},
        "final_parse_status": {name: p.status for name, p in finals.items()},
        "reasked_referees": reasked,
    }
    return Outcome.for_verdict(
        verdict,
        decided_by=DECIDED_BY,
        stop_reason="turns_done",
        transcript=transcript,
        calls=calls,
        rounds=config.turns,
        reasked=bool(reasked),
        details=details,
    )


def referees_verdict(entries: Sequence[dict[str, Any]], decided_by: str, parse: Parse) -> ParsedVerdict:
    """One order's verdict re-read (``rescore``): each referee's final verdict (its last answer, or its re-ask's
    answer when that had none), then the majority, a tie when the panel is split."""
    referees = list(dict.fromkeys(str(e["agent"]) for e in entries if e.get("role") == "referee"))
    finals = {}
    for name in referees:
        own = [e for e in entries if e.get("agent") == name or (e.get("relay") == RELAY and e.get("to") == name)]
        finals[name] = deciding_verdict(own, name, parse)
    return majority_verdict(finals)
