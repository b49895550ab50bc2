"""Which published row stands beside a run's numbers: chosen per method, dataset and definition.

One choice for ``debate-eval meta-eval``, its ``--json`` and the HTML report (:func:`reference_for`):

- DEBATE family (``debate``, ``tiebreaker``, ``both``): the DEBATE paper's Table 1 DEBATE row (GPT-4); its
  ``multiagent`` baseline: the same table's MultiAgent row. SummEval summary level, Topical-Chat per-context.
- ``geval``: G-Eval's own Table 1 on SummEval; on Topical-Chat pooled, G-Eval's GPT-4 numbers as ChatEval's
  Table 2 quotes them (row G-EVAL-4); on Topical-Chat per-context, the DEBATE authors' reproduction (DEBATE
  Table 1, row G-Eval-4), as the G-Eval paper reports no per-context number.
- ``chateval``: ChatEval's Table 2 GPT-4(MA) row on Topical-Chat pooled, its Table 1 GPT-4 Multi-Agent row on
  FairEval (pairwise); on SummEval and Topical-Chat per-context, the DEBATE authors' reproduction (DEBATE
  Table 1, row ChatEval), as the ChatEval paper has no such number.
- ``fennec`` on a pairwise set Fennec's Table 2 reports (Auto-J's pairwise test, PandaLM-test, MT-Bench): the
  Fennec-7B row (the paper's trained model; this project runs Fennec's method on another model).
- ``dialevalml`` on FED: none; the DialEvalML paper reports no FED numbers (its Tables 3-4 are DSTC11 Track 4
  test-set averages).
- Imported runs (records with ``imported``) and the user's own data: none, unless a reference is asked for by
  name (``--reference NAME``: a method name above, or a named row of :data:`NAMED_ROWS`).

Every value is on the run's scale: percentages in the papers (accuracy, agreement, consistency) are divided
by 100 here; :mod:`paper_tables` keeps the papers' own units for the published tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from debate_eval.tasks.analysis.paper_tables import (
    CHATEVAL_TAU_NOTE,
    PAIRWISE,
    PAPER_TABLE1,
    PAPER_TABLE3,
    PER_GROUP,
    POOLED,
    PUBLISHED,
)
from debate_eval.tasks.analysis.records import RecordLike, score_row

DEBATE_PAPER = "DEBATE (Kim et al. 2024)"
DEBATE_FAMILY = ("debate", "tiebreaker", "both")
KNOWN_METHODS = (*DEBATE_FAMILY, "multiagent", "geval", "chateval", "fennec", "dialevalml")
NO_REFERENCE = "none"
FENNEC_SETS = ("autoj_pairwise", "pandalm", "mt_bench")
FED_SETS = ("fed_turn", "fed_dialogue", "xdial_fed_turn", "xdial_fed_dialogue")


@dataclass(frozen=True)
class Reference:
    """One published row: which paper, table and row, for which dataset and definition, and its values."""

    paper: str
    table: str
    row: str
    dataset: str
    definition: str  # paper_tables.PER_GROUP, POOLED, ITEM_LEVEL or PAIRWISE
    values: Mapping[str, Mapping[str, float]] = field(hash=False)  # aspect (or "average") -> statistic -> value
    note: str = ""

    def label(self) -> str:
        """``DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4)`` (the note apart, see ``note``)."""
        return f"{self.paper} {self.table}, row {self.row}"

    def value(self, aspect: str, statistic: str) -> float | None:
        """The row's number for ``aspect`` and ``statistic`` (None where the paper has none)."""
        return self.values.get(aspect, {}).get(statistic)

    def to_dict(self, aspect: str) -> dict[str, object]:
        """JSON-ready: the label and the numbers for ``aspect``."""
        return {
            "paper": self.paper,
            "table": self.table,
            "row": self.row,
            "note": self.note,
            "values": dict(self.values.get(aspect, {})),
        }


def _debate_row(row: str, dataset: str, note: str = "") -> Reference | None:
    values = PAPER_TABLE1.get(row, {}).get(dataset)
    return Reference(DEBATE_PAPER, "Table 1", f"{row} (GPT-4)", dataset, PER_GROUP, values, note) if values else None


def _published_row(paper: str, table: str, dataset: str, row: str, scale: float = 1.0) -> dict[str, dict[str, float]]:
    source = next(t for t in PUBLISHED if t.paper.startswith(paper) and t.table == table and t.dataset == dataset)
    return {a: {s: v / scale for s, v in stats.items()} for a, stats in source.rows[row].items()}


def _geval(dataset: str, definition: str) -> Reference | None:
    if dataset == "summeval" and definition == PER_GROUP:
        values = _published_row("G-Eval", "Table 1", "summeval", "G-Eval-4")
        return Reference("G-Eval (Liu et al. 2023)", "Table 1", "G-Eval-4 (GPT-4)", dataset, PER_GROUP, values)
    if dataset == "topical_chat" and definition == POOLED:
        values = _published_row("ChatEval", "Table 2", "topical_chat", "G-EVAL-4")
        return Reference(
            "G-Eval (Liu et al. 2023) as quoted by ChatEval (Chan et al. 2023)",
            "Table 2",
            "G-EVAL-4",
            dataset,
            POOLED,
            values,
            CHATEVAL_TAU_NOTE,
        )
    if dataset == "topical_chat" and definition == PER_GROUP:
        return _debate_row("G-Eval-4", dataset, "the DEBATE authors' reproduction of G-Eval")
    return None


def _chateval(dataset: str, definition: str) -> Reference | None:
    if dataset == "topical_chat" and definition == POOLED:
        values = _published_row("ChatEval", "Table 2", "topical_chat", "GPT-4(MA)")
        return Reference(
            "ChatEval (Chan et al. 2023)", "Table 2", "GPT-4(MA)", dataset, POOLED, values, CHATEVAL_TAU_NOTE
        )
    if dataset == "faireval" and definition == PAIRWISE:
        row = _published_row("ChatEval", "Table 1", "faireval", "ChatEval GPT-4 Multi-Agent")["preference"]
        values = {"preference": {"accuracy": row["accuracy"] / 100.0, "kappa": row["kappa"]}}
        return Reference("ChatEval (Chan et al. 2023)", "Table 1", "GPT-4 Multi-Agent", dataset, PAIRWISE, values)
    if dataset in ("summeval", "topical_chat") and definition == PER_GROUP:
        return _debate_row("ChatEval", dataset, "the DEBATE authors' reproduction of ChatEval")
    return None


def _fennec(dataset: str, definition: str) -> Reference | None:
    if dataset in FENNEC_SETS and definition == PAIRWISE:
        values = _published_row("Fennec", "Table 2", dataset, "Fennec-7B", scale=100.0)
        return Reference(
            "Fennec (2024)", "Table 2", "Fennec-7B", dataset, PAIRWISE, values, "the paper's trained 7B model"
        )
    return None


def _sophisticated(dataset: str, definition: str) -> Reference | None:
    if dataset == "summeval" and definition == PER_GROUP:
        return Reference(
            DEBATE_PAPER, "Table 3", "Sophisticated (GPT-4)", dataset, PER_GROUP, PAPER_TABLE3["Sophisticated"]
        )
    return None


def method_reference(method: str, dataset: str, definition: str) -> Reference | None:
    """The published row for a run of ``method`` on ``dataset`` under ``definition`` (None where no paper has
    one; see the module docstring)."""
    if method in (*DEBATE_FAMILY, "multiagent") and definition == PER_GROUP:
        return _debate_row("MultiAgent" if method == "multiagent" else "DEBATE", dataset)
    choose = {"geval": _geval, "chateval": _chateval, "fennec": _fennec}.get(method)
    return choose(dataset, definition) if choose else None


# Rows asked for by name with ``--reference NAME`` (besides method names): the DEBATE paper's Table 1 rows
# (the names ``meta-eval --reference`` always took) and its Table 3 Sophisticated row.
NAMED_ROWS = {
    **{row: (lambda dataset, definition, row=row: _debate_row(row, dataset) if definition == PER_GROUP else None)
       for row in PAPER_TABLE1},
    "DEBATE-Sophisticated": _sophisticated,
}  # fmt: skip
REFERENCE_NAMES = (*KNOWN_METHODS, *NAMED_ROWS, NO_REFERENCE)


def no_reference_reason(method: str, dataset: str, imported: bool) -> str:
    """Why a part has no published row beside it (one short phrase)."""
    if imported:
        return "imported run: no paper row unless asked (--reference NAME)"
    if method == "dialevalml" and dataset.split("-", 1)[0] in FED_SETS:
        return "DialEvalML's paper reports no FED numbers (its Tables 3-4 are DSTC11 Track 4 test-set averages)"
    return f"no published {method} number for {dataset} under this definition"


def reference_for(
    method: str, dataset: str, definition: str, imported: bool = False, asked: str | None = None
) -> Reference | None:
    """The row to show beside a part: ``asked`` (a name of :data:`REFERENCE_NAMES`) when given, else the
    method's own (:func:`method_reference`); none for imported runs unless asked."""
    if asked == NO_REFERENCE:
        return None
    if asked is not None:
        if asked in NAMED_ROWS:
            return NAMED_ROWS[asked](dataset, definition)
        return method_reference(asked, dataset, definition)
    if imported:
        return None
    return method_reference(method, dataset, definition)


def is_imported(records: Iterable[RecordLike]) -> bool:
    """Whether the records came from ``debate-eval import`` (they carry ``imported``)."""
    return any(score_row(record).imported for record in records)
