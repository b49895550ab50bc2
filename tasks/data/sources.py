"""Where a run takes its items from, one at a time: an :class:`ItemSource`.

A run of many items holds no item it is not judging. Its source gives the items' keys (id and group, in file
order) without their texts, which is what choosing the items (``--limit``, ``--docs``, ``--shard``) and
leaving out the finished ones need; then the items chosen, each built as it is taken. The user's own
``.jsonl`` and ``.csv`` files are read again for that, row by row (``own_file.FileSource``); the packaged and
registered datasets (a few thousand items at most) and data given in memory are a list (:class:`ListSource`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.registry import Item

T = TypeVar("T")


class ItemSource(Protocol):
    """A dataset's items in file order, built when they are taken (see the module docstring)."""

    def __len__(self) -> int:
        """How many items the dataset has."""
        ...

    def keys(self) -> Iterator[tuple[str, str]]:
        """Each item's id and group, in file order (the item at position 0 first), without its texts."""
        ...

    def items_at(self, wanted: Iterable[tuple[int, T]]) -> Iterator[tuple[Item, T]]:
        """The items at the positions of ``wanted`` (increasing), each with what came with its position."""
        ...

    def shapes(self, positions: Iterable[int]) -> set[tuple[str, ...]]:
        """The names of the inputs of the items at ``positions`` (each distinct tuple once)."""
        ...


class ListSource:
    """The items of a list (a dataset loaded whole: packaged, registered, or data in memory)."""

    def __init__(self, items: Sequence[Item]) -> None:
        self.items = items

    def __len__(self) -> int:
        """How many items the list has."""
        return len(self.items)

    def keys(self) -> Iterator[tuple[str, str]]:
        """Each item's id and group, in list order."""
        return ((item.item_id, item.group_id) for item in self.items)

    def items_at(self, wanted: Iterable[tuple[int, T]]) -> Iterator[tuple[Item, T]]:
        """The items at the positions of ``wanted``, each with what came with its position."""
        return ((self.items[position], value) for position, value in wanted)

    def shapes(self, positions: Iterable[int]) -> set[tuple[str, ...]]:
        """The names of the inputs of the items at ``positions``."""
        return {tuple(self.items[position].inputs) for position in positions}


class CompactStrings(Sequence[str]):
    """Many short strings in few: every ``_CHUNK`` of them joined into one text, and where each ends (a few
    bytes each, against the fifty or so of a string object and its slot in a list). Readable while it grows
    (a run's index of keys) and after ``freeze`` (an own file's ids)."""

    _CHUNK = 1024  # strings joined into one text at a time

    def __init__(self) -> None:
        self._chunks: list[str] = []  # every _CHUNK strings joined
        self._pending: list[str] = []  # the strings after the last chunk
        self._ends = array("Q")  # where each string ends in the text of all of them
        self._frozen = False

    def append(self, value: str) -> None:
        """Add ``value`` at the end (before ``freeze``)."""
        assert not self._frozen, "frozen"
        self._pending.append(value)
        self._ends.append((self._ends[-1] if self._ends else 0) + len(value))
        if len(self._pending) == self._CHUNK:
            self._chunks.append("".join(self._pending))
            self._pending = []

    def freeze(self) -> CompactStrings:
        """No more appends: the last strings are joined too (returns self)."""
        if not self._frozen and self._pending:
            self._chunks.append("".join(self._pending))
            self._pending = []
        self._frozen = True
        return self

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        if index < 0:
            index += len(self._ends)
        if not 0 <= index < len(self._ends):
            raise IndexError(index)
        chunk = index // self._CHUNK
        if chunk >= len(self._chunks):
            return self._pending[index - chunk * self._CHUNK]
        base = self._ends[chunk * self._CHUNK - 1] if chunk else 0
        start = self._ends[index - 1] if index else 0
        return self._chunks[chunk][start - base : self._ends[index] - base]

    def __iter__(self) -> Iterator[str]:
        start = 0
        for number, text in enumerate(self._chunks):
            base = start
            for end in self._ends[number * self._CHUNK : (number + 1) * self._CHUNK]:
                yield text[start - base : end - base]
                start = end
        yield from list(self._pending)


def select_positions(
    source: ItemSource, *, limit: int | None = None, docs: int | None = None
) -> Iterator[tuple[int, str]]:
    """The positions and ids of the items ``select_items`` keeps of ``source``, in file order, one at a time:
    ``docs=K`` the first K groups (in order of first appearance) with all their items, then ``limit=N`` the
    first N of those. Both must be positive integers when given (checked at once, before the first item)."""
    check_positive("--limit", limit)
    check_positive("--docs", docs)
    return _selected(source, limit, docs)


def _selected(source: ItemSource, limit: int | None, docs: int | None) -> Iterator[tuple[int, str]]:
    groups: set[str] = set()
    kept = 0
    for position, (item_id, group) in enumerate(source.keys()):
        if limit is not None and kept >= limit:
            return
        if docs is not None and group not in groups:
            if len(groups) >= docs:
                continue
            groups.add(group)
        kept += 1
        yield position, item_id


def check_positive(option: str, value: int | None) -> None:
    """Refuse ``value`` unless it is None or a positive whole number (``--limit``, ``--docs``)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{option} must be a positive whole number, got {value!r}")


def has_duplicate(values: Iterable[str]) -> bool:
    """Whether a string comes twice in ``values`` (iterated twice), holding a bit per slot of a table of hashes
    and the hashes of the few strings whose slot was taken, not a set of every string."""
    values = list(values) if not isinstance(values, Sequence) else values
    size = 1 << max(16, (32 * len(values)).bit_length())
    table = bytearray(size // 8)
    shared: set[int] = set()  # slots taken more than once
    for value in values:
        slot = hash(value) & (size - 1)
        byte, bit = slot >> 3, 1 << (slot & 7)
        if table[byte] & bit:
            shared.add(slot)
        table[byte] |= bit
    if not shared:
        return False
    seen: set[int] = set()
    for value in values:
        code = hash(value)
        if code & (size - 1) in shared:
            if code in seen:
                return True  # the same hash twice: the same string, or (rarely) two with one hash
            seen.add(code)
    return False
