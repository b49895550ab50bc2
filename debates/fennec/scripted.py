"""Fennec's canned replies for the scripted server: its four roles, told by the openings of their system
messages (``prompts/system.json``); a judge of two responses (its request asks for ``Score A:``) scores both."""

from __future__ import annotations

from debate_eval.agents.models.providers.scripted_server import Request, ScriptedReplies, ScriptedRole

JUDGE_PAIRWISE = "Under this criterion Response A is somewhat better.\nScore A: 4\nScore B: 3\nVerdict: [[A]]"


def pairwise_judge_reply(request: Request) -> str | None:
    """The judge's reply to a pairwise request (its last message asks for ``Score A:``), else None."""
    last = str(((request.get("messages") or [{}])[-1]).get("content", ""))
    return JUDGE_PAIRWISE if "Score A:" in last else None


SCRIPTED_REPLIES = ScriptedReplies(
    "fennec",
    roles=(
        ScriptedRole("criteria_writer", system_starts=("You design evaluation criteria.",)),
        ScriptedRole("guideline_writer", system_starts=("You write scoring guidelines.",)),
        ScriptedRole("judge", system_starts=("You grade responses strictly by one given criterion",)),
        ScriptedRole("corrector", system_starts=("You revise responses.",)),
    ),
    replies={
        "criteria_writer": "1. Accuracy: the facts agree with the source\n2. Clarity: easy to follow\n"
        "3. Relevance: keeps to what matters\n4. Completeness: nothing important missing\n5. Concision: no padding",
        "guideline_writer": "1: fails the criterion\n2: mostly fails\n3: meets it in part\n4: mostly meets it\n"
        "5: fully meets it",
        "judge": "Under this criterion the text is adequate, with gaps.\nScore: 3",
        "corrector": "A revised text that fixes the problems the graders found.",
    },
    computed={"judge": pairwise_judge_reply},
)
