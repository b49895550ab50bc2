"""What a run did (``RunSummary``, written to ``summary.json`` through ``RunDir``), the run's first line and its
span: shared by the backends (in this process, ``--workers``, ``--ray``) and the command line."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.agents.models.wrappers import TransportStats
from debate_eval.agents.telemetry import run_span
from debate_eval.tasks.engine.accounting import PriceTable, load_prices
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.reread import Reread
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.rundir import ResultsWriteError
from debate_eval.tasks.engine.tally import Tally

if TYPE_CHECKING:
    from opentelemetry import trace

    from debate_eval.tasks.engine.results import ResultsStore

# what the caller's analysis makes of the run's records when some name a system (or have no human rating): the
# summary's per-system comparison (``tasks/analysis``; the engine does not import it, its caller passes it)
SystemsComparison = Callable[[Sequence[Any]], "dict[str, Any] | None"]


@dataclass
class RunSummary:
    """What a run did: ``total`` over every record of its configuration in results.jsonl (earlier invocations
    included), ``now`` over the items this invocation ran."""

    out_dir: Path
    selected: int = 0
    already_done: int = 0
    elapsed_s: float = 0.0  # this invocation's wall time
    now: Tally = field(default_factory=Tally)
    total: Tally = field(default_factory=Tally)
    transport: TransportStats = field(default_factory=TransportStats)  # this invocation's requests and retries
    cost_usd: float | None = None  # this invocation
    rate_limits: list[dict[str, Any]] = field(default_factory=list)  # each endpoint's limiter (rate_limit.py)
    total_cost_usd: float | None = None
    # per aspect, the systems' means and paired comparisons or win rates (analysis.systems.run_systems)
    systems: dict[str, Any] | None = None
    reread: Reread | None = None  # records of an older parser read again on resume (engine/reread.py)
    workers: int | None = None  # the shards a --workers or --ray run ran as (None: in this process)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``summary.json``): the run's totals, and this invocation apart."""
        now = self.now.to_dict(self.cost_usd)
        now["attempted"] = now.pop("items")
        systems = {"systems": self.systems} if self.systems else {}
        return {
            **self.total.to_dict(self.total_cost_usd),
            **systems,
            "this_invocation": {
                "selected": self.selected,
                "already_done": self.already_done,
                **now,
                "retries": sum(self.transport.retries.values()),
                "transport": self.transport.to_dict(),
                "rate_limits": self.rate_limits,
                "elapsed_s": round(self.elapsed_s, 3),
                **({"reread": self.reread.to_dict()} if self.reread else {}),
            },
            **({"workers": self.workers} if self.workers is not None else {}),
        }

    def write(
        self, config: RunConfig, store: ResultsStore, systems: SystemsComparison | None, *, failing: bool
    ) -> None:
        """The run's totals over every record of its configuration, its systems and costs, into the run
        directory's ``summary.json``, as every backend ends (a write error is raised unless another error,
        ``failing``, is already on its way)."""
        store.recount()  # a retried or repeated item was counted: the whole run again (``close`` did, mostly)
        self.total = store.tally
        self.systems = compared_systems(self.total, lambda: store.run_records(messages=False), systems)
        # this invocation's and the run's costs at today's prices (``priced``); a role outside ROLES (G-Eval's
        # evaluator, a ChatEval referee) uses the Scorer's model
        prices = load_prices()  # read once for both

        def model_of(role: str) -> str:
            return config.models.for_role(role).model

        self.cost_usd = priced(self.now, model_of, prices)
        self.total_cost_usd = priced(self.total, model_of, prices)
        try:
            store.run_dir.write_summary(self.to_dict())
        except ResultsWriteError:
            if not failing:  # the error already on its way (a full disk, Ctrl-C) is the one to report
                raise


def priced(tally: Tally, model_of: Callable[[str], str], prices: PriceTable | None = None) -> float | None:
    """The estimated dollars of ``tally``'s billed tokens at ``prices`` (default: today's,
    ``accounting.load_prices``), each role's at the price of its model (``model_of``); None when a role's model
    has no price."""
    roles = {role: model_of(role) for role in tally.accounting.roles}
    return tally.accounting.cost(roles, prices if prices is not None else load_prices())


def priced_as_configured(tally: Tally, document: dict[str, Any]) -> float | None:
    """``priced``, each role at the model a run's ``config.json`` (``document``) gives it, the Scorer's for a
    role it names none for (as ``ModelConfig.for_role``): what the run of that configuration reports."""
    roles = (document.get("models") or {}).get("roles") or {}
    return priced(tally, lambda role: str((roles.get(role) or roles.get("scorer") or {}).get("model") or ""))


def compared_systems(
    total: Tally, records: Callable[[], Iterable[Record]], systems: SystemsComparison | None
) -> dict[str, Any] | None:
    """The summary's systems block over a run's ``records`` (read without transcripts, only when needed), when
    ``total`` says a record names a system or has no human rating and the caller gave a comparison."""
    if not total.systems or systems is None:
        return None
    return systems([record.systems_row() for record in records()])


def start_line(config: RunConfig, summary: RunSummary) -> str:
    """The run's first line: ``DATASET/ASPECT [METHOD]: N items selected, M already done``, and with the
    embedded model what the run waits for (its answers come slowly on a busy CPU, and nothing else is
    printed until an item finishes)."""
    line = (
        f"{config.dataset}/{config.aspect} [{config.protocol}]: {summary.selected} items selected, "
        f"{summary.already_done} already done"
    )
    if config.models.needs_embedded and summary.selected > summary.already_done:
        timeout = max(s.timeout_s for s in config.models.roles.values())
        line += (
            f"; waiting for the embedded model (a local process: each answer can take minutes on a busy "
            f"machine; a call is given up after {timeout:.0f} s)"
        )
    return line


def run_span_of(config: RunConfig, options: RunOptions, items: int) -> AbstractContextManager[trace.Span | None]:
    """The run's span (``agents/telemetry.run_span``) over ``items`` pending items, as the single-process runner
    and the parent of ``--workers`` / ``--ray`` open it."""
    return run_span(
        dataset=config.dataset,
        aspect=config.aspect,
        method=config.protocol,
        items=items,
        content=options.trace_content,
    )
