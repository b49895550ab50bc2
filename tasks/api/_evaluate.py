"""``evaluate`` / ``evaluate_async``: one run from Python, through the engine ``debate-eval run`` uses.

The keywords (and a ``config=`` TOML file under them) become a ``RunRequest`` exactly as the command's flags
do (``engine.request``); ``engine.build`` resolves it and ``engine.runner.run`` runs it: resume, response
cache, lock, transcripts and results appended to ``OUT/results.jsonl`` as items finish. Without ``out`` the
run goes into a new temporary directory (kept: ``Run.path``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import tempfile
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, Union

from debate_eval._run import Run, load_run
from debate_eval.tasks.engine.config_file import read_config_file
from debate_eval.tasks.engine.request import RunRequest

if TYPE_CHECKING:
    import datasets
    import pandas

Data = Union[str, "os.PathLike[str]", Sequence[Mapping[str, Any]], "pandas.DataFrame", "datasets.Dataset"]
SOURCE = "evaluate()"
T = TypeVar("T")


def make_request(
    data: Data | None,
    keywords: Mapping[str, Any],
    config: str | os.PathLike[str] | None,
    own: Collection[str] = (),
) -> tuple[RunRequest, object]:
    """The ``RunRequest`` of ``evaluate``'s keywords over a ``config`` file's options (its keys named in ``own``,
    a command's own options, left out), and the data object (None when ``data`` is a dataset name or a path,
    which goes into the request)."""
    given = {name: value for name, value in keywords.items() if value is not None}
    obj: object = None
    if isinstance(data, (str, os.PathLike)):
        given["dataset"] = os.fspath(data)
    elif data is not None:
        obj = data
    request = RunRequest.from_mapping(given, source=SOURCE)
    if config is not None:
        request = read_config_file(config, own)[0].updated(request)
    return request, obj


def prepared_request(
    data: Data | None,
    keywords: Mapping[str, Any],
    config: str | os.PathLike[str] | None,
    temp_prefix: str,
    own: Collection[str] = (),
) -> tuple[RunRequest, object]:
    """``make_request``, then its env file loaded and, without ``out``, a new temporary folder (``temp_prefix``
    starts its name) as ``out``."""
    from debate_eval.tasks.engine.environment import prepare_environment

    request, obj = make_request(data, keywords, config, own)
    prepare_environment(request.env_file)
    if not request.out:
        request = request.with_options(out=tempfile.mkdtemp(prefix=temp_prefix))
    return request, obj


def outside_event_loop(work: Callable[[], T]) -> T:
    """``work()`` in this thread when no event loop runs in it, else on a worker thread of its own (a Jupyter
    cell's loop is running: ``asyncio.run`` cannot run inside it)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="debate-eval") as pool:
        return pool.submit(work).result()


async def evaluate_async(
    data: Data | None = None, *, config: str | os.PathLike[str] | None = None, **keywords: Any
) -> Run:
    """``evaluate`` for code that already runs an event loop: ``run = await evaluate_async(...)``, with the
    keywords of ``evaluate``."""
    from debate_eval.tasks.analysis.end_of_run import compare_systems
    from debate_eval.tasks.engine import build
    from debate_eval.tasks.engine.runner import run

    request, obj = prepared_request(data, keywords, config, "debate-eval-")
    run_config, run_options = build.build_run(request, obj)
    for warning in build.method_warnings(run_config, request):
        warnings.warn(warning, UserWarning, stacklevel=2)
    await run(run_config, run_options, systems=compare_systems)
    return load_run(run_options.out_dir)


def evaluate(
    data: Data | None = None,
    *,
    aspect: str | None = None,
    method: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    provider: str | None = None,
    out: str | os.PathLike[str] | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    fields: Mapping[str, str] | str | None = None,
    template: str | os.PathLike[str] | None = None,
    criteria: str | None = None,
    scale: str | tuple[float, float] | None = None,
    config: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Run:
    """Evaluate ``data`` with one method and return the ``Run``.

    ``data``: a dataset name (``"summeval"``), a file (.jsonl/.csv/.json/.parquet), ``"hf:NAME[:CONFIG][:SPLIT]"``,
    a list of dicts, a pandas DataFrame or a ``datasets.Dataset``; your own data's columns are mapped with
    ``fields={"source": ..., "output": ..., "human": ...}`` as ``--fields``. Every ``debate-eval run`` option is
    a keyword of the same name (``max_tokens=64``, ``no_cache=True``, ``role_model={"critic": "gpt-4o"}``), and
    so is every option of the method (``max_rounds=3``, ``geval_samples=20``); ``config`` reads a TOML file
    first (``--config``), the keywords win. Bad input raises ``UserError`` with the command's one-line message.

    Works inside a running event loop (Jupyter) too: the run then goes on a worker thread with its own loop.
    """
    keywords = {name: value for name, value in locals().items() if name not in ("data", "config", "options")}
    call = evaluate_async(data, config=config, **keywords, **options)
    return outside_event_loop(lambda: asyncio.run(call))
