"""A jury from Python: ``jury`` combines several judges' runs of the same items (``debate-eval jury``)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from debate_eval._run import Run, load_run
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

    paths = [run.path if isinstance(run, Run) else run for run in runs]
    write_jury(paths, out, combine=combine, split=split)
    return load_run(out)
