"""ChatEval's canned replies for the scripted server: a referee (its system message ends with the panel's
name line, ``prompts.NAME_LINE``; or, in the released FairEval flow, a request with no system message whose
first message is ``prompts.FAIREVAL_FRAME``) and the summarizer (``prompts.SUMMARIZER_SYSTEM_MESSAGE`` and the
pairwise ``summarizer.txt``)."""

from __future__ import annotations

from debate_eval.agents.models.providers.scripted_server import Request, ScriptedReplies, ScriptedRole

FAIREVAL_MARK = "There are a few other referee assigned the same task"  # the released flow's template
# its final prompts' score formats (pairwise: two lines for Assistant 1 and 2; single-score: one line)
FAIREVAL_PAIR_FORMAT = "The score of Assistant 1: [score only]"
FAIREVAL_ONE_FORMAT = "The score: [score only]"


def faireval_reply(request: Request) -> str | None:
    """A referee of ChatEval's released flow (no system message): a remark, or in the last turn the scores in
    their format (the longer answer gets 8 and the other 6, whatever the order they are shown in); None for a
    referee of the paper's flow."""
    messages = request.get("messages") or []
    if any(m.get("role") == "system" for m in messages):
        return None
    final = str(messages[-1].get("content", "")) if messages else ""
    if FAIREVAL_PAIR_FORMAT in final:
        prompt = str(messages[0].get("content", ""))
        answers = [part.split("[The End of Assistant")[0] for part in prompt.split("\u2019s Answer]\n")[1::2]]
        one, two = (len(answers[0]), len(answers[1])) if len(answers) == 2 else (0, 0)
        first, second = (8, 6) if one > two else (6, 8) if one < two else (7, 7)
        return (
            "Evaluation evidence: the more complete answer is the better one here.\n"
            f"The score of Assistant 1: {first}\nThe score of Assistant 2: {second}"
        )
    if FAIREVAL_ONE_FORMAT in final:
        return "Evaluation evidence: it holds together, with one weak transition.\nThe score: 4"
    return "I read both and will weigh them carefully before the final judgement."


SCRIPTED_REPLIES = ScriptedReplies(
    "chateval",
    roles=(
        ScriptedRole("referee", no_system=True, first_has=(FAIREVAL_MARK,)),
        ScriptedRole("referee", system_has=("On this panel your name is",)),
        ScriptedRole("summarizer", system_has=("You keep the record of a panel of referees",)),
    ),
    replies={
        "referee": "The text holds together well, with one weak transition.\nScore: 4",
        "summarizer": "The referees found the text mostly coherent; their scores were close.",
    },
    pairwise_replies={"referee": "Response A covers the question better, with one weak point.\n[[A]]"},
    computed={"referee": faireval_reply},
    precedence=20,
)
