"""``run_chateval``: run the panel of the configured fidelity and average the referees' final scores.

Final score: the mean of the referees' final scores, each read from the referee's *last* answer (after a
re-ask in ``paper`` mode; the last turn's accepted answer in ``authors-code`` mode) by
``referee_scores.referee_score``; a referee without a score on the scale is excluded; with no score at all the
outcome has no score (parse status ``no_score``). Referees and summarizer use the Scorer's model settings
unless the role has a client of its own (``panel._client``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

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
from debate_eval.debates.chateval.faireval_scores import FAIREVAL_VERDICT
from debate_eval.debates.chateval.paper import run_paper_panel
from debate_eval.debates.chateval.referee_scores import PAPER_LABEL, average_final_scores, referee_score
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.fidelity import AUTHORS_CODE
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.record import ResultRecord, entries
from debate_eval.debates.scoring.scores import ParsedScore

if TYPE_CHECKING:
    from debate_eval.debates.method import Reparser
    from debate_eval.debates.scoring.untrusted import UntrustedMaterial


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
        return referee_reading(message.to_text(), message.source, names, task, material, label)

    def parse(message: BaseChatMessage) -> ParsedScore | None:
        return parse_of(message) if message.source in persona_of else None

    transcript = build_transcript(messages, calls, parse)
    label_panel(transcript, calls, ordered, persona_of)

    last = final_answers([(m.source, m.metadata.get("relay"), m.to_text()) for m in messages], names)
    finals = {name: parse_of(messages[last[name]]) for name in names}
    score, parsed, excluded = average_final_scores(finals)
    details: dict[str, Any] = {
        **panel_details(config, persona_of),
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


def referee_reading(
    text: str, name: str, names: Sequence[str], task: EvaluationTask, material: UntrustedMaterial, label: str
) -> ParsedScore:
    """Referee ``name``'s score in one of its messages, as a run reads it and ``rescore`` reads it again: its own
    verdict line (``label``), the other referees of the panel (``names``) not taken for its own words."""
    return referee_score(text, task, material, label=label, others=[n for n in names if n != name])


def final_answers(messages: Sequence[tuple[str, str | None, str]], names: Sequence[str]) -> dict[str, int]:
    """The position of each referee's final answer among ``messages`` (each: its agent, relay and text): its
    last message that is no rejected authors-code attempt and no empty relayed message."""
    last: dict[str, int] = {}
    for index, (agent, relay, text) in enumerate(messages):
        if agent in names and relay != RETRY_RELAY and (relay is None or text):
            last[agent] = index
    return last


def panel_names(record: ResultRecord) -> list[str]:
    """A stored panel's referees, in the panel's order (as its run named them)."""
    referees = (record.details or {}).get("referees")
    if isinstance(referees, Mapping):
        return [str(name) for name in referees]
    return list(dict.fromkeys(str(e["agent"]) for e in entries(record) if e.get("role") == REFEREE))


def referee_reparser(record: ResultRecord, reparse: Reparser) -> Reparser:
    """``reparse`` reading each referee's message as the run read it (``referee_reading``, with the verdict
    label of the panel's fidelity; other messages as usual)."""
    names = panel_names(record)
    label = FAIREVAL_VERDICT if (record.details or {}).get("fidelity") == AUTHORS_CODE else PAPER_LABEL
    task = EvaluationTask(str(record.item_id), "", reparse.aspect or "", reparse.scale, ())

    def read(rp: Reparser, entry: dict[str, Any]) -> ParsedScore:
        agent = str(entry.get("agent"))
        if agent not in names:
            return rp.text(str(entry.get("content", "")))
        return referee_reading(str(entry.get("content", "")), agent, names, task, rp.material, label)

    return replace(reparse, read_entry=read)


def rescored_finals(record: ResultRecord, reparse: Reparser) -> dict[str, ParsedScore]:
    """``rescore``: each referee's final answer in a stored record (``final_answers``), read again by
    ``reparse`` (``referee_reparser``: as the run read it), in the panel's order."""
    transcript = entries(record)
    names = panel_names(record)
    found = [(str(e.get("agent")), e.get("relay"), str(e.get("content", ""))) for e in transcript]
    last = final_answers(found, names)
    return {name: reparse.read(transcript[last[name]]) for name in names if name in last}


def panel_details(config: ChatEvalConfig, persona_of: Mapping[str, Any]) -> dict[str, Any]:
    """The details every ChatEval record starts with: the fidelity, the panel's strategy and turns, the
    referees' roles and each referee's persona."""
    return {
        "fidelity": config.fidelity,
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
