"""What an audit runs: its request, its judges, and the sub-runs each facet needs.

An audit folder (``--out DIR``) holds one folder per judge (``DIR/LABEL``), and in it one ordinary run
directory per sub-run (``show``, ``meta-eval``, ``report`` read them; a rerun resumes each):

==============  ================================================  ==================================
sub-run         what it is                                        facets
==============  ================================================  ==================================
``base``        the judge on the selected items                   agreement, verbosity, scale use;
                                                                  the reference of the others
``repeat-K``    the same with seed + K - 1 (K = 2..repeats)        stability
``position``    pairwise, both orders (``--swap``)                position bias
``paraphrased`` the paraphrased texts (``DIR/paraphrases.jsonl``)  robustness
``injected``    the texts with a planted instruction              injection susceptibility
``control``     the texts with a neutral text of the same length  injection (its control)
==============  ================================================  ==================================

The injection facet also reads ``repeat-2`` (the plain rerun), which it asks for even without stability.

Shared by every judge of the folder (so they are measured on the same texts): the selection of items, the
paraphrases and the injected texts. ``DIR/audit.json`` records them and each judge's sub-runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.audit.alt_test import DEFAULT_EPSILON
from debate_eval.tasks.analysis.audit.card import FACETS
from debate_eval.tasks.analysis.audit.self_preference import read_families
from debate_eval.tasks.analysis.bootstrap import CI_METHODS, DEFAULT_CI_METHOD, DEFAULT_RESAMPLES, check_resamples
from debate_eval.tasks.engine.build import dataset_slug, method_name
from debate_eval.tasks.engine.request import RunRequest

BASE, POSITION, PARAPHRASED, INJECTED, CONTROL = "base", "position", "paraphrased", "injected", "control"
DEFAULT_REPEATS = 3
DEFAULT_PARAPHRASES = 1
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,80}$")


def repeat_run(k: int) -> str:
    """The name of the k-th run of the stability facet (the first is ``base``)."""
    return BASE if k == 1 else f"repeat-{k}"


@dataclass(frozen=True)
class AuditRequest:
    """Everything ``debate-eval audit`` (or ``debate_eval.audit``) is asked: the run options (``run``; its
    ``method`` may name several methods, ``a,b``; its ``out`` is the audit folder) and the audit's own."""

    run: RunRequest
    facets: tuple[str, ...] = FACETS
    repeats: int = DEFAULT_REPEATS
    paraphrases: int = DEFAULT_PARAPHRASES
    paraphrase_model: str | None = None
    injections: tuple[str, ...] = ()  # corpus variant ids; empty: all
    budget_usd: float | None = None
    bootstrap: int = DEFAULT_RESAMPLES
    ci_method: str = DEFAULT_CI_METHOD
    label: str | None = None
    commands: tuple[str, ...] = field(default_factory=tuple)  # how it was asked (for the card)
    alt_epsilon: float = DEFAULT_EPSILON  # the alt-test's allowance for the judge (0.1 crowd ... 0.2 experts)
    system_families: tuple[tuple[str, str], ...] = ()  # (system, model family) pairs, for self-preference
    judge_family: str | None = None  # the judge's family (else its model's entry in system_families)

    def __post_init__(self) -> None:
        unknown = [name for name in self.facets if name not in FACETS]
        if unknown or not self.facets:
            raise UserError(f"--facets: unknown facet {', '.join(unknown) or '(none)'}; valid: {', '.join(FACETS)}")
        if self.repeats < 1 or self.paraphrases < 1:
            raise UserError("--repeats and --paraphrases must be whole numbers >= 1")
        if self.budget_usd is not None and not self.budget_usd > 0:
            raise UserError(f"--budget-usd must be a number of dollars > 0, got {self.budget_usd!r}")
        check_resamples(self.bootstrap)
        if self.ci_method not in CI_METHODS:
            raise UserError(f"--ci-method: choose one of {', '.join(CI_METHODS)}")
        if self.label is not None and not _LABEL.match(self.label):
            raise UserError(f"--label {self.label!r}: letters, digits and _ . + - only (it names a folder)")
        if self.label is not None and len(self.methods()) > 1:
            raise UserError("--label names one judge; with several methods each is labelled by its method")
        if not 0 <= self.alt_epsilon < 1:
            raise UserError(f"--alt-epsilon must be in [0, 1), got {self.alt_epsilon!r}")
        if self.run.swap:
            raise UserError("--swap: the audit judges both orders itself (the position facet); leave it out")
        if self.run.shard:
            raise UserError(
                f"--shard {self.run.shard}: an audit judges every selected item (its card would stand on one shard "
                "and say all); split its work with --workers or --ray instead"
            )

    def methods(self) -> list[str]:
        """The methods to audit (``--method a,b``), the default method when none is given."""
        names = [name.strip() for name in (self.run.method or "").split(",") if name.strip()]
        return list(dict.fromkeys(names)) or [method_name(self.run)]

    def out_dir(self) -> Path:
        """The audit folder: ``--out``, else ``runs/audit_DATASET_ASPECT``."""
        if self.run.out:
            return Path(self.run.out)
        return Path("runs") / f"audit_{dataset_slug(str(self.run.dataset))}_{dataset_slug(str(self.run.aspect))}"


OWN_OPTIONS = {  # the audit's options (AuditRequest's fields) and the kind of value a config file gives
    "facets": tuple, "repeats": int, "paraphrases": int, "paraphrase_model": str, "injections": tuple,
    "budget_usd": float, "bootstrap": int, "ci_method": str, "label": str, "alt_epsilon": float,
    "system_families": dict, "judge_family": str,
}  # fmt: skip
_KIND_NAMES = {tuple: "names (a list of text or a comma-separated text)", int: "a whole number", float: "a number",
               str: "text", dict: "a table of system = family (or the --system-families text)"}  # fmt: skip


def split_names(text: str) -> tuple[str, ...]:
    """The names of a comma-separated text (``--facets a,b``)."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _as_field(name: str, value: Any) -> Any:
    """``value`` as ``AuditRequest``'s field ``name`` holds it (a system -> family mapping or its text as pairs)."""
    if OWN_OPTIONS[name] is dict:
        return tuple((read_families(value) if isinstance(value, str) else dict(value)).items())
    return tuple(value) if OWN_OPTIONS[name] is tuple else value


def options_from_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The audit's options a config file gives (``debate-eval audit --config``, ``debate_eval.audit(config=)``),
    as their flags give them; one line naming the file and the key for a value of another kind or out of range."""
    from debate_eval.tasks.engine.config_file import read_config_file

    found = {}
    for name, value in read_config_file(path, OWN_OPTIONS)[1].items():
        kind = OWN_OPTIONS[name]
        if isinstance(value, str) and kind in (tuple, dict):
            value = split_names(value) if kind is tuple else read_families(value)
        elif kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        texts = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        if (
            not isinstance(value, list if kind is tuple else kind)
            or isinstance(value, bool)
            or any(not isinstance(text, str) for text in texts)
        ):
            raise UserError(f"{path}: {name}: expected {_KIND_NAMES[kind]}, got {value!r}")
        found[name] = _as_field(name, value)
        try:  # its range, as AuditRequest checks it
            AuditRequest(run=RunRequest(), **{name: found[name]})
        except UserError as error:
            raise UserError(f"{path}: {name}: {error}") from None
    return found


def audit_request_over_file(
    run: RunRequest, given: Mapping[str, Any], config: str | os.PathLike[str] | None, command: str
) -> AuditRequest:
    """The ``AuditRequest`` of the audit's options ``given`` (None: not given) over the ``config`` file's
    (:func:`options_from_file`), the rest at their defaults; ``command`` is how it was asked (for the card)."""
    own = options_from_file(config) if config else {}
    own.update({name: _as_field(name, value) for name, value in given.items() if value is not None})
    return AuditRequest(run=run, commands=(command,), **own)


@dataclass(frozen=True)
class Judge:
    """One configuration to audit: its label (its folder's name) and its run request (one method)."""

    label: str
    request: RunRequest

    def folder(self, audit_dir: Path) -> Path:
        """``DIR/LABEL``."""
        return audit_dir / self.label

    def sub_request(self, audit_dir: Path, run: str, **changes: object) -> RunRequest:
        """The request of sub-run ``run`` (its folder ``DIR/LABEL/RUN``) with ``changes``."""
        return replace(self.request, out=str(self.folder(audit_dir) / run), **changes)  # type: ignore[arg-type]


def default_label(method: str, request: RunRequest) -> str:
    """The method, and the model when one is given (``geval``, ``geval_gpt-4o-mini``)."""
    if not request.model:
        return method
    return f"{method}_{re.sub(r'[^A-Za-z0-9_.+-]+', '-', request.model).strip('-')}"[:80]


def judges_of(request: AuditRequest) -> list[Judge]:
    """One judge per method of the request."""
    return [
        Judge(request.label or default_label(method, request.run), replace(request.run, method=method, out=None))
        for method in request.methods()
    ]


def facet_runs(facets: Sequence[str], repeats: int, pairwise: bool) -> list[str]:
    """The sub-runs the facets need, in the order they run: the base run first (every facet reads it), then
    the cheapest."""
    runs = [BASE]
    if "injection" in facets:
        runs += [INJECTED, CONTROL]
    if "position" in facets and pairwise:
        runs.append(POSITION)
    repeated = range(2, repeats + 1) if "stability" in facets else range(2, 3) if "injection" in facets else ()
    runs += [repeat_run(k) for k in repeated]
    if "robustness" in facets and not pairwise:
        runs.append(PARAPHRASED)
    return runs
