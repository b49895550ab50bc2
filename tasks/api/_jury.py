"""A jury from Python: ``jury`` combines several judges' runs of the same items (``debate-eval jury``);
``Jury`` has several live judges judge each item and combines their answers the same way."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from debate_eval._run import Run, load_run
from debate_eval._trust import run_paths
from debate_eval.debates.kit.combine import MAJORITY
from debate_eval.tasks.analysis.jury import UNSCORED


def jury(
    runs: Sequence[str | os.PathLike[str] | Run],
    out: str | os.PathLike[str],
    *,
    combine: str = MAJORITY,
    split: str = UNSCORED,
) -> Run:
    """Combine the jurors' ``runs`` (one per model or provider, the same items) into the jury's run directory
    ``out`` and return it: per item the answers' ``majority`` or ``mean``, a ``split`` jury ``unscored`` (or
    ``combine``: its combination's own answer), the jurors' agreement as the ``confidence``."""
    from debate_eval.tasks.analysis.jury import write_jury

    paths = run_paths(runs, "jury")
    write_jury(paths, out, combine=combine, split=split)
    return load_run(out)


@dataclass(frozen=True)
class JuryJudgment:
    """What a ``Jury`` returned for one item: the combined ``score`` or ``verdict`` (None for a split jury left
    unscored), the jurors' agreement as ``confidence``, whether the jury ``split``, and each juror's judgment."""

    score: float | None
    verdict: str | None
    confidence: float | None
    split: bool
    reason: str
    judgments: tuple[Any, ...]

    @property
    def ok(self) -> bool:
        """True when the jury gave a score or a verdict."""
        return self.score is not None or self.verdict is not None


class Jury:
    """Several judges (``Judge`` objects, each with its own model or provider) judging each item, their answers
    combined as ``debate-eval jury`` combines runs: ``combine`` ``majority`` or ``mean``; a ``split`` majority
    ``unscored`` (or ``combine``: a tie, the mean of the tied scores). A ``Jury`` can be a ``Cascade``'s judge."""

    def __init__(self, judges: Sequence[Any], *, combine: str = MAJORITY, split: str = UNSCORED) -> None:
        from debate_eval.debates.kit.combine import COMBINES
        from debate_eval.tasks.analysis.jury import SPLITS

        if isinstance(judges, str) or not isinstance(judges, Sequence):
            raise TypeError("a Jury takes a list of judges: Jury([judge_a, judge_b, ...])")
        if len(judges) < 2:
            raise ValueError("a Jury needs two judges or more")
        if combine not in COMBINES or split not in SPLITS:
            raise ValueError(f"combine is one of {', '.join(COMBINES)} and split one of {', '.join(SPLITS)}")
        self.judges, self.combine, self.split = tuple(judges), combine, split

    def score(self, output: str, **inputs: Any) -> JuryJudgment:
        """Every juror scores ``output`` (the keywords of ``Judge.score``); their scores combined."""
        return self._verdict([judge.score(output, **inputs) for judge in self.judges], pairwise=False)

    def compare(self, output_a: str, output_b: str, **inputs: Any) -> JuryJudgment:
        """Every juror compares the pair (the keywords of ``Judge.compare``); their verdicts combined."""
        return self._verdict([judge.compare(output_a, output_b, **inputs) for judge in self.judges], pairwise=True)

    def _verdict(self, judgments: list[Any], *, pairwise: bool) -> JuryJudgment:
        from debate_eval.debates.kit.combine import combine_scores, combine_verdicts
        from debate_eval.debates.kit.confidence import agreement, score_key
        from debate_eval.debates.scoring.scores import ParsedScore
        from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict
        from debate_eval.tasks.analysis.jury import split_vote

        answers = [j.verdict if pairwise else j.score for j in judgments]
        votes = [a if pairwise else score_key(a) for a in answers]
        is_split = self.combine == MAJORITY and split_vote(votes)
        if pairwise:
            parsed: Any = combine_verdicts(
                [ParsedVerdict(a, "parsed", "juror", "") if a else no_verdict("") for a in answers], self.combine
            )
        else:
            parsed = combine_scores(
                [ParsedScore(a, "parsed" if a is not None else "no_score", "juror", "") for a in answers], self.combine
            )
        value = None if is_split and self.split == UNSCORED else parsed.value
        found = agreement(votes, "jurors")
        return JuryJudgment(
            score=None if pairwise else value,
            verdict=value if pairwise else None,
            confidence=None if value is None or found is None else found.value,
            split=is_split,
            reason="a split jury, left unscored" if value is None and is_split else parsed.reason,
            judgments=tuple(judgments),
        )
