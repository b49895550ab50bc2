"""The judge card: every facet of one or several judge configurations on the same items, as ``card.json`` and
as Markdown (``card.md``); the HTML report draws it too (``report/audit_section.py``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.audit.facet import OK, TITLES, Facet, Figure, Interval

KIND = "debate-eval judge card"
VERSION = 1
FACETS = tuple(TITLES)  # the card's order


@dataclass
class JudgeCard:
    """The facets of one judge configuration (a method with its options and models)."""

    label: str
    method: str
    models: dict[str, str]
    config_hash: str
    settings: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, str] = field(default_factory=dict)  # sub-run name -> run directory (relative to the audit)
    facets: dict[str, Facet] = field(default_factory=dict)

    def facet(self, name: str) -> Facet:
        """The facet called ``name``."""
        return self.facets[name]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (its facets as ``Facet.to_dict``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> JudgeCard:
        """The inverse of ``to_dict``."""
        facets = {name: Facet.from_dict(f) for name, f in (value.get("facets") or {}).items()}
        return cls(**{**value, "facets": facets})


@dataclass
class Card:
    """The card of an audit: the data it was measured on and one ``JudgeCard`` per judge."""

    dataset: str
    aspect: str
    task_type: str
    items: int
    selection: dict[str, Any]
    bootstrap: dict[str, Any]
    judges: list[JudgeCard]
    commands: list[str] = field(default_factory=list)
    scripted: bool = False  # every judge talked to the scripted test server: the numbers are no model's

    def judge(self, label: str) -> JudgeCard:
        """The judge called ``label``."""
        found = next((judge for judge in self.judges if judge.label == label), None)
        if found is None:
            raise KeyError(f"no judge {label!r} in the card (judges: {', '.join(j.label for j in self.judges)})")
        return found

    def figure(self, judge: str, facet: str, key: str) -> Figure:
        """One figure: ``card.figure("geval", "stability", "alpha").value``."""
        return self.judge(judge).facet(facet).figure(key)

    def rows(self) -> list[dict[str, Any]]:
        """One row per judge, facet and figure (a facet without figures: one row with its status and reason);
        an interval withheld by the minimum-units rule leaves ci_low/ci_high empty and says why in ci_note."""
        out: list[dict[str, Any]] = []
        for judge in self.judges:
            for name, facet in judge.facets.items():
                base = {"judge": judge.label, "method": judge.method, "facet": name, "status": facet.status,
                        "reason": facet.reason, "n": facet.n, "unit": facet.unit}  # fmt: skip
                if not facet.figures:
                    out.append(base)
                for figure in facet.figures:
                    ci = figure.ci95
                    out.append(
                        {
                            **base,
                            "figure": figure.key,
                            "label": figure.label,
                            "value": figure.value,
                            "ci_low": ci[0] if isinstance(ci, list) else None,
                            "ci_high": ci[1] if isinstance(ci, list) else None,
                            "ci_note": ci if isinstance(ci, str) else None,
                            "baseline": figure.baseline,
                            "baseline_label": figure.baseline_label,
                        }
                    )
        return out

    def to_pandas(self) -> Any:
        """``rows()`` as a pandas DataFrame."""
        import pandas

        return pandas.DataFrame(self.rows())

    def to_markdown(self) -> str:
        """The card as Markdown (``card.md``)."""
        return card_markdown(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``card.json``)."""
        return {"kind": KIND, "version": VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Card:
        """The inverse of ``to_dict``."""
        body = {k: v for k, v in value.items() if k not in ("kind", "version")}
        return cls(**{**body, "judges": [JudgeCard.from_dict(j) for j in value.get("judges") or []]})


def read_card(path: Path) -> Card:
    """A ``card.json`` (a one-line ``UserError`` when it is not one)."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read the judge card ({type(error).__name__})") from None
    if not isinstance(value, dict) or value.get("kind") != KIND:
        raise UserError(f"{path}: not a judge card written by `debate-eval audit`")
    return Card.from_dict(value)


def fmt(value: float | None, digits: int = 3) -> str:
    """A number for the card, or an en dash."""
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(ci: Interval) -> str:
    """An interval, the minimum-units text, or an en dash."""
    if isinstance(ci, str):
        return ci
    if not ci:
        return "–"
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def figure_text(figure: Figure) -> str:
    """``0.812 [0.700, 0.900]`` and, with a baseline, ``; humans 0.100 [...]``."""
    text = f"{fmt(figure.value)} {fmt_ci(figure.ci95)}"
    if figure.baseline is not None or figure.baseline_label:
        text += f"; {figure.baseline_label or 'baseline'}: {baseline_text(figure)}"
    return text


def baseline_text(figure: Figure) -> str:
    """The baseline of a figure with its interval, when it has one (``0.100 [0.050, 0.150]``)."""
    return fmt(figure.baseline) + (f" {fmt_ci(figure.baseline_ci95)}" if figure.baseline_ci95 else "")


def card_markdown(card: Card) -> str:
    """The card as Markdown: what was audited, a table per facet (one row per figure and judge), each facet's
    method and n, the facets that do not apply and why."""
    lines = [f"# Judge card: {card.dataset} / {card.aspect}", ""]
    if card.scripted:
        lines += ["**Scripted run: the judges are the scripted test server, not models; the numbers show how the "
                  "card works, not how good any model is.**", ""]  # fmt: skip
    selection = ", ".join(f"{k} {v}" for k, v in card.selection.items() if v is not None) or "all items"
    intervals = _bootstrap_text(card)
    lines += [f"{card.items} items ({card.task_type}; {selection}). Intervals: {intervals}.", ""]
    lines += ["| judge | method | models | config |", "|---|---|---|---|"]
    for judge in card.judges:
        models = ", ".join(f"{role}: {model}" for role, model in sorted(judge.models.items()))
        lines.append(f"| {_cell(judge.label)} | {_cell(judge.method)} | {_cell(models)} | `{judge.config_hash}` |")
    lines.append("")
    for name in FACETS:
        facets = [(judge, judge.facets[name]) for judge in card.judges if name in judge.facets]
        if not facets:
            continue
        lines += [f"## {facets[0][1].title}", ""]
        done = [(judge, facet) for judge, facet in facets if facet.status == OK]
        if done:
            lines += ["| judge | figure | value [95% CI] | n |", "|---|---|---|---|"]
            for judge, facet in done:
                for figure in facet.figures:
                    cells = (judge.label, figure.label, figure_text(figure), f"{facet.n} {facet.unit}")
                    lines.append("| " + " | ".join(_cell(text) for text in cells) + " |")
            lines += ["", f"How: {done[0][1].method}"]
            for judge, facet in done:
                for note in facet.notes:
                    lines.append(f"- {judge.label}: {note}")
            lines.append("")
        for judge, facet in facets:
            if facet.status != OK:
                lines.append(f"- {judge.label}: {facet.status}: {facet.reason}")
        if any(facet.status != OK for _, facet in facets):
            lines.append("")
    if card.commands:
        lines += ["## Commands", "", "```", *card.commands, "```", ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    """Text for a Markdown table cell (a ``|`` in it would end the cell)."""
    return str(text).replace("|", "\\|")


def _bootstrap_text(card: Card) -> str:
    b = card.bootstrap
    if not b.get("n"):
        return "none (bootstrap 0)"
    return (
        f"{b.get('ci_method', 'percentile')} bootstrap, {b['n']} resamples, none below {b.get('min_units', 10)} "
        "units (the minimum-units rule of meta-eval)"
    )


def figure_labels(facets: Sequence[Facet | None]) -> list[str]:
    """The labels of the figures of the facets that ran, once each, in the order they first appear."""
    ran = [facet for facet in facets if facet is not None and facet.status == OK]
    return list(dict.fromkeys(figure.label for facet in ran for figure in facet.figures))


def card_table(cards: Sequence[JudgeCard]) -> list[tuple[str, str, list[str]]]:
    """(facet title, figure label, one cell per judge) for a compact side-by-side view (the command's output)."""
    rows: list[tuple[str, str, list[str]]] = []
    for name in FACETS:
        present = [judge.facets.get(name) for judge in cards]
        if not any(present):
            continue
        title = next(f.title for f in present if f is not None)
        labels = figure_labels(present)
        if not labels:
            reasons = [f"{f.status}: {f.reason}" if f is not None else "–" for f in present]
            rows.append((title, "", reasons))
            continue
        for label in labels:
            cells = []
            for facet in present:
                if facet is None or facet.status != OK:
                    cells.append("–" if facet is None else facet.status)
                    continue
                figure = next((f for f in facet.figures if f.label == label), None)
                if figure is None:
                    cells.append("–")
                elif isinstance(figure.ci95, str):  # below the minimum units: 0.812 (too few groups, n=2)
                    cells.append(f"{fmt(figure.value)} ({figure.ci95})")
                else:  # 0.812 [0.700, 0.900] n=24 items
                    cells.append(f"{fmt(figure.value)} {fmt_ci(figure.ci95)} n={facet.n} {facet.unit}")
            rows.append((title, label, cells))
    return rows
