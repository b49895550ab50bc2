"""``run_chateval``: run the panel of the configured fidelity and average the referees' final scores.

Final score: the mean of the referees' final scores, each read from the referee's *last* answer (after a
re-ask in ``paper`` mode; the last turn's accepted answer in ``authors-code`` mode) by
``scoring.referee_scores.referee_score``; a referee without a score on the scale is excluded; with no score at all the
outcome has no score (parse status ``no_score``).

Model settings: referees and summarizer use the Scorer's settings. A client override (``ClientPool``
``overrides``) for ``referee`` or ``summarizer`` wins; otherwise the Scorer's (shared) client is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import role_of
from debate_eval.debates.chateval.config import (
    DECIDED_BY,
    REFEREE,
    SUMMARIZER,
    SUMMARIZER_ROLE,
    ChatEvalConfig,
    referee_names,
)
from debate_eval.debates.chateval.faireval import RETRY_RELAY, run_faireval_panel
from debate_eval.debates.chateval.paper import run_paper_panel
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.record import ResultRecord, entries
from debate_eval.debates.scoring.faireval_scores import FAIREVAL_VERDICT
from debate_eval.debates.scoring.referee_scores import PAPER_LABEL, average_final_scores, referee_score
from debate_eval.debates.scoring.scores import ParsedScore


async def run_chateval(task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
    """Run the ChatEval discussion for ``task`` and average the referees' final scores."""
    calls: list[CallRecord] = []
    material = task.material()
    names = referee_names(config.referees)
    persona_of = dict(zip(names, config.referees, strict=True))
    their_evaluation = None
    if config.authors_code:
        discussion = await run_faireval_panel(task, config, pool, calls)
        ordered, their_evaluation = discussion.ordered, discussion.evaluation
        label = FAIREVAL_VERDICT
    else:
        ordered = await run_paper_panel(task, config, pool, calls)
        label = PAPER_LABEL
    messages = [m for m, _ in ordered]

    def parse_of(message: BaseChatMessage) -> ParsedScore:
        others = [n for n in names if n != message.source]
        return referee_score(message.to_text(), task, material, label=label, others=others)

    def parse(message: BaseChatMessage) -> ParsedScore | None:
        return parse_of(message) if message.source in persona_of else None

    transcript = build_transcript(messages, calls, parse)
    label_panel(transcript, calls, ordered, persona_of)

    answers = [m for m in messages if m.source in persona_of and m.metadata.get("relay") != RETRY_RELAY]
    last = {m.source: m for m in answers if m.metadata.get("relay") is None or m.to_text()}
    finals = {name: parse_of(last[name]) for name in names}
    score, parsed, excluded = average_final_scores(finals)
    details: dict[str, Any] = {
        **panel_details(config.fidelity, config, persona_of),
        "final_scores": {name: p.value for name, p in finals.items()},
        "final_parse_status": {name: p.status for name, p in finals.items()},
        "excluded": excluded,
        "reasks": sum(1 for m in messages if m.metadata.get("relay") in ("reask", RETRY_RELAY)),
    }
    if their_evaluation is not None:  # their get_evaluation: a referee that failed every attempt is "[Silence]"
        details["their_evaluation"] = their_evaluation
    return Outcome(
        score=score,
        parse=parsed,
        decided_by=DECIDED_BY,
        stop_reason="turns_done",
        transcript=transcript,
        calls=calls,
        rounds=config.turns,
        details=details,
    )


def rescored_finals(record: ResultRecord, reparse: Any) -> dict[str, ParsedScore]:
    """``rescore``: each referee's final answer in a stored record, read again as the run reads it (its own
    verdict line of the record's fidelity; rejected authors-code attempts skipped)."""
    transcript = entries(record)
    label = FAIREVAL_VERDICT if (record.details or {}).get("fidelity") == "authors-code" else PAPER_LABEL
    last: dict[str, str] = {}
    for entry in transcript:
        if entry.get("role") == REFEREE and entry.get("relay") != RETRY_RELAY:
            last[str(entry["agent"])] = str(entry.get("content", ""))
    task = EvaluationTask(str(record.item_id), "", reparse.aspect or "", reparse.scale, ())
    return {
        name: referee_score(text, task, reparse.material, label=label, others=[n for n in last if n != name])
        for name, text in last.items()
    }


def panel_details(fidelity: str, config: ChatEvalConfig, persona_of: Mapping[str, Any]) -> dict[str, Any]:
    """The details every ChatEval record starts with: the fidelity, the panel's strategy and turns, the
    referees' roles and each referee's persona."""
    return {
        "fidelity": fidelity,
        "strategy": config.strategy,
        "turns": config.turns,
        "roles": [p.name for p in config.referees],
        "referees": {name: persona.name for name, persona in persona_of.items()},
    }


def label_panel(
    transcript: list[dict[str, Any]],
    calls: list[CallRecord],
    ordered: Sequence[tuple[Any, int]],
    persona_of: Mapping[str, Any],
) -> None:
    """Label a panel's transcript entries and calls with the panel's roles (referee with its persona,
    summarizer) and each entry with its discussion turn; ``ordered`` pairs each message with its turn."""
    labels = {role_of(name): REFEREE for name in persona_of} | {role_of(SUMMARIZER): SUMMARIZER_ROLE}
    for call in calls:  # the calls were recorded per agent, so that each message gets its own call's flags
        call.role = labels.get(call.role, call.role)
    for entry, (_, turn) in zip(transcript, ordered, strict=True):
        entry["turn"] = turn
        if entry["agent"] in persona_of:
            entry["role"] = REFEREE
            entry["persona"] = persona_of[entry["agent"]].name
        elif entry["agent"] == SUMMARIZER:
            entry["role"] = SUMMARIZER_ROLE
