"""Run (or resume) one evaluation into its run directory, on the backend its options choose
(``engine/backends/``): in this process, ``--workers`` processes or ``--ray`` tasks over shards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from autogen_core.models import ChatCompletionClient

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.wrappers import RetryListener, print_retry
from debate_eval.tasks.engine.backends.in_process import default_concurrency, run_in_process
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.summary import RunSummary, SystemsComparison
from debate_eval.tasks.engine.tally import Tally
from debate_eval.tasks.engine.task_builder import TaskBuilder, build_tasks

__all__ = ["RunSummary", "Tally", "TaskBuilder", "build_tasks", "default_concurrency", "run"]


async def run(
    config: RunConfig,
    options: RunOptions,
    *,
    clients: Mapping[str, ChatCompletionClient] | None = None,
    stream: TextIO | None = None,
    on_retry: RetryListener | None = print_retry,
    systems: SystemsComparison | None = None,
) -> RunSummary:
    """Run (or resume) the evaluation of ``config`` into ``options.out_dir`` (``stream``: the progress
    display's, default ``sys.stderr`` as it is when the run starts; ``on_retry``: told of every retry as it
    happens, ``agents/models/retry.py``; by default the progress display shows each as one line; ``systems``:
    the summary's per-system comparison, given by the caller's analysis, asked when a record names a system)."""
    if (options.workers or 1) > 1 or options.ray:  # processes or Ray tasks over shards, into this run directory
        if clients:
            raise UserError("--workers and --ray run the models in other processes: they take no client objects")
        if options.ray:
            from debate_eval.tasks.engine.backends.ray import run_ray

            return await run_ray(config, options, stream=stream, systems=systems)
        from debate_eval.tasks.engine.backends.workers import run_workers

        return await run_workers(config, options, stream=stream, systems=systems)
    return await run_in_process(config, options, clients=clients, stream=stream, on_retry=on_retry, systems=systems)
