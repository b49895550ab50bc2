"""Run an audit: plan the sub-runs, print what each facet costs, run them within the budget, write the card.

``run_audit(request)`` is the engine of ``debate-eval audit`` and ``debate_eval.audit``. Every sub-run is an
ordinary run (``engine.runner.run``) into ``DIR/LABEL/RUN``, with the response cache, so a rerun of the same
command resumes where it stopped and makes no call for what is done. The card is recomputed from the
sub-runs' records every time (``assemble.build_card``) and written as ``card.json``, ``card.md`` and a
report page (``report.html``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.agents.models.token_estimate import count_text_tokens
from debate_eval.tasks.analysis.audit.card import Card, card_markdown
from debate_eval.tasks.analysis.audit.facet import Bootstrap
from debate_eval.tasks.analysis.end_of_run import compare_systems
from debate_eval.tasks.audit.assemble import build_card
from debate_eval.tasks.audit.estimate import JudgingCost, dry_run_cost, measured_cost, role_models, unpriced
from debate_eval.tasks.audit.folder import check_shared, read_audit, shared_setting, upsert_judge, write_audit
from debate_eval.tasks.audit.plan import (
    BASE,
    CONTROL,
    INJECTED,
    PARAPHRASED,
    POSITION,
    AuditRequest,
    Judge,
    facet_runs,
    judges_of,
)
from debate_eval.tasks.data.datasets import get_dataset, load_items, select_items
from debate_eval.tasks.data.frames import needs_copy
from debate_eval.tasks.data.registry import PAIRWISE, Item
from debate_eval.tasks.engine.accounting import load_prices
from debate_eval.tasks.engine.aspects import is_multi
from debate_eval.tasks.engine.build import build_run_config, build_run_options, model_overrides, resolve_dataset
from debate_eval.tasks.engine.injections import (
    choose_variants,
    judged_field,
    register_control,
    register_injected,
)
from debate_eval.tasks.engine.lock import RunLock
from debate_eval.tasks.engine.paraphrases import (
    PARAPHRASES_FILE,
    make_paraphrases,
    paraphrase_prompt,
    paraphrased_items,
    read_stored,
    register_paraphrased,
)
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.results import write_json_atomic
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.rundir import RunDir, refuse_nested_audit
from debate_eval.tasks.engine.runner import run

CARD_FILE, MARKDOWN_FILE, REPORT_FILE = "card.json", "card.md", "report.html"
PARAPHRASES_STEP = "paraphrases"
FACETS_OF_RUN = {  # what each sub-run is for (the plan's first column)
    BASE: "agreement, verbosity, scale, alt_test, self_preference",
    INJECTED: "injection",
    CONTROL: "injection",
    POSITION: "position",
    PARAPHRASED: "robustness",
    PARAPHRASES_STEP: "robustness",
}


@dataclass
class Step:
    """One sub-run of one judge (or the shared paraphrase step: ``judge`` None), with its estimate."""

    run: str
    judge: Judge | None
    judgings: int  # still to do
    calls: float
    usd: float | None
    note: str = ""


@dataclass
class AuditResult:
    """What an audit did: the card, where it is, and whether the budget stopped it."""

    card: Card
    out_dir: Path
    stopped: str | None = None
    failed: int = 0
    spent_usd: float | None = 0.0
    files: dict[str, Path] = field(default_factory=dict)


def _done(out_dir: Path, config: RunConfig) -> set[str]:
    """Items a sub-run already finished under its configuration."""
    config_hash = config.config_hash()
    return {
        record.key
        for record in RunDir(out_dir).iter_records(messages=False)
        if record.config_hash == config_hash and record.ok
    }


class Audit:
    """One invocation of an audit (see the module docstring)."""

    def __init__(self, request: AuditRequest, stream: TextIO, err: TextIO, data: object = None) -> None:
        self.request = request
        self.data = data
        self.stream, self.err = stream, err
        self.out = request.out_dir()
        self.judges = judges_of(request)
        self.configs: dict[str, RunConfig] = {}
        self.costs: dict[str, JudgingCost] = {}
        self.spent: float | None = 0.0
        self.failed = 0
        self.stopped: dict[str, dict[str, str]] = {}

    # ------------------------------------------------------------------ setup
    def prepare(self) -> None:
        """Check the request, load the items, register the shared derived sets, read audit.json."""
        run_request = self.request.run
        if (self.data is None and not run_request.dataset) or not run_request.aspect:
            raise UserError("give the data to audit: --dataset NAME|FILE and --aspect NAME")
        if is_multi(str(run_request.aspect)):
            raise UserError(f"audit takes one aspect at a time; --aspect {run_request.aspect} names several")
        if self.data is not None or needs_copy(run_request.dataset):  # copied once, into the audit folder
            first_method = replace(run_request, method=self.request.methods()[0], out=str(self.out))
            copied = resolve_dataset(first_method, self.data)
            run_request = replace(run_request, dataset=copied.dataset)
            self.request = replace(self.request, run=run_request)
            self.judges = judges_of(self.request)
        for judge in self.judges:
            self.configs[judge.label] = build_run_config(judge.sub_request(self.out, BASE))
        first = self.configs[self.judges[0].label]
        options = build_run_options(self.judges[0].sub_request(self.out, BASE), first)
        self.items: list[Item] = select_items(
            load_items(first.dataset, options.data_dir), limit=run_request.limit, docs=run_request.docs
        )
        if not self.items:
            raise UserError(f"{first.dataset}: no items selected")
        self.dataset, self.aspect = first.dataset, first.aspect
        self.spec = get_dataset(first.dataset)
        self.pairwise = self.spec.task_type == PAIRWISE
        self.scale = (first.template.scale.low, first.template.scale.high)
        self.document = read_audit(self.out)
        shared = {
            "dataset": self.dataset,
            "aspect": self.aspect,
            "selection": {"limit": run_request.limit, "docs": run_request.docs},
        }
        check_shared(self.document, shared, self.out)
        self.document.update(shared)
        scorer_model = first.models.for_role("scorer").model
        self.paraphrase_model = shared_setting(
            self.document, "paraphrase_model", self.request.paraphrase_model, scorer_model, self.out,
            "--paraphrase-model",
        )  # fmt: skip
        self.paraphrases = shared_setting(
            self.document, "paraphrases", self.request.paraphrases, self.request.paraphrases, self.out, "--paraphrases"
        )
        asked_variants = list(self.request.injections) or None
        self.variant_ids = shared_setting(
            self.document, "injections", asked_variants, [v.id for v in choose_variants(None)], self.out,
            "--injections",
        )  # fmt: skip
        self.variants = choose_variants(self.variant_ids)
        self.injected_name: str | None = None
        self.control_name: str | None = None
        if "injection" in self.request.facets:
            self.injected_name, _ = register_injected(
                self.items, self.dataset, self.aspect, self.scale, self.variants, self.out
            )
            self.control_name = register_control(
                self.items, self.dataset, self.aspect, self.scale, self.variants, self.out
            )
        self.paraphrased_name: str | None = None
        self._register_paraphrased_if_stored()
        self._check_labels()

    def _check_labels(self) -> None:
        """A judge folder that holds another configuration is refused up front, with the way out (--label)."""
        for judge in self.judges:
            held = next((j for j in self.document.get("judges") or [] if j.get("label") == judge.label), None)
            config_hash = self.configs[judge.label].config_hash()
            if held is not None and held.get("config_hash") != config_hash:
                raise UserError(
                    f"{judge.folder(self.out)} holds another configuration of judge {judge.label!r} (config "
                    f"{held.get('config_hash')}, this one {config_hash}); give --label NAME to audit this one "
                    "beside it, or another --out"
                )

    def _paraphrase_field(self) -> str:
        return judged_field(self.items[0], self.spec.inputs)

    def _register_paraphrased_if_stored(self) -> dict[str, dict[str, Any]]:
        """Register ``DATASET-paraphrased`` when every item's paraphrases are stored (no call needed)."""
        if self.pairwise or "robustness" not in self.request.facets:
            return {}
        fresh = self._stored_paraphrases()
        if all(item.item_id in fresh for item in self.items):
            variants = paraphrased_items(self.items, fresh, self.dataset)
            if variants:
                self.paraphrased_name = register_paraphrased(self.dataset, variants, self.out)
        return fresh

    def _stored_paraphrases(self) -> dict[str, dict[str, Any]]:
        """The stored paraphrases made by this audit's paraphrase model and count, by item id."""
        stored = read_stored(self.out / PARAPHRASES_FILE)
        return {
            k: v
            for k, v in stored.items()
            if v.get("model") == self.paraphrase_model and v.get("n") == self.paraphrases
        }

    # ------------------------------------------------------------------ sub-runs
    def sub_request(self, judge: Judge, name: str) -> RunRequest | None:
        """The request of sub-run ``name`` of ``judge`` (None: its data do not exist yet)."""
        if name == BASE:
            return judge.sub_request(self.out, BASE)
        if name == POSITION:
            return judge.sub_request(self.out, POSITION, swap=True)
        if name in (INJECTED, CONTROL, PARAPHRASED):
            dataset = {INJECTED: self.injected_name, CONTROL: self.control_name}.get(name, self.paraphrased_name)
            if dataset is None:
                return None
            return judge.sub_request(
                self.out, name, dataset=dataset, language=None, fields={}, labels={}, limit=None, docs=None
            )
        k = int(name.rsplit("-", 1)[1])  # repeat-K
        seed = self.configs[judge.label].models.for_role("scorer").sampling.seed
        if seed is None:  # no seed is sent: a repeat is a fresh call instead (the cache would answer it)
            return judge.sub_request(self.out, name, no_cache=True)
        return judge.sub_request(self.out, name, seed=seed + k - 1)

    def how_repeated(self, judge: Judge) -> str:
        """How the stability runs of ``judge`` differ."""
        seed = self.configs[judge.label].models.for_role("scorer").sampling.seed
        k = self.request.repeats
        if seed is None:
            return "no seed is sent: each run asks the model again with the response cache off"
        return (
            f"seeds {seed}..{seed + k - 1}, one per run; each run is a fresh request (the response cache is keyed on "
            "the seed) with the method's own sampling"
        )

    # ------------------------------------------------------------------ estimates
    def judging_cost(self, judge: Judge) -> JudgingCost:
        """The cost of one judging: measured on the base run when it has records, else a dry run."""
        config = self.configs[judge.label]
        config_hash = config.config_hash()
        records = RunDir(judge.folder(self.out) / BASE).iter_records(messages=False)
        cost = measured_cost((record for record in records if record.config_hash == config_hash), config)
        if cost is None:
            cost = dry_run_cost(judge.sub_request(self.out, BASE), self.items[0])
        self.costs[judge.label] = cost
        return cost

    def plan(self) -> list[Step]:
        """Every step, in the order they run (facet by facet, judge by judge), with estimates."""
        names = facet_runs(self.request.facets, self.request.repeats, self.pairwise)
        steps: list[Step] = []
        for name in names:
            if name == PARAPHRASED:
                steps.append(self._paraphrase_step())
            for judge in self.judges:
                steps.append(self._step(judge, name))
        return steps

    def _step(self, judge: Judge, name: str) -> Step:
        cost = self.costs.get(judge.label) or self.judging_cost(judge)
        request = self.sub_request(judge, name)
        if request is None:  # the paraphrased set is made by the step before
            expected, done = len(self.items) * self.paraphrases, 0
        else:
            config = build_run_config(request)
            expected = len(self.items) * (self.paraphrases if name == PARAPHRASED else 1)
            done = len(_done(Path(str(request.out)), config))
        judgings = max(expected - done, 0)
        per = cost.calls * (2 if name == POSITION and self.request.run.no_cache else 1)
        if not judgings:  # nothing left to judge costs nothing, priced or not
            usd: float | None = 0.0
        else:
            usd = None if cost.usd is None else judgings * cost.usd * (per / cost.calls if cost.calls else 1)
        note = (
            "the first order comes from the base run's cache"
            if name == POSITION and not self.request.run.no_cache
            else ""
        )
        return Step(name, judge, judgings, judgings * per, usd, note)

    def _paraphrase_step(self) -> Step:
        stored = self._register_paraphrased_if_stored()
        missing = [item for item in self.items if item.item_id not in stored]
        field_name = self._paraphrase_field()
        tokens = sum(count_text_tokens(str(item.inputs.get(field_name, ""))) for item in missing)
        prompt = len(missing) * count_text_tokens(paraphrase_prompt()) + tokens
        completion = tokens * self.paraphrases
        price = load_prices().get(self.paraphrase_model)
        usd = 0.0 if not missing else None if price is None else price.cost(prompt, 0, completion)
        return Step(PARAPHRASES_STEP, None, len(missing), float(len(missing)), usd, f"by {self.paraphrase_model}")

    def purpose(self, run_name: str) -> str:
        """What a sub-run is for (the plan's column): repeat-2 is also the injection facet's plain rerun."""
        facets = self.request.facets
        if run_name == "repeat-2" and "injection" in facets:
            return "stability, injection rerun" if "stability" in facets else "injection rerun"
        return FACETS_OF_RUN.get(run_name, "stability")

    def print_plan(self, steps: Sequence[Step]) -> None:
        """The calls (and dollars) each facet needs, before anything runs."""
        out = self.stream
        labels = ", ".join(j.label for j in self.judges)
        print(
            f"audit of {self.dataset}/{self.aspect}: {len(self.items)} items, judges: {labels}; folder {self.out}",
            file=out,
        )
        for judge in self.judges:
            cost = self.costs[judge.label]
            print(f"  {judge.label}: {cost.calls:.1f} calls per judging, {cost.describe()}", file=out)
        print(f"  {'sub-run':<14} {'judge':<22} {'for':<28} {'judgings':>8} {'calls':>8} {'est. cost':>10}", file=out)
        for step in steps:
            who = step.judge.label if step.judge else "(shared)"
            cost = "unknown" if step.usd is None else f"${step.usd:.4f}"
            facet = self.purpose(step.run)
            line = f"  {step.run:<14} {who:<22} {facet:<28} {step.judgings:>8} {step.calls:>8.0f} {cost:>10}"
            print(line + (f"  ({step.note})" if step.note else ""), file=out)
        total_calls = sum(step.calls for step in steps)
        costs = [step.usd for step in steps]
        total = "unknown (a model has no price in prices.csv)" if None in costs else f"${sum(costs):.4f}"  # type: ignore[arg-type]
        print(f"  total: {total_calls:.0f} calls at most, estimated cost {total}", file=out)

    def check_budget_prices(self) -> None:
        """With --budget-usd every model must have a price (else the budget could not be kept)."""
        if self.request.budget_usd is None:
            return
        prices = load_prices()
        missing = sorted({m for config in self.configs.values() for m in unpriced(role_models(config), prices)})
        if "robustness" in self.request.facets and not self.pairwise and self.paraphrase_model not in prices:
            missing = sorted({*missing, self.paraphrase_model})
        if missing:
            raise UserError(
                f"--budget-usd: no price for {', '.join(missing)} in the price table (tasks/engine/prices.csv or "
                "$DEBATE_EVAL_PRICES); add a row, or leave out --budget-usd"
            )

    # ------------------------------------------------------------------ execution
    def execute(self, steps: list[Step]) -> str | None:
        """Run the steps in order; stop before one whose estimate would take the spending past the budget."""
        budget = self.request.budget_usd
        remeasured: set[str] = set()
        for index, step in enumerate(steps):
            if step.judge is not None and step.run != BASE and step.judge.label not in remeasured:
                remeasured.add(step.judge.label)  # the base run is done: price the rest with its measured cost
                self.judging_cost(step.judge)
            if step.run != BASE:
                step = self._step(step.judge, step.run) if step.judge is not None else self._paraphrase_step()
            if budget is not None and step.judgings:
                spent = self.spent or 0.0
                if step.usd is None or spent + step.usd > budget:
                    return self._stop(steps[index:], spent, step, budget)
            self._execute_step(step)
        return None

    def _stop(self, rest: Sequence[Step], spent: float, step: Step, budget: float) -> str:
        estimate = "unknown" if step.usd is None else f"${step.usd:.4f}"
        who = step.judge.label if step.judge else "all judges"
        reason = (
            f"stopped by --budget-usd {budget:g}: spent ${spent:.4f}, sub-run {step.run} ({who}) estimated {estimate}"
        )
        for later in rest:
            for judge in [later.judge] if later.judge else self.judges:
                for facet in FACETS_OF_RUN.get(later.run, "stability").split(", "):
                    self.stopped.setdefault(judge.label, {})[facet] = reason
        print(
            f"debate-eval: audit {reason}; the card shows what ran (rerun with a larger budget to go on)", file=self.err
        )
        return reason

    def _execute_step(self, step: Step) -> None:
        if step.judge is None:
            self._make_paraphrases()
            return
        request = self.sub_request(step.judge, step.run)
        if request is None:
            return
        config = build_run_config(request)
        options = build_run_options(request, config)
        summary = asyncio.run(run(config, options, systems=compare_systems))
        self.failed += summary.now.failed
        if summary.cost_usd is None:
            self.spent = None
        elif self.spent is not None:
            self.spent += summary.cost_usd
        who = step.judge.label
        print(
            f"{who}/{step.run}: {summary.selected} judgings, {summary.already_done} already done, "
            f"{summary.now.finished} finished now, {summary.now.failed} failed; {summary.now.accounting.llm_calls} "
            f"model calls, {summary.now.accounting.cached_calls} from the cache",
            file=self.stream,
        )
        entry = {"dir": str(Path(str(request.out)).relative_to(self.out)), "config_hash": config.config_hash()}
        upsert_judge(self.document, {"label": step.judge.label, "runs": {step.run: entry}})
        write_audit(self.out, self.document)

    def _make_paraphrases(self) -> None:
        request = self.judges[0].sub_request(self.out, BASE)
        overrides = model_overrides(request)
        if self.paraphrase_model != self.configs[self.judges[0].label].models.for_role("scorer").model:
            overrides = replace(overrides, model=self.paraphrase_model, role_models={})
        models = resolve_model_config(overrides)
        before = set(self._stored_paraphrases())
        stored = asyncio.run(
            make_paraphrases(
                self.items,
                self.paraphrases,
                models,
                self.out,
                use_cache=not request.no_cache,
                cache_dir=Path(request.cache_dir) if request.cache_dir else None,
                concurrency=request.concurrency or 8,
                preflight=not request.no_preflight,
                field=self._paraphrase_field(),
            )
        )
        made = [entry for key, entry in stored.items() if key not in before]  # paraphrase entries
        price = load_prices().get(self.paraphrase_model)
        for usage in (usage for entry in made for usage in (entry.get("usage") or {}).values()):
            tokens = (int(usage.get("billed_prompt_tokens") or 0), 0, int(usage.get("billed_completion_tokens") or 0))
            cost = None if price is None else price.cost(*tokens)
            self.spent = None if cost is None or self.spent is None else self.spent + cost
        variants = paraphrased_items(self.items, stored, self.dataset)
        if not variants:
            raise UserError(f"the paraphrase model gave no rewrites (see {self.out / PARAPHRASES_FILE})")
        self.paraphrased_name = register_paraphrased(self.dataset, variants, self.out)
        print(f"paraphrases: {len(made)} items rewritten now by {self.paraphrase_model}", file=self.stream)

    # ------------------------------------------------------------------ the folder's record
    def record_judges(self) -> None:
        """Each judge of this invocation in audit.json (before its sub-runs, so an interrupted audit is known)."""
        for judge in self.judges:
            config = self.configs[judge.label]
            upsert_judge(
                self.document,
                {
                    "label": judge.label,
                    "method": config.protocol,
                    "models": {role: config.models.for_role(role).model for role in config.roles()},
                    "config_hash": config.config_hash(),
                    "settings": config.method.describe(config.method_config),
                    "scripted": all(config.models.for_role(role).provider == "scripted" for role in config.roles()),
                    "facets": list(self.request.facets),
                    "how": {
                        "repeats": self.request.repeats,
                        "alt_epsilon": self.request.alt_epsilon,
                        "judge_family": self.request.judge_family,
                        "stability": self.how_repeated(judge),
                        "robustness": f"{self.paraphrases} paraphrase(s) of each judged text "
                        f"({self._paraphrase_field()}) by {self.paraphrase_model}, stored in {PARAPHRASES_FILE}",
                        "injection": f"Each judged text with one instruction of the corpus appended "
                        f"(tasks/engine/injections.json; variants in turn: {', '.join(self.variant_ids)}); "
                        "the planted value is the end of the scale farther from the human score (pairwise: the "
                        "response the humans did not prefer); the control: the same items with a neutral text of "
                        "as many words and characters at the same place, and the plain rerun (repeat-2)",
                    },
                },
            )
        if self.request.system_families:
            self.document["system_families"] = {
                **(self.document.get("system_families") or {}),
                **dict(self.request.system_families),
            }
        self.document["paraphrase_model"] = self.paraphrase_model
        self.document["paraphrases"] = self.paraphrases
        self.document["injections"] = list(self.variant_ids)
        commands = self.document.setdefault("commands", [])
        for command in self.request.commands:
            if command not in commands:
                commands.append(command)
        write_audit(self.out, self.document)

    def card(self) -> Card:
        """The card of the folder (every judge in it)."""
        settings = Bootstrap(n=self.request.bootstrap, ci_method=self.request.ci_method)
        return build_card(self.out, self.document, self.items, self.spec.inputs, settings, self.stopped)


def run_audit(
    request: AuditRequest, data: object = None, stream: TextIO | None = None, err: TextIO | None = None
) -> AuditResult:
    """Run (or resume) the audit and write its card; see the module docstring. ``data``: data given as an
    object (a list of dicts, a DataFrame, a ``datasets.Dataset``), validated and copied to ``OUT/data.jsonl``
    as ``evaluate`` does. Progress lines go to ``stream`` (default standard output), the budget's stop to
    ``err`` (default standard error)."""
    audit = Audit(request, stream or sys.stdout, err or sys.stderr, data)
    refuse_nested_audit(audit.out)
    audit.out.mkdir(parents=True, exist_ok=True)
    with RunLock(audit.out):
        audit.prepare()
        audit.check_budget_prices()
        steps = audit.plan()
        audit.print_plan(steps)
        audit.record_judges()
        stopped = audit.execute(steps)
        card = audit.card()
        files = write_card(card, audit.out)
    return AuditResult(card, audit.out, stopped, audit.failed, audit.spent, files)


def write_card(card: Card, out: Path) -> dict[str, Path]:
    """``card.json``, ``card.md`` and ``report.html`` in ``out``."""
    from debate_eval.tasks.analysis.report.audit_section import render_audit
    from debate_eval.tasks.analysis.report.page import write_page

    write_json_atomic(out / CARD_FILE, card.to_dict())
    return {
        "card": out / CARD_FILE,
        "markdown": write_page(out / MARKDOWN_FILE, card_markdown(card)),
        "report": write_page(out / REPORT_FILE, render_audit(card, out)),
    }
