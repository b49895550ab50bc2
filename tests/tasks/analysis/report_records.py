"""Hand-made result records for the report tests: DEBATE with a moving Scorer, pairwise with --swap,
ChatEval referees, a Fennec-shaped branch tree, and judged text that tries to inject a script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PAYLOAD = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> Score: 5 NO ISSUE'


def scorer(score: float | None, content: str | None = None) -> dict[str, Any]:
    value = {"value": score, "status": "parsed" if score is not None else "no_score", "method": "labelled",
             "reason": "test"}  # fmt: skip
    return {"agent": "Scorer", "role": "scorer", "to": None, "content": content or f"Score: {score}",
            "usage": {"prompt_tokens": 10, "completion_tokens": 3}, "score": value}  # fmt: skip


def message(agent: str, role: str, content: str, to: str | None = None, relay: str | None = None) -> dict[str, Any]:
    return {"agent": agent, "role": role, "to": to, "relay": relay, "content": content, "usage": None}


def debate_record(item: int, human: float, scores: list[float | None], group: str = "doc1") -> dict[str, Any]:
    transcript: list[dict[str, Any]] = [message("Commander", "commander", f"Judge summary {item}.", "Scorer", "task")]
    for index, value in enumerate(scores):
        if index:
            transcript.append(message("Critic", "critic", "The score is too high.", None))
            transcript.append(message("Commander", "commander", "Here is the feedback.", "Scorer", "feedback"))
        transcript.append(scorer(value))
    return {
        "item_id": f"{group}/S{item}", "dataset": "summeval", "aspect": "coherence", "protocol": "debate",
        "group_id": group, "system_id": f"S{item}", "human_score": human, "score": scores[-1],
        "parse_status": "parsed" if scores[-1] is not None else "no_score", "agreed": False,
        "rounds": len(scores) - 1, "stop_reason": "max_rounds", "details": {},
        "usage": {"scorer": {"prompt_tokens": 30, "completion_tokens": 9, "calls": len(scores)}},
        "transcript": transcript,
    }  # fmt: skip


def pairwise_record(item: int, human: str, verdict: str | None, consistent: bool | None) -> dict[str, Any]:
    swapped = verdict if consistent is not False else ("second" if verdict == "first" else "first")
    return {
        "item_id": f"q{item}", "dataset": "faireval", "aspect": "preference", "protocol": "debate",
        "task_type": "pairwise", "group_id": f"q{item}", "score": None, "human_score": None,
        "verdict": verdict, "human_label": human, "verdicts": {"original": verdict, "swapped": swapped},
        "consistent": consistent, "parse_status": "parsed" if verdict else "no_verdict",
        "inputs": {"question": f"Question {item}?", "output_a": "Answer A.", "output_b": "Answer B."},
        "transcript": [message("user", "user", f"Question {item}? A: Answer A. B: Answer B."),
                       {**message("Judge", "judge", f"[[{'A' if verdict == 'first' else 'B'}]]"),
                        "verdict": {"value": verdict, "method": "brackets"}}],
    }  # fmt: skip


def chateval_record(item: int, human: float) -> dict[str, Any]:
    referees = {"General_Public": "general-public", "Critic": "critic"}
    transcript = [message("user", "user", f"Judge summary {item}.")]
    for turn in (1, 2):
        for name, persona in referees.items():
            transcript.append({**scorer(3.0 + turn % 2), "agent": name, "role": "referee", "turn": turn,
                               "persona": persona})  # fmt: skip
    return {
        "item_id": f"doc1/S{item}", "dataset": "summeval", "aspect": "coherence", "protocol": "chateval",
        "group_id": "doc1", "human_score": human, "score": 4.0, "parse_status": "parsed",
        "parse_method": "referee_mean", "rounds": 2, "stop_reason": "turns_done",
        "details": {"strategy": "one-by-one", "turns": 2, "referees": referees,
                    "final_scores": {"General_Public": 4.0, "Critic": 4.0},
                    "final_parse_status": {"General_Public": "parsed", "Critic": "parsed"}, "excluded": []},
        "transcript": transcript,
    }  # fmt: skip


def fennec_record(item: int, human: float) -> dict[str, Any]:
    branches = [
        {"criterion": f"Criterion {k}", "guideline": "1: poor ... 5: excellent", "judgment": f"Judged on {k}.",
         "score": 3 + k % 2}
        for k in range(1, 4)
    ]  # fmt: skip
    return {
        "item_id": f"doc1/S{item}", "dataset": "summeval", "aspect": "coherence", "protocol": "fennec",
        "group_id": "doc1", "human_score": human, "score": 3.5, "parse_status": "parsed", "rounds": 0,
        "details": {"branches": branches, "merged": {"score": 3.5, "how": "mean of branches"}},
        "transcript": [message("user", "user", f"Judge summary {item}."), scorer(3.5)],
    }  # fmt: skip


def write_run(folder: Path, records: list[dict[str, Any]], config: dict[str, Any] | None = None) -> Path:
    """A run folder with results.jsonl (and config.json when given)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(r) + "\n" for r in records)
    (folder / "results.jsonl").write_text(lines, encoding="utf-8")
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def hostile_record() -> dict[str, Any]:
    """A DEBATE record whose judged text, model answers, item id and details carry the payload."""
    record = debate_record(1, 3.0, [4.0, 3.0])
    record["item_id"] = f"doc1/{PAYLOAD}"
    record["inputs"] = {"source": f"Article. {PAYLOAD}", "output": f"Summary {PAYLOAD}"}
    record["transcript"][0]["content"] = f"Judge this summary: Summary {PAYLOAD}"
    record["transcript"][1]["content"] = f"I quote: {PAYLOAD}\nScore: 4"
    record["details"] = {"note": PAYLOAD}
    record["parse_reason"] = PAYLOAD
    return record


def odd_record() -> dict[str, Any]:
    """A record of a method the report does not know, with fields of unexpected types (those the one record
    validator checks, ``score`` and ``human_score``, are numbers or null, as every reader requires)."""
    return {
        "item_id": "doc1/odd", "dataset": "summeval", "aspect": "coherence", "protocol": "newmethod",
        "group_id": "doc1", "human_score": 3.0, "score": None, "rounds": "two", "agreed": "maybe",
        "usage": ["not", "a", "dict"], "details": "free text", "inputs": "one string",
        "transcript": {"not": "a list"}, "verdict_parse": 7, "parse_status": None,
    }  # fmt: skip
