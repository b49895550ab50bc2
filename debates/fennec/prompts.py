"""Fennec's prompts, read from the data files in ``prompts/`` (the project's own words after the paper).

=======================  ==================================================================================
``system.json``          the system message of each role: criteria writer, guideline writer, judge, corrector
``criteria.txt``         step 1: write ``k`` criteria from the query view (never the judged response)
``criteria_reask.txt``   asked once when fewer than ``k`` criteria came
``guideline.txt``        step 2: the scoring guideline of one criterion (one line per score of the scale)
``judge_single.txt``     step 3, one text: P, the criterion, its guideline; "Score: N" on the last line
``judge_pairwise.txt``   step 3, two responses: P, the criterion, its guideline; scores A and B and a verdict
``correct.txt``          correction: the query view, the response and the branch judgments' comments
``query_pairwise.txt``   the query view of a pairwise item: its question and additional input only
``goals.json``           how single and pairwise items state the quality the criteria are for
=======================  ==================================================================================

The *query view* is what the criteria and guideline writers see: for a pairwise item its question and input;
for a single item the task prompt P with every copy of the judged text (the summary, the response, the
dialogue) replaced by a placeholder line, so the judged text can never write or steer the criteria.
Placeholders ``{name}`` are filled in one pass: text inserted from the items is never scanned again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.fennec.branch_judgments import PAIRWISE_SCALE
from debate_eval.debates.kit.prompt_files import prompt_file, prompt_file_table
from debate_eval.debates.pairwise.prompts import task_inputs
from debate_eval.debates.scoring.scores import ScoreRange

# The input that holds the judged text, per dataset (compared case-insensitively): SummEval's Summary,
# Topical-Chat's Response, FED's response (turn level) or dialogue (dialogue level), an own file's output.
JUDGED_KEYS = ("summary", "response", "output", "dialogue")
HIDDEN = "[the text under evaluation is not shown at this step]"


# a prompt file of this package by name: its text (trailing whitespace removed), or a JSON one as a dict
prompt_text = functools.partial(prompt_file, "debate_eval.debates.fennec")
prompt_table = functools.partial(prompt_file_table, "debate_eval.debates.fennec")
# every prompt file above, recorded in config.json by their texts (editing one changes the run's hash)
PROMPT_FILES = (
    "system.json",
    "criteria.txt",
    "criteria_reask.txt",
    "guideline.txt",
    "judge_single.txt",
    "judge_pairwise.txt",
    "correct.txt",
    "query_pairwise.txt",
    "goals.json",
)


def fill(template: str, values: Mapping[str, object]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced, in one pass (other braces left alone)."""
    if not values:
        return template
    pattern = "|".join(re.escape(name) for name in values)
    return re.sub(r"\{(" + pattern + r")\}", lambda m: str(values[m.group(1)]), template)


def system_message(role: str) -> str:
    """The system message of ``role`` (``criteria_writer``, ``guideline_writer``, ``judge``, ``corrector``)."""
    return prompt_table("system.json")[role]


def judged_key(task: EvaluationTask) -> str | None:
    """The input of a single item that holds the judged text (None: the item has no inputs)."""
    keys = list(task.inputs)
    for wanted in JUDGED_KEYS:
        for key in keys:
            if key.lower() == wanted:
                return key
    return keys[-1] if keys else None


def judged_text(task: EvaluationTask) -> str:
    """The judged text of a single item (the last untrusted text when the task carries no inputs)."""
    key = judged_key(task)
    if key is not None:
        return str(task.inputs[key])
    return task.untrusted[-1] if task.untrusted else ""


def _line_spans(text: str, part: str) -> list[tuple[int, int]]:
    """Where ``part`` occurs in ``text`` as whole lines (starting a line and ending one)."""
    spans, start = [], text.find(part)
    while part and start >= 0:
        end = start + len(part)
        if (start == 0 or text[start - 1] == "\n") and (end == len(text) or text[end] == "\n"):
            spans.append((start, end))
        start = text.find(part, start + 1)
    return spans


def replace_text(prompt: str, old: str, new: str) -> str:
    """``prompt`` with ``old`` replaced by ``new``: its copies that stand as whole lines (where a template puts
    an input), or, when there is none, every copy (never leave the judged text in a view meant without it)."""
    if not old.strip():
        return prompt
    spans = _line_spans(prompt, old)
    if not spans:
        return prompt.replace(old, new)
    pieces, last = [], 0
    for start, end in spans:
        if start >= last:
            pieces += [prompt[last:start], new]
            last = end
    return "".join([*pieces, prompt[last:]])


def query_view(task: EvaluationTask) -> str:
    """What the criteria and guideline writers see of ``task`` (see the module docstring)."""
    if task.pairwise:
        return fill(prompt_text("query_pairwise.txt"), task_inputs(task.inputs))
    view = replace_text(task.prompt, judged_text(task), HIDDEN)
    for key, value in task.inputs.items():  # a judged text split over several inputs stays hidden too
        if key.lower() in JUDGED_KEYS:
            view = replace_text(view, str(value), HIDDEN)
    return view


def goal(task: EvaluationTask) -> str:
    """The quality the criteria are for."""
    goals = prompt_table("goals.json")
    return goals["pairwise"] if task.pairwise else fill(goals["single"], {"aspect": task.aspect})


def scale_of(task: EvaluationTask) -> ScoreRange:
    """The scale of the guidelines and grades: the aspect's for a single item, 1-5 for a pairwise one."""
    return PAIRWISE_SCALE if task.pairwise else task.scale


def score_lines(scale: ScoreRange) -> str:
    """One ``N: <...>`` line per integer of the scale (the ends only when it has no or too many integers)."""
    low, high = float(scale.low), float(scale.high)
    if low.is_integer() and high.is_integer() and 0 < high - low <= 10:
        points = [f"{int(v)}" for v in range(int(low), int(high) + 1)]
    else:
        points = [f"{low:g}", f"{high:g}"]
    return "\n".join(f"{p}: <what earns {p}>" for p in points)


def criteria_prompt(task: EvaluationTask, k: int) -> str:
    """Step 1's request."""
    return fill(prompt_text("criteria.txt"), {"query": query_view(task), "goal": goal(task), "k": k})


def criteria_reask(found: int, k: int) -> str:
    """Asked once when fewer than ``k`` criteria came."""
    return fill(prompt_text("criteria_reask.txt"), {"found": found, "k": k})


def guideline_prompt(task: EvaluationTask, criterion: str) -> str:
    """Step 2's request for one criterion."""
    values = {
        "query": query_view(task),
        "goal": goal(task),
        "criterion": criterion,
        "score_lines": score_lines(scale_of(task)),
    }
    return fill(prompt_text("guideline.txt"), values)


def judge_prompt(task: EvaluationTask, criterion: str, guideline: str, prompt: str | None = None) -> str:
    """Step 3's request for one criterion: ``prompt`` (default P) followed by the criterion and its guideline."""
    scale = scale_of(task)
    name = "judge_pairwise.txt" if task.pairwise else "judge_single.txt"
    values = {
        "task": task.prompt if prompt is None else prompt,
        "criterion": criterion,
        "guideline": guideline,
        "low": f"{scale.low:g}",
        "high": f"{scale.high:g}",
    }
    return fill(prompt_text(name), values)


def correct_prompt(task: EvaluationTask, response: str, comments: str) -> str:
    """The corrector's request."""
    return fill(prompt_text("correct.txt"), {"query": query_view(task), "response": response, "comments": comments})
