"""The criteria writer's answer as a list: numbered or bulleted items, the first ``k`` taken.

An item starts a line with a number (``1.``, ``1)``, ``(1)``, ``1:``, ``Criterion 1:``, ``**1.**``) or a bullet
(``-``, ``*``, ``•``, ``+``); the lines that follow it, up to the next item or a blank line, continue it. Text
before the first item (a preamble) and after a blank line that ends the list (a closing remark) is no
criterion. Markdown emphasis around an item is dropped. A line such as ``Score: 3`` is never an item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ITEM = re.compile(
    r"""^\s*(?:\*\*|__)?\s*
    (?:
        (?:criterion|criteria)\s*\#?\s*\d{1,2}\s*[:.)\-–]     # Criterion 1:
      | \(?\d{1,2}\s*[.):]                                    # 1.  1)  (1)  1:
      | [-*•+·]                                             # bullets
    )
    (?:\s*(?:\*\*|__))?\s+(?P<text>\S.*)$""",
    re.IGNORECASE | re.VERBOSE,
)
_EMPHASIS = re.compile(r"(\*\*|__)")


@dataclass(frozen=True)
class CriteriaParse:
    """The criteria found in one answer, and how many the answer held in all."""

    criteria: tuple[str, ...]  # at most k
    found: int  # items in the answer (before taking the first k)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"criteria": list(self.criteria), "found": self.found}


def _clean(text: str) -> str:
    return " ".join(_EMPHASIS.sub("", text).split()).strip(" :")


def list_items(text: str) -> list[str]:
    """Every item of the numbered or bulleted list in ``text``, in order, each on one line."""
    items: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        match = _ITEM.match(line)
        if match:
            if current:
                items.append(_clean(" ".join(current)))
            current = [match.group("text")]
        elif not line.strip():
            if current:
                items.append(_clean(" ".join(current)))
            current = None
        elif current is not None:
            current.append(line.strip())
    if current:
        items.append(_clean(" ".join(current)))
    return [item for item in items if item]


def parse_criteria(text: str, k: int) -> CriteriaParse:
    """The first ``k`` list items of ``text`` (duplicates, compared case-insensitively, counted once)."""
    seen: dict[str, str] = {}
    for item in list_items(text):
        seen.setdefault(item.lower(), item)
    unique = list(seen.values())
    return CriteriaParse(tuple(unique[:k]), len(unique))


def merge_criteria(first: CriteriaParse, second: CriteriaParse, k: int) -> CriteriaParse:
    """After a re-ask: the answer with more criteria (the first on equal counts), at most ``k``."""
    better = second if len(second.criteria) > len(first.criteria) else first
    return CriteriaParse(better.criteria[:k], better.found)
