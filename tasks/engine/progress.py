"""What a run shows while it works, wherever its output goes (``run --progress bar|lines|none``, ``--quiet``).

=========  ================================================================================================
``bar``    a tqdm bar (items, failed, parsed, calls, tokens, retries); retries and the start line print above it
``lines``  plain lines for logs (``tee``, ``nohup``, CI, Slurm): one when an item finishes, at most one every
           ``interval_s`` (10 s; a finish in between is shown by a line at the end of the interval), the last
           item always; and one line per retry with its cause
``none``   no start line and no status lines; a retry is still one line (``--no-progress``)
``quiet``  nothing at all (``--quiet``; not a ``--progress`` choice)
``auto``   the default: ``bar`` when the stream is a terminal, else ``lines``
=========  ================================================================================================

Both ``bar`` and ``lines`` start with the line ``DATASET/ASPECT [METHOD]: N items selected, M already done``,
as soon as the model endpoints are ready (the embedded server started, the endpoint check passed: a
problem there is the run's one error line) and before the first item.

A status line reads: ``3/4 items (0 failed, 3 parsed) | 15 calls, 12,345 tokens, 0 retries | 45 s elapsed,
ETA 15 s`` (the ETA from the second item on, at the pace since the first one finished). Extra fields go at
its end: ``Progress.add_field(name, value)`` registers a callable returning a short text (None or empty to
leave it out) that is read at every update: the runner adds the endpoints' live rate-limit budgets as
``budget`` (``ClientPool.rate_status``); the bar shows the same fields.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from debate_eval.tasks.engine.record import Record

AUTO, BAR, LINES, NONE, QUIET = "auto", "bar", "lines", "none", "quiet"
MODES = (AUTO, BAR, LINES, NONE)  # the --progress choices (--quiet is QUIET)
LINE_INTERVAL_S = 10.0
PREFIX = "debate-eval: "


class _Counts(Protocol):
    failed: int
    parsed: int
    unparsed: int


class _Retries(Protocol):
    retries: Any  # a Counter of retries by reason (TransportStats)


def resolve_mode(setting: str | bool | None, stream: TextIO) -> str:
    """``bar``, ``lines`` or ``none`` for a ``RunOptions.progress`` value: a mode name, None/``auto`` (a bar on
    a terminal, lines otherwise), True (``auto``) or False (``none``, as ``--no-progress`` always meant)."""
    if setting is False:
        return NONE
    if setting is None or setting is True or setting == AUTO:
        try:
            return BAR if stream.isatty() else LINES
        except (AttributeError, ValueError):  # a closed or unusual stream
            return LINES
    if setting not in (*MODES, QUIET):
        raise ValueError(f"unknown progress mode {setting!r}; modes are: {', '.join(MODES)}")
    return str(setting)


def duration(seconds: float) -> str:
    """``45 s``, ``12 min 5 s``, ``2 h 3 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


class Progress:
    """The progress display of one run: ``start`` once, ``update`` per finished item, ``retry`` per retry,
    ``close`` at the end."""

    def __init__(
        self,
        total: int,
        *,
        mode: str | bool | None = None,
        stream: TextIO = sys.stderr,
        stats: _Retries | None = None,
        interval_s: float = LINE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``mode``: see ``resolve_mode``; ``stats``: the run's ``TransportStats`` (its retries are counted in
        the lines)."""
        self.mode = resolve_mode(mode, stream)
        self.total = total
        self.stream = stream
        self.stats = stats
        self.interval_s = interval_s
        self.clock = clock
        self.started = clock()
        self.done = self.failed = self.parsed = self.calls = self.tokens = 0
        self.fields: dict[str, Callable[[], str | None]] = {}
        self._last_line: float | None = None
        self._first_done: float | None = None
        self._pending = False  # an update not shown yet (lines mode)
        self._timer: asyncio.TimerHandle | None = None
        self._bar: Any = None
        if self.mode == BAR:
            from tqdm import tqdm

            self._bar = tqdm(total=total, file=stream, unit="item", dynamic_ncols=True)

    # ------------------------------------------------------------------------------------------ input

    def add_field(self, name: str, value: Callable[[], str | None]) -> None:
        """Show ``name=value()`` at the end of every status line and in the bar (None: left out)."""
        self.fields[name] = value

    def start(self, line: str) -> None:
        """Print the run's first line (``N items selected, M already done``)."""
        self._print(line)

    def update(self, record: Record, counts: _Counts) -> None:
        """Count one finished item (``counts``: the invocation's tally, after this item)."""
        self.done += 1
        if self._first_done is None:
            self._first_done = self.clock()
        self.tokens += record.prompt_tokens() + record.completion_tokens()
        self.calls += int(record.llm_calls or 0)
        self.failed, self.parsed = counts.failed, counts.parsed
        if self.mode == BAR:
            self._bar.set_postfix(self._postfix(), refresh=False)
            self._bar.update(1)
        elif self.mode == LINES:
            self._pending = True
            self._maybe_line(final=self.done >= self.total)

    def retry(self, event: Any) -> None:
        """One retry about to happen: its line (``event.line()``, or ``str(event)``), shown at once (in every
        mode but ``quiet``)."""
        line = event.line() if hasattr(event, "line") else str(event)
        line = line if line.startswith(PREFIX) else PREFIX + line
        if self.mode == NONE:
            print(line, file=self.stream, flush=True)
            return
        self._print(line)
        if self.mode == BAR:
            self._bar.set_postfix(self._postfix(), refresh=True)

    def close(self) -> None:
        """Show what is still pending and finish the bar."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.mode == LINES and self._pending:
            self._line()
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    # ----------------------------------------------------------------------------------------- output

    def status(self) -> str:
        """The status line: items, calls and tokens, time, extra fields."""
        elapsed = self.clock() - self.started
        parts = [
            f"{self.done}/{self.total} items ({self.failed} failed, {self.parsed} parsed)",
            f"{self.calls:,} calls, {self.tokens:,} tokens, {self.retries()} retries",
        ]
        timing = f"{duration(elapsed)} elapsed"
        eta = self.eta()
        if eta is not None:
            timing += f", ETA {duration(eta)}"
        parts.append(timing)
        extra = self._extra()
        if extra:
            parts.append(", ".join(f"{name}={value}" for name, value in extra.items()))
        return " | ".join(parts)

    def eta(self) -> float | None:
        """Seconds left at the pace since the first item finished (items run several at a time, so the first
        one's wait says little about the pace): None before the second item, or when all are done."""
        if self._first_done is None or self.done < 2 or self.done >= self.total:
            return None
        pace = (self.clock() - self._first_done) / (self.done - 1)
        return pace * (self.total - self.done)

    def retries(self) -> int:
        """Retries so far in this invocation."""
        return sum(self.stats.retries.values()) if self.stats is not None else 0

    def _extra(self) -> dict[str, str]:
        values = {name: value() for name, value in self.fields.items()}
        return {name: value for name, value in values.items() if value}

    def _postfix(self) -> dict[str, Any]:
        counts = {name: getattr(self, name) for name in ("failed", "parsed", "calls", "tokens")}
        return {**counts, "retries": self.retries(), **self._extra()}

    def _maybe_line(self, final: bool) -> None:
        now = self.clock()
        if final or self._last_line is None or now - self._last_line >= self.interval_s:
            self._line()
            return
        if self._timer is None:  # show this update when the interval is over, unless another line does first
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no event loop (a synchronous caller): the next update or close shows it
            self._timer = loop.call_later(self.interval_s - (now - self._last_line), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._pending:
            self._line()

    def _line(self) -> None:
        self._pending = False
        self._last_line = self.clock()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._print(PREFIX + self.status())

    def _print(self, line: str) -> None:
        if self.mode in (NONE, QUIET):
            return
        if self._bar is not None:
            self._bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)
