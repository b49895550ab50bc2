"""Python's cyclic garbage collector, set for a run's debates: the objects that exist before they start are
left out of its passes, and its youngest generation is collected less often, while they run.

A run allocates many short-lived objects per model call (AutoGen's runtime messages, pydantic models, HTTP
responses). With the interpreter's defaults the collector runs every 700 allocations, and each of its full
passes walks every object of the process, including everything that was there before the first debate
(the loaded modules, the dataset's items, the rendered prompts), none of which a debate turns into garbage.
``collector_for_run()`` uses the standard library's public ``gc`` functions for the block: ``gc.freeze()``
moves the objects that exist now out of the collector's sight (``gc.unfreeze()`` gives them back at the
end), and ``gc.set_threshold`` raises the youngest generation's threshold to ``YOUNG_THRESHOLD`` (the
previous thresholds come back at the end). Nothing else changes: objects made during the run are collected
as usual, objects that die are still freed at once by reference counting, and nothing is ever freed wrongly
(the settings only make cyclic garbage wait longer). Together they took about a sixth of the event loop's
CPU per model call off a DEBATE run on the scripted server (benchmarks/throughput.md).

A process that froze its heap itself (``gc.get_freeze_count() > 0``, e.g. a pre-forking server) keeps its
frozen objects (the block freezes nothing and unfreezes nothing); one whose collector is off is left alone;
a threshold set higher than ``YOUNG_THRESHOLD`` is kept.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_THRESHOLD = 20_000  # allocations between two collections of the youngest generation (default 700)


@contextlib.contextmanager
def collector_for_run() -> Iterator[bool]:
    """For the block: the objects that exist now frozen (``gc.freeze``) unless the process froze some itself,
    and the youngest generation's threshold at least ``YOUNG_THRESHOLD``; both undone after it. Yields
    whether it changed anything (False when the collector is off)."""
    if not gc.isenabled():
        yield False
        return
    thresholds = gc.get_threshold()
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])
    try:
        yield True
    finally:
        gc.set_threshold(*thresholds)
        if freeze:
            gc.unfreeze()
