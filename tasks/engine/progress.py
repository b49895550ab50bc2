"""A progress bar (tqdm) with items done, failures and running tokens; silent when not on a terminal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TextIO


class _Counts(Protocol):
    failed: int
    parsed: int
    unparsed: int


class Progress:
    """Wraps a tqdm bar; ``enabled=None`` shows it only when ``stream`` is a terminal."""

    def __init__(
        self, total: int, *, enabled: bool | None, stream: TextIO, status: Callable[[], str] | None = None
    ) -> None:
        """``status``: a live line to show beside the counts (the endpoints' rate budgets)."""
        from tqdm import tqdm

        show = stream.isatty() if enabled is None else enabled
        self.tokens = 0
        self.status = status
        self.bar = tqdm(total=total, disable=not show, file=stream, unit="item", dynamic_ncols=True)

    def update(self, record: Mapping[str, Any], counts: _Counts) -> None:
        """Count one finished item."""
        for usage in (record.get("usage") or {}).values():
            self.tokens += int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
        fields: dict[str, Any] = {"failed": counts.failed, "unparsed": counts.unparsed, "tokens": self.tokens}
        budget = self.status() if self.status is not None else ""
        if budget:
            fields["budget"] = budget
        self.bar.set_postfix(fields, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        """Finish the bar."""
        self.bar.close()
