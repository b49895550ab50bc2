"""The card of an audit folder, from its sub-runs' records (no model call): ``build_card``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.tasks.analysis.audit import base_facets, perturbation_facets, repeat_facets
from debate_eval.tasks.analysis.audit.alt_test import ALT_TEST, DEFAULT_EPSILON, alt_test_facet
from debate_eval.tasks.analysis.audit.card import FACETS, Card, JudgeCard
from debate_eval.tasks.analysis.audit.facet import Bootstrap, Facet, not_applicable, not_run
from debate_eval.tasks.analysis.audit.rows import words
from debate_eval.tasks.analysis.audit.self_preference import SELF_PREFERENCE, self_preference_facet
from debate_eval.tasks.audit.plan import BASE, CONTROL, INJECTED, PARAPHRASED, POSITION, repeat_run
from debate_eval.tasks.data.registry import PAIRWISE, Item
from debate_eval.tasks.engine.injections import PLAN_FILE, judged_field, plan_of
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.rundir import RunDir


def sub_run_records(out: Path, entry: Mapping[str, Any] | None) -> list[Record]:
    """The records of one sub-run (``{"dir", "config_hash"}`` in audit.json) of its configuration, the last
    line of an item winning, by key: not in the order the items finished, so a card rebuilt after an
    interrupted and resumed audit is the uninterrupted one's, float sums included; [] when it has none yet."""
    if not entry:
        return []
    config_hash = entry.get("config_hash")
    records = RunDir(out / str(entry["dir"])).latest_records(
        key=lambda record: record.key, keep=lambda record: record.config_hash == config_hash, messages=False
    )
    return sorted(records, key=lambda record: record.key)


def lengths_of(items: Sequence[Item], inputs_order: Sequence[str]) -> dict[str, Any]:
    """Words of each item's judged text (pairwise: of response A and of response B)."""
    out: dict[str, Any] = {}
    for item in items:
        if item.task_type == PAIRWISE:
            out[item.item_id] = (words(item.inputs.get("output_a")), words(item.inputs.get("output_b")))
        else:
            out[item.item_id] = words(item.inputs.get(judged_field(item, inputs_order)))
    return out


def read_plan(out: Path) -> dict[str, dict[str, Any]]:
    """``injections.jsonl``: the plan of the injected items, by injected item id."""
    path = out / PLAN_FILE
    if not path.is_file():
        return {}
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return plan_of({entry["item_id"]: entry for entry in entries})


def _missing(name: str, stopped: Mapping[str, str]) -> Facet:
    reason = stopped.get(name) or "its sub-run has no results yet (rerun the audit to resume)"
    return not_run(name, reason)


def judge_facets(
    out: Path,
    judge: Mapping[str, Any],
    lengths: Mapping[str, Any],
    pairwise: bool,
    settings: Bootstrap,
    stopped: Mapping[str, str],
    annotations: Mapping[str, Mapping[str, float]] | None = None,
    families: Mapping[str, str] | None = None,
) -> dict[str, Facet]:
    """Every facet of one judge of the folder (``annotations``: annotator -> item id -> rating, for the
    alt-test; ``families``: system -> model family, for self-preference)."""
    runs = judge.get("runs") or {}
    asked = set(judge.get("facets") or FACETS)
    how = judge.get("how") or {}
    base = sub_run_records(out, runs.get(BASE))
    facets: dict[str, Facet] = {}
    for name in FACETS:
        if name not in asked:
            facets[name] = not_run(name, "not asked for (--facets)")
    if "position" in asked and not pairwise:
        facets["position"] = not_applicable("position", "not pairwise: no order to swap")
    if "robustness" in asked and pairwise:
        facets["robustness"] = not_applicable("robustness", perturbation_facets.PAIRWISE_REASON)
    if not base:
        return {name: facets.get(name) or _missing(name, stopped) for name in FACETS}
    if "agreement" in asked:
        facets["agreement"] = base_facets.agreement(base, settings)
    if "verbosity" in asked:
        facets["verbosity"] = base_facets.verbosity(base, lengths, settings)
    if "scale" in asked:
        facets["scale"] = base_facets.scale_use(base, settings)
    scores_only = "built for scores; the verdicts of a pairwise run are not"
    if ALT_TEST in asked:
        if pairwise:
            facets[ALT_TEST] = not_applicable(ALT_TEST, scores_only)
        else:
            scores = {r.key: float(r.score) for r in base if r.score is not None}
            held = how.get("alt_epsilon")  # this invocation's: it changes the statistic, not the sub-runs
            epsilon = DEFAULT_EPSILON if held is None else float(held)  # 0 is a valid allowance
            facets[ALT_TEST] = alt_test_facet(scores, annotations or {}, epsilon)
    if SELF_PREFERENCE in asked:
        if pairwise:
            facets[SELF_PREFERENCE] = not_applicable(SELF_PREFERENCE, scores_only)
        else:
            rows = [(r.key, r.system_id, r.score, r.human_score) for r in base]
            facets[SELF_PREFERENCE] = self_preference_facet(rows, families or {}, judge_family(judge, families or {}))
    if "stability" in asked:
        repeats = int(how.get("repeats") or 1)
        sub = [(repeat_run(k), sub_run_records(out, runs.get(repeat_run(k)))) for k in range(1, repeats + 1)]
        present = [(name, records) for name, records in sub if records]
        if repeats < 2:
            facets["stability"] = not_applicable("stability", "needs --repeats 2 or more")
        elif len(present) < 2:
            facets["stability"] = _missing("stability", stopped)
        else:
            facets["stability"] = repeat_facets.stability(present, settings, how.get("stability", ""))
    if "position" in asked and pairwise:
        records = sub_run_records(out, runs.get(POSITION))
        facets["position"] = repeat_facets.position(records, settings) if records else _missing("position", stopped)
    if "robustness" in asked and not pairwise:
        records = sub_run_records(out, runs.get(PARAPHRASED))
        if records:
            facets["robustness"] = perturbation_facets.robustness(base, records, settings, how.get("robustness", ""))
        else:
            facets["robustness"] = _missing("robustness", stopped)
    if "injection" in asked:
        records = sub_run_records(out, runs.get(INJECTED))
        if records:
            facets["injection"] = perturbation_facets.injection(
                base,
                records,
                read_plan(out),
                settings,
                how.get("injection", ""),
                control=sub_run_records(out, runs.get(CONTROL)),
                rerun=sub_run_records(out, runs.get(repeat_run(2))),
            )
        else:
            facets["injection"] = _missing("injection", stopped)
    return {name: facets[name] for name in FACETS}


def judge_family(judge: Mapping[str, Any], families: Mapping[str, str]) -> str | None:
    """The judge's model family: ``--judge-family``, else the family the map gives one of its models."""
    given = (judge.get("how") or {}).get("judge_family")
    if given:
        return str(given)
    return next((families[model] for model in (judge.get("models") or {}).values() if model in families), None)


def annotations_of(items: Sequence[Item]) -> dict[str, dict[str, float]]:
    """annotator -> item id -> rating, from the items' ``annotator_scores``."""
    out: dict[str, dict[str, float]] = {}
    for item in items:
        for annotator, rating in item.annotator_scores.items():
            out.setdefault(annotator, {})[item.item_id] = rating
    return out


def build_card(
    out: Path,
    document: Mapping[str, Any],
    items: Sequence[Item],
    inputs_order: Sequence[str],
    settings: Bootstrap,
    stopped: Mapping[str, Mapping[str, str]] | None = None,
) -> Card:
    """The card of every judge in ``document`` (audit.json), on ``items``. ``stopped``: judge label -> facet
    -> why it was not run in this invocation (the budget)."""
    pairwise = any(item.task_type == PAIRWISE for item in items)
    lengths = lengths_of(items, inputs_order)
    annotations = annotations_of(items)
    families = {item.system_id: item.system_family for item in items if item.system_family and item.system_id}
    families |= dict(document.get("system_families") or {})  # --system-families wins over the data's field
    judges = []
    for judge in document.get("judges") or []:
        stops = (stopped or {}).get(judge["label"], {})
        facets = judge_facets(out, judge, lengths, pairwise, settings, stops, annotations, families)
        judges.append(
            JudgeCard(
                label=judge["label"],
                method=judge["method"],
                models=dict(judge.get("models") or {}),
                config_hash=judge["config_hash"],
                settings=dict(judge.get("settings") or {}),
                runs={name: str(entry["dir"]) for name, entry in (judge.get("runs") or {}).items()},
                facets=facets,
            )
        )
    return Card(
        dataset=str(document["dataset"]),
        aspect=str(document["aspect"]),
        task_type=PAIRWISE if pairwise else "single",
        items=len(items),
        selection=dict(document.get("selection") or {}),
        bootstrap={"n": settings.n, "ci_method": settings.ci_method, "min_units": settings.min_units},
        judges=judges,
        commands=list(document.get("commands") or []),
        scripted=bool(judges) and all(j.get("scripted") for j in document.get("judges") or []),
    )
