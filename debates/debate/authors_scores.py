"""DEBATE's ``--fidelity authors-code`` answers, read as the authors' evaluation scripts read them.

- **Score.** ``evalute_score.py`` (official code): the first digit of the first number (fluency: the last
  digit of the last number), no re-ask; ``meta_eval_summeval.py`` (tiebreaker branch): the first number.
  Their value is kept even off the scale (their scripts kept it); no number: no score (they skipped the item).
- **NO ISSUE.** A case-sensitive substring, ``NO_ISSUE`` (official) or ``NO_ISSUES`` (tiebreaker branch), of
  the Critic's latest message.

Safety kept in this mode too (a project rule, not theirs): copies of the judged texts are blanked out of an
agent's message before the marker check and the score extraction.
"""

from __future__ import annotations

import re

from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial, says_no_issue


def authors_score(text: str, aspect: str, extraction: str, material: UntrustedMaterial) -> ParsedScore:
    """Their evaluation scripts' score of ``text`` (copies of the judged texts blanked first).

    ``first-digit``: the first digit of the first number; for fluency the last digit of the last number.
    ``first-number``: the first number. Their value is kept even off the scale (their scripts kept it).
    """
    numbers = re.findall(r"\d+", material.neutralize(text))
    if not numbers:
        return ParsedScore(None, "no_score", "none", "No number in the answer (their scripts skipped the item).")
    if extraction == "first-number":
        value, method, what = int(numbers[0]), "authors_first_number", f"the first number {numbers[0]!r}"
    elif aspect.lower() == "fluency":
        value, method = int(str(int(numbers[-1]))[-1]), "authors_last_digit"
        what = f"the last digit of the last number {numbers[-1]!r}"
    else:
        value, method = int(str(int(numbers[0]))[0]), "authors_first_digit"
        what = f"the first digit of the first number {numbers[0]!r}"
    return ParsedScore(float(value), "parsed", method, f"Authors' extraction: {what}.")


def authors_marker(text: str, marker: str, material: UntrustedMaterial) -> bool:
    """Their NO ISSUE check: ``marker`` as a case-sensitive substring (copies of the judged texts blanked).

    When the judged texts themselves hold a marker, the marker must also stand as the Critic's own verdict
    (``says_no_issue``'s rule for that case), so a planted "NO_ISSUE" echoed in passing ends nothing.
    """
    if marker not in material.neutralize(text):
        return False
    return not material.has_marker or says_no_issue(text, material, case_sensitive=True)
