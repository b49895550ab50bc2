"""``audit``: the judge card from Python, through the engine ``debate-eval audit`` uses
(``audit.run.run_audit``), and ``load_card`` for a card written earlier."""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval._evaluate import Data, evaluate, outside_event_loop, prepared_request
from debate_eval.tasks.analysis.audit.card import Card, read_card
from debate_eval.tasks.audit.plan import OWN_OPTIONS, audit_request_over_file

SOURCE = "audit()"
# the run keywords audit shares with evaluate (every other run option comes in ``options``)
RUN_KEYWORDS = {p.name for p in inspect.signature(evaluate).parameters.values() if p.kind is p.KEYWORD_ONLY} - {
    "config"
}


def audit(
    data: Data | None = None,
    *,
    aspect: str | None = None,
    method: str | Sequence[str] | None = None,
    model: str | None = None,
    base_url: str | None = None,
    provider: str | None = None,
    out: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    fields: Mapping[str, str] | str | None = None,
    template: str | os.PathLike[str] | None = None,
    criteria: str | None = None,
    scale: str | tuple[float, float] | None = None,
    facets: Sequence[str] | None = None,
    repeats: int | None = None,
    paraphrases: int | None = None,
    paraphrase_model: str | None = None,
    injections: Sequence[str] | None = None,
    budget_usd: float | None = None,
    bootstrap: int | None = None,
    ci_method: str | None = None,
    label: str | None = None,
    alt_epsilon: float | None = None,
    system_families: Mapping[str, str] | str | None = None,
    judge_family: str | None = None,
    config: str | os.PathLike[str] | None = None,
    quiet: bool = False,
    **options: Any,
) -> Card:
    """Audit a judge configuration on ``data`` and return its ``Card`` (``debate-eval audit``).

    ``data`` and the run keywords are ``evaluate``'s (a dataset name, a file, a list of dicts, a DataFrame, ...;
    every ``run`` option and method option by name; ``config=`` a TOML file under them). ``method`` may name
    several methods (``["debate", "geval"]`` or ``"debate,geval"``): one judge each, side by side. The audit's
    own keywords are the command's flags (``facets``, ``repeats``, ``paraphrases``, ``paraphrase_model``,
    ``injections``, ``budget_usd``, ``bootstrap``, ``ci_method``, ``label``; ``alt_epsilon`` for the alt-test,
    which reads the data's ``annotators`` field; ``system_families``, a system -> family mapping or the
    command's text or file, and ``judge_family`` for the self-preference facet), which ``config=`` gives too (a
    keyword wins over the file). Not given (None), each is the command's default: every facet, ``repeats=3``,
    ``paraphrases=1``, every injection variant, no budget, ``bootstrap=1000``, ``ci_method="percentile"``,
    ``alt_epsilon=0.1``. Without ``out`` the audit goes into a new temporary folder (``card.json`` there); with
    it, a rerun resumes and another model audited into the same folder joins the card. ``quiet``: no progress
    lines on standard output.

    Returns the card: ``card.figure("geval", "injection", "susceptibility").value``, ``card.to_pandas()`` (one
    row per judge, facet and figure), ``card.to_markdown()``, ``card.judges[0].facets``. Bad input raises
    ``UserError`` with the command's one-line message. Works inside a running event loop too (on a worker
    thread, as ``evaluate``).
    """
    from debate_eval.tasks.audit.run import run_audit

    keywords = {name: value for name, value in locals().items() if name in RUN_KEYWORDS}
    if method is not None and not isinstance(method, str):
        keywords["method"] = ",".join(method)
    keywords.update(options)
    run_request, obj = prepared_request(data, keywords, config, "debate-eval-audit-", OWN_OPTIONS)
    given = {name: value for name, value in locals().items() if name in OWN_OPTIONS}
    request = audit_request_over_file(
        run_request, given, config, f"debate_eval.audit(out={str(run_request.out)!r}, ...)"
    )
    with open(os.devnull, "w", encoding="utf-8") if quiet else contextlib.nullcontext() as stream:
        return outside_event_loop(lambda: run_audit(request, obj, stream=stream).card)


def load_card(path: str | os.PathLike[str]) -> Card:
    """The card of an audit folder (or a ``card.json``) written by ``audit`` or ``debate-eval audit``."""
    target = Path(path).expanduser()
    return read_card(target / "card.json" if target.is_dir() else target)
