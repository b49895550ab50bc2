"""ChatEval's ``--fidelity authors-code`` (FairEval) answers, read as the released ``LLMEvalParser`` and the
FairEval scoring script read them.

- **Format check, single score.** The last non-empty line starts with "The score:" (``FAIREVAL_VERDICT``)
  and, this project's addition, holds a score on the scale (``referee_scores.has_verdict``).
- **Format check, pairwise.** The last two non-empty lines start with "The score of Assistant 1:" and "The
  score of Assistant 2:" (``FAIREVAL_SCORE_LINES``).
- **Pairwise scores.** ``float`` of what follows the label on the raw answer's second-last (Assistant 1) or
  last (Assistant 2) line; anything else (a ``[Silence]`` entry, a trailing blank line, "8/10") does not parse.
- **Pairwise verdict.** Position k of the two orders' evaluation lists adds, to response A, the score for
  Assistant 1 in the first order and for Assistant 2 in the second, and to B the other two; A > B: ``first``,
  A < B: ``second``, equal: ``tie``; when any score does not parse the item is a ``tie``, as their FairEval
  scoring made it.

Judged text stays untrusted (a project rule in every mode): copies of the question and answers are blanked
out of a referee's answer before the format check and before the score lines are read.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from debate_eval.debates.chateval.referee_scores import has_verdict
from debate_eval.debates.scoring.untrusted import UntrustedMaterial
from debate_eval.debates.scoring.verdicts import FIRST, SECOND, TIE, ParsedVerdict

if TYPE_CHECKING:
    from debate_eval.debates.evaluation import EvaluationTask

FAIREVAL_VERDICT = "The score:"  # their parser checks the last line(s) start with "The score of Assistant i:"
FAIREVAL_SCORE_LINES = ("The score of Assistant 1:", "The score of Assistant 2:")  # their parser's last two lines


class ScoreLineError(ValueError):
    """A score their calc script could not read (it made the item a tie)."""


def their_lines(text: str) -> list[str]:
    """``LLMEvalParser``'s lines: stripped, runs of newlines collapsed, split."""
    return re.sub(r"\n+", "\n", text.strip()).split("\n")


def their_format_ok(text: str, task: EvaluationTask, material: UntrustedMaterial) -> bool:
    """``LLMEvalParser`` for one score: the last non-empty line starts with "The score:" (and, this project's
    addition, holds a score on the scale)."""
    lines = their_lines(text)
    return lines[-1].startswith(FAIREVAL_VERDICT) and has_verdict(lines[-1], task, material, FAIREVAL_VERDICT)


def their_pairwise_format_ok(text: str, material: UntrustedMaterial) -> bool:
    """``LLMEvalParser`` for a pair: the last two non-empty lines are the two score lines (copies blanked)."""
    lines = their_lines(material.neutralize(text))
    return (
        len(lines) >= 2
        and lines[-2].startswith(FAIREVAL_SCORE_LINES[0])
        and lines[-1].startswith(FAIREVAL_SCORE_LINES[1])
    )


def their_score(text: str, assistant: int, material: UntrustedMaterial) -> float:
    """Their calc script's score for Assistant ``assistant`` (1 or 2) in one evaluation text: ``float`` of what
    follows the label on the second-last (1) or last (2) line of the raw text. Raises ``ScoreLineError``."""
    lines = material.neutralize(text).split("\n")
    index = -2 if assistant == 1 else -1
    if len(lines) < -index:
        raise ScoreLineError(f"{text[:40]!r} has no line for Assistant {assistant}")
    field = lines[index].split(FAIREVAL_SCORE_LINES[assistant - 1])[-1]
    try:
        value = float(field)
    except ValueError:
        raise ScoreLineError(f"{field.strip()[:40]!r} is no number (Assistant {assistant})") from None
    if not math.isfinite(value):
        raise ScoreLineError(f"{field.strip()!r} is not a finite number (Assistant {assistant})")
    return value


def their_verdict(
    original: list[dict[str, str]], swapped: list[dict[str, str]], material: UntrustedMaterial
) -> tuple[ParsedVerdict, dict[str, float] | None]:
    """Their aggregation over both orders (see the module docstring): the verdict and A's and B's sums."""
    total_a = total_b = 0.0
    try:
        for kept, reversed_ in zip(original, swapped, strict=False):
            total_a += their_score(kept["evaluation"], 1, material)
            total_b += their_score(kept["evaluation"], 2, material)
            total_b += their_score(reversed_["evaluation"], 1, material)
            total_a += their_score(reversed_["evaluation"], 2, material)
    except ScoreLineError as error:
        reason = f"A score did not parse ({error}), so a tie, as their FairEval scoring made it."
        return ParsedVerdict(TIE, "parsed", "authors_unparsed_tie", reason), None
    sums = {"output_a": total_a, "output_b": total_b}
    value = FIRST if total_a > total_b else SECOND if total_a < total_b else TIE
    reason = f"Sums over the referees and both orders: A {total_a:g}, B {total_b:g}."
    return ParsedVerdict(value, "parsed", "authors_score_sum", reason), sums
