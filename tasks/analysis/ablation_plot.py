"""The ablation figure: three panels like the paper's Figure 2 (rounds, Critic persona, debating style).

The y axis is the group-level Spearman ρ of each cell (SummEval: per document; Topical-Chat: per
context). Red marks are the paper's GPT-4 numbers where its text gives them for this aspect: Table 1
(DEBATE = Devil's Advocate, MultiAgent = plain Critic, G-Eval-4, ChatEval) and Table 3 (sophisticated Critic).
Figure 2's own points are only drawn in the paper's image, so they are not shown.

The persona and protocol panels compare debates at one n: the largest n of the grid's rounds (or the run's
``--max-rounds``), named in their titles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.debates.base import get_method
from debate_eval.tasks.analysis.paper_tables import PAPER_TABLE3, paper_value

PROTOCOL_REFERENCE = {"debate": "DEBATE", "multiagent": "MultiAgent", "geval": "G-Eval-4", "chateval": "ChatEval"}


def paper_reference(kind: str, name: str, dataset: str, aspect: str) -> float | None:
    """The paper's GPT-4 ρ for a persona or protocol bar, where the paper states it."""
    if kind == "critic":
        if name == "sophisticated" and dataset == "summeval":
            return PAPER_TABLE3["Sophisticated"].get(aspect, {}).get("spearman")  # Table 3's sophisticated Critic
        reference = {"devils-advocate": "DEBATE", "plain": "MultiAgent"}.get(name)
    else:
        reference = PROTOCOL_REFERENCE.get(name)
    return paper_value(reference, dataset, aspect, "spearman") if reference else None


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _rounds_of(row: dict[str, Any]) -> int | None:
    value = _number(row.get("rounds"))
    return int(value) if value is not None else None


def persona_bars(rows: Sequence[dict[str, Any]], rounds: int | None) -> dict[str, float | None]:
    """The middle panel: ρ per Critic persona, debates at n = ``rounds`` without Tie-breaker or LLM Commander."""
    by_critic: dict[str, float | None] = {}
    for row in rows:
        plain = str(row.get("tiebreaker")).lower() != "true" and row.get("commander") != "llm"  # True or "true"
        if _has_critic(row) and _rounds_of(row) == rounds and plain:
            by_critic.setdefault(str(row["critic"]), _number(row.get("spearman")))
    return by_critic


def protocol_bars(rows: Sequence[dict[str, Any]], rounds: int | None) -> dict[str, float | None]:
    """The right panel: ρ per protocol, each debate protocol with its own Critic at n = ``rounds``."""
    by_protocol: dict[str, float | None] = {}
    for row in rows:
        method = get_method(str(row["protocol"]))
        own_critic = getattr(method, "critic", None)  # a DEBATE variant's own Critic persona
        if not method.has_critic or (_rounds_of(row) == rounds and row.get("critic") == own_critic):
            by_protocol.setdefault(str(row["protocol"]), _number(row.get("spearman")))
    return by_protocol


def _has_critic(row: dict[str, Any]) -> bool:
    """True for a row of a DEBATE-family method (a Critic, rounds)."""
    return get_method(str(row["protocol"])).has_critic


def _bars(ax: Any, bars: Mapping[str, float | None], varied: str, dataset: str, aspect: str, title: str) -> None:
    """One bar a value of the ``varied`` setting (``critic`` or ``protocol``), the paper's number over it."""
    labels, values = list(bars), list(bars.values())
    refs = [paper_reference(varied, label, dataset, aspect) for label in labels]
    positions = list(range(len(labels)))
    ax.bar(positions, [v if v is not None else 0.0 for v in values], color="#4C72B0")
    for x, value in zip(positions, values, strict=True):
        ax.text(x, (value or 0.0), "n/a" if value is None else f"{value:.2f}", ha="center", va="bottom", fontsize=8)
    marked = False
    for x, ref in zip(positions, refs, strict=True):
        if ref is not None:
            ax.plot([x - 0.4, x + 0.4], [ref, ref], color="red", linewidth=2, label=None if marked else "paper, GPT-4")
            marked = True
    if marked:
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xticks(positions, labels, rotation=30, ha="right", fontsize=8)
    ax.set_xlim(-0.6, max(len(labels), 1) - 0.4)
    ax.set_title(title, fontsize=10)
    if not labels:
        ax.text(0.5, 0.5, "no cells vary this", ha="center", va="center", transform=ax.transAxes)


def plot_ablation(
    rows: Sequence[dict[str, Any]], dataset: str, aspect: str, path: Path, *, rounds: int | None = None
) -> dict[str, Any]:
    """Draw the three panels into ``path`` (PNG); the persona and protocol panels at n = ``rounds`` (default:
    the largest n among the rows). Returns what the bar panels show: ``rounds``, ``personas``, ``protocols``
    and the panel ``titles``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4.5))
    debate_rows = [r for r in rows if _has_critic(r)]

    series: dict[str, list[tuple[int, float | None]]] = {}
    for row in debate_rows:
        key = f"{row['protocol']} / {row['critic']}" + (" / LLM commander" if row.get("commander") == "llm" else "")
        series.setdefault(key, []).append((int(row["rounds"]), _number(row.get("spearman"))))
    for key, points in series.items():
        points.sort()
        left.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=key)
    left.set_xlabel("n (maximum rounds)")
    left.set_ylabel(f"Spearman ρ ({dataset} {aspect})")
    left.set_title("Number of rounds", fontsize=10)
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    if series:
        left.legend(fontsize=7)

    if rounds is None:
        rounds = max((n for n in map(_rounds_of, debate_rows) if n is not None), default=None)
    by_critic = persona_bars(rows, rounds)
    at_n = f"n = {rounds}" if rounds is not None else "no debate cells"
    persona_title = f"Critic persona ({at_n})"
    _bars(middle, by_critic, "critic", dataset, aspect, persona_title)

    by_protocol = protocol_bars(rows, rounds)
    protocol_title = "Debating style / protocol" + (f" (debates at n = {rounds})" if rounds is not None else "")
    _bars(right, by_protocol, "protocol", dataset, aspect, protocol_title)
    for ax in (left, middle, right):
        ax.axhline(0, color="grey", linewidth=0.5)
    fig.suptitle(f"Ablation on {dataset} / {aspect} (this run's model; red: the paper's GPT-4 numbers)", fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return {
        "rounds": rounds,
        "personas": by_critic,
        "protocols": by_protocol,
        "titles": ["Number of rounds", persona_title, protocol_title],
    }
