"""Fennec: parsing one branch's judgment, as a run and ``rescore`` both read it.

- single: the project's score parser on the judge's answer with copies of the judged texts blanked out
  (``score_text``), on the aspect's scale;
- pairwise: the verdict (``verdict_text``: copies blanked, verdict phrases planted in the responses ignored)
  is the branch's preference; ``Score A: n`` / ``Score B: n`` lines of the judge's own (after blanking, on the
  1-5 scale) are kept as each response's grade (they decide nothing but the correction's gain).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from debate_eval.debates.evaluation import EvaluationTask, score_text, verdict_text
from debate_eval.debates.scoring.normal_form import fold
from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange
from debate_eval.debates.scoring.untrusted import UntrustedMaterial
from debate_eval.debates.scoring.verdicts import ParsedVerdict

PAIRWISE_SCALE = ScoreRange(1, 5)  # the paper's 1-5 guideline and per-response grades
_SIDE_SCORE = re.compile(
    r"^[\s*#>-]*(?:\*\*)?\s*score\s*(?:for\s*)?(?:response\s*)?\(?(?P<side>[AB])\)?\s*(?:\*\*)?\s*[:=]\s*(?:\*\*)?\s*"
    r"(?P<value>\d+(?:\.\d+)?)\s*(?:/\s*\d+)?",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class PairwiseJudgment:
    """One branch's pairwise judgment: its preference and each response's grade (None when not given)."""

    verdict: ParsedVerdict
    score_a: float | None
    score_b: float | None

    def scores(self) -> dict[str, float | None]:
        """``{"A": ..., "B": ...}``."""
        return {"A": self.score_a, "B": self.score_b}


def side_scores(text: str, scale: ScoreRange = PAIRWISE_SCALE) -> dict[str, float | None]:
    """The last ``Score A:`` and ``Score B:`` values of ``text`` on ``scale`` (None when absent or off it),
    read as every marker is read (``normal_form.fold``)."""
    found: dict[str, float | None] = {"A": None, "B": None}
    for match in _SIDE_SCORE.finditer(fold(text)):
        value = float(match.group("value"))
        found[match.group("side").upper()] = value if scale.contains(value) else None
    return found


def judge_single(text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
    """A single item's branch grade."""
    return score_text(text, task, material)


def judge_pairwise(text: str, material: UntrustedMaterial, markers: frozenset[str]) -> PairwiseJudgment:
    """A pairwise branch's preference and grades."""
    scores = side_scores(material.neutralize(text))
    return PairwiseJudgment(verdict_text(text, material, markers), scores["A"], scores["B"])


def judgment_dict(parsed: ParsedScore | PairwiseJudgment) -> dict[str, Any]:
    """What a transcript entry and a branch of the tree keep of a parsed judgment."""
    if isinstance(parsed, ParsedScore):
        return {"score": parsed.to_dict()}
    return {"verdict": parsed.verdict.to_dict(), "scores": parsed.scores()}
