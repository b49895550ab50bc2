"""ChatEval: reading a referee's score: its own verdict line first, and the panel's mean.

A referee often quotes the others ("Critic's Score: 3", "[Critic]: ... Score: 3"). When the referee's message
has a verdict line of its own - a line that *starts* with the label the panel was told to use ("Score:" in
``paper`` mode, "The score:" in ``authors-code`` mode) - only the last such line is read. Without one, the
lenient project parser reads the message with the other referees' attributed scores blanked out first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from debate_eval.debates.evaluation import EvaluationTask, score_text
from debate_eval.debates.scoring.normal_form import fold
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

PAPER_LABEL = "Score:"


def verdict_lines(text: str, label: str) -> list[str]:
    """The lines of ``text`` that start with ``label`` (markdown emphasis and list marks ignored), read as
    every marker is read (``normal_form.fold``: a fullwidth ``Ｓｃｏｒｅ：`` is ``Score:``)."""
    pattern = re.compile(r"^[\s>*_#-]*" + re.escape(label).replace(r"\ ", r"\s+"), re.IGNORECASE)
    return [line for line in fold(text).splitlines() if pattern.match(line)]


def blank_attributed(text: str, others: Iterable[str]) -> str:
    """``text`` with the other referees' attributed statements blanked: lines headed ``[Name]:`` and
    ``Name's score ...`` / ``Name gave ...`` phrases up to their number."""
    for name in others:
        for spelling in {name, name.replace("_", " ")}:
            quoted = re.escape(spelling)
            text = re.sub(rf"(?im)^\s*\[{quoted}\]\s*:.*$", "[another referee]", text)
            text = re.sub(
                rf"(?i)\b{quoted}(?:'s|\u2019s)?\b[^.\n\d]{{0,40}}?\d+(?:\.\d+)?",
                "[another referee's score]",
                text,
            )
    return text


def referee_score(
    text: str, task: EvaluationTask, material: UntrustedMaterial, *, label: str, others: Iterable[str]
) -> ParsedScore:
    """A referee's own score in ``text``: its last verdict line when it has one, else the lenient parse."""
    lines = verdict_lines(material.neutralize(text), label)
    if lines:
        parsed = score_text(lines[-1], task, material)
        if parsed.ok:
            return ParsedScore(parsed.value, "parsed", "verdict_line", f"own verdict line: {lines[-1].strip()[:80]!r}")
        return parsed
    return score_text(blank_attributed(text, others), task, material)


def has_verdict(text: str, task: EvaluationTask, material: UntrustedMaterial, label: str) -> bool:
    """True when ``text`` has a verdict line with a score on the scale (the authors-code format check)."""
    lines = verdict_lines(material.neutralize(text), label)
    return bool(lines) and score_text(lines[-1], task, material).ok


def average_final_scores(finals: dict[str, ParsedScore]) -> tuple[float | None, ParsedScore, list[str]]:
    """The mean of the referees' final parsed scores, its parse record, and the referees excluded."""
    values = {name: p.value for name, p in finals.items() if p.ok and p.value is not None}
    excluded = [name for name in finals if name not in values]
    if not values:
        reason = "no referee's last message had a score on the scale"
        return None, ParsedScore(None, "no_score", "none", reason), excluded
    mean = sum(values.values()) / len(values)
    listed = ", ".join(f"{name} {value:g}" for name, value in values.items())
    reason = f"mean of the referees' final scores: {listed}"
    if excluded:
        reason += f" (excluded, no score: {', '.join(excluded)})"
    return mean, ParsedScore(mean, "parsed", "referee_mean", reason), excluded
