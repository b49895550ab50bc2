"""Published numbers to set a run beside, each labelled with its paper, table, level and model.

- ``PAPER_TABLE1``: Table 1 of the DEBATE paper (GPT-4 rows; its G-Eval-4 row is the DEBATE authors'
  reproduction), summary level for SummEval (ρ/τ) and per-context for Topical-Chat (r/ρ).
- ``PAPER_TABLE3``: Table 3 of the DEBATE paper (Appendix C; GPT-4, SummEval summary level): the Original
  and the Sophisticated Devil's Advocate prompt.
- ``PAPER_TABLE2_DISTRIBUTION``: Table 2 of the DEBATE paper (Appendix B): % of human and DEBATE scores per
  score, SummEval 1-5 and Topical-Chat 1-3 (groundedness omitted by the paper).
- ``PUBLISHED``: each paper's own table for what it measured: G-Eval's Table 1 (SummEval summary level),
  the DEBATE paper's Tables 1 and 3, ChatEval's Table 2 (Topical-Chat turn level ρ/τ, pooled over all
  responses) and Table 1 (FairEval pairwise Acc./κ with the three human annotators), Fennec's Table 2
  (pairwise Agreement/Consistency on Auto-J's pairwise test ("Auto-P"), PandaLM-test and MT-Bench). Numbers
  are transcribed from the papers (``/work/shared/papers``); the G-Eval paper is not in that folder, its four
  GPT-4 rows are those quoted in SPEC.md §7.
- ``DEFINITIONS``: what "correlation" means in each table: ``per-group`` (a correlation per SummEval document
  or Topical-Chat context, averaged: DEBATE Appendix E.5, G-Eval's summary level), ``pooled`` (one
  correlation over all items: UniEval's ``correlation.py``, which G-Eval and ChatEval follow for Topical-Chat
  "turn level"), ``item`` (FED: every item, no groups), ``pairwise`` (verdicts against labels).
- DialEvalML's paper reports no FED numbers: its Tables 3 and 4 are DSTC11 Track 4 test-set averages of
  Spearman over four dimensions per language (Task 1) and for the robust task (Task 2), so no table here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# The pair of statistics the paper reports per dataset (Table 1); other datasets get ρ and τ.
PAPER_STATISTICS: dict[str, tuple[str, str]] = {
    "summeval": ("spearman", "kendall"),
    "topical_chat": ("pearson", "spearman"),
}
# Table 1 of the paper, GPT-4 rows only (copied from the paper text; G-Eval-4 rows are the authors'
# reproduction). Shape: evaluator -> dataset -> aspect (or "average") -> statistic -> value.
_TABLE1_ASPECTS = {
    "summeval": ("average", "coherence", "consistency", "fluency", "relevance"),
    "topical_chat": ("average", "naturalness", "coherence", "engagingness", "groundedness"),
}
# Per (evaluator, dataset): per aspect (in _TABLE1_ASPECTS order) the pair of PAPER_STATISTICS, left to right.
_TABLE1_ROWS = {
    ("G-Eval-4", "summeval"): (0.533, 0.450, 0.522, 0.420, 0.600, 0.553, 0.495, 0.416, 0.517, 0.412),
    ("G-Eval-4", "topical_chat"): (0.616, 0.623, 0.632, 0.609, 0.614, 0.619, 0.547, 0.579, 0.670, 0.684),
    ("ChatEval", "summeval"): (0.528, 0.458, 0.477, 0.412, 0.595, 0.516, 0.501, 0.432, 0.539, 0.472),
    ("ChatEval", "topical_chat"): (0.675, 0.653, 0.620, 0.604, 0.657, 0.641, 0.687, 0.676, 0.737, 0.692),
    ("MultiAgent", "summeval"): (0.507, 0.459, 0.486, 0.410, 0.628, 0.596, 0.410, 0.393, 0.505, 0.436),
    ("MultiAgent", "topical_chat"): (0.656, 0.649, 0.590, 0.570, 0.665, 0.667, 0.709, 0.729, 0.659, 0.630),
    ("DEBATE", "summeval"): (0.597, 0.575, 0.610, 0.588, 0.643, 0.614, 0.542, 0.515, 0.593, 0.582),
    ("DEBATE", "topical_chat"): (0.735, 0.729, 0.699, 0.683, 0.735, 0.727, 0.761, 0.705, 0.745, 0.800),
}


def _pairs(statistics: Sequence[str], aspects: Sequence[str], values: Sequence[float]) -> dict[str, dict[str, float]]:
    """Rows written as in the paper: per aspect, one value per statistic, left to right."""
    width = len(statistics)
    return {
        aspect: dict(zip(statistics, values[width * i : width * (i + 1)], strict=True))
        for i, aspect in enumerate(aspects)
    }


PAPER_TABLE1: dict[str, dict[str, dict[str, dict[str, float]]]] = {
    evaluator: {
        dataset: _pairs(PAPER_STATISTICS[dataset], _TABLE1_ASPECTS[dataset], values)
        for (name, dataset), values in _TABLE1_ROWS.items()
        if name == evaluator
    }
    for evaluator in dict.fromkeys(name for name, _ in _TABLE1_ROWS)
}

SYMBOLS = {
    "spearman": "rho",
    "kendall": "tau",
    "pearson": "r",
    "accuracy": "acc",
    "kappa": "kappa",
    "agreement": "agree",
    "consistency": "consist",
}

PER_GROUP, POOLED, ITEM_LEVEL, PAIRWISE = "per-group", "pooled", "item", "pairwise"
# What each definition is called per dataset, and which papers use it (labels for the tables).
DEFINITIONS: dict[str, dict[str, str]] = {
    "summeval": {
        PER_GROUP: "summary level: per document, averaged (DEBATE App. E.5, G-Eval)",
        POOLED: "pooled over all summaries (no paper here reports it)",
    },
    "topical_chat": {
        PER_GROUP: "per-context: per dialogue context, averaged (DEBATE App. E.5)",
        POOLED: "pooled: over all 360 responses (UniEval's correlation.py; G-Eval, ChatEval 'turn level')",
    },
}
# The pair of statistics each definition is shown with (the papers' pairs).
DEFINITION_STATISTICS: dict[tuple[str, str], tuple[str, str]] = {
    ("summeval", PER_GROUP): ("spearman", "kendall"),
    ("topical_chat", PER_GROUP): ("pearson", "spearman"),
    ("topical_chat", POOLED): ("spearman", "kendall"),
}
CHATEVAL_TAU_NOTE = (
    "ChatEval Table 2's 'tau' column holds Pearson r for its ROUGE-L and BERTScore rows (DEBATE Table 1's r/rho "
    "pairs, quoted from G-Eval, swapped); its other rows quoted from G-Eval may share the slip"
)

# Table 3 of the DEBATE paper (Appendix C; GPT-4, SummEval, summary level).
PAPER_TABLE3: dict[str, dict[str, dict[str, float]]] = {
    "Sophisticated": _pairs(
        PAPER_STATISTICS["summeval"],
        _TABLE1_ASPECTS["summeval"],
        (0.601, 0.573, 0.605, 0.592, 0.655, 0.610, 0.556, 0.521, 0.588, 0.569),
    ),
    "Original": PAPER_TABLE1["DEBATE"]["summeval"],  # the paper prints Table 1's DEBATE row again
}

# Table 2 of the DEBATE paper (Appendix B): % of scores per (rounded) score, human and DEBATE (GPT-4).
# dataset -> aspect -> "human" | "DEBATE" -> score -> %.
_TABLE2_SUMMEVAL = (  # per score 1..5: coherence H, D, consistency H, D, fluency H, D, relevance H, D
    (2.37, 5.23, 2.19, 6.23, 0.62, 7.71, 0.69, 6.22),
    (20.36, 18.23, 5.12, 4.34, 2.44, 2.32, 7.50, 6.27),
    (26.36, 23.15, 2.31, 2.22, 5.12, 0.51, 22.61, 16.11),
    (36.16, 34.15, 3.69, 2.30, 11.12, 1.23, 52.28, 45.23),
    (14.74, 19.24, 86.70, 84.91, 80.70, 88.22, 16.93, 26.17),
)
_TABLE2_TOPICAL_CHAT = (  # per score 1..3: naturalness H, D, coherence H, D, engagingness H, D
    (14.68, 19.43, 17.73, 21.00, 20.22, 35.42),
    (40.72, 26.55, 39.89, 30.15, 43.49, 31.13),
    (44.60, 54.02, 42.38, 48.85, 36.29, 33.45),
)


def _distribution(rows: Sequence[Sequence[float]], aspects: Sequence[str]) -> dict[str, dict[str, dict[int, float]]]:
    return {
        aspect: {
            who: {score: row[2 * index + column] for score, row in enumerate(rows, start=1)}
            for column, who in enumerate(("human", "DEBATE"))
        }
        for index, aspect in enumerate(aspects)
    }


PAPER_TABLE2_DISTRIBUTION: dict[str, dict[str, dict[str, dict[int, float]]]] = {
    "summeval": _distribution(_TABLE2_SUMMEVAL, ("coherence", "consistency", "fluency", "relevance")),
    "topical_chat": _distribution(_TABLE2_TOPICAL_CHAT, ("naturalness", "coherence", "engagingness")),
}


def paper_value(reference: str, dataset: str, aspect: str, statistic: str) -> float | None:
    """A DEBATE Table 1 number (GPT-4) for ``reference``, or None where the paper has none."""
    return PAPER_TABLE1.get(reference, {}).get(dataset, {}).get(aspect, {}).get(statistic)


@dataclass(frozen=True)
class PublishedTable:
    """One paper's table for one dataset: evaluator → aspect → statistic → value, in the paper's units."""

    paper: str
    table: str
    dataset: str
    level: str
    statistics: tuple[str, ...]
    rows: dict[str, dict[str, dict[str, float]]] = field(hash=False)
    unit: str = ""
    note: str = ""
    decimals: tuple[int, ...] = (3, 3)  # per statistic, as printed in the paper
    definition: str = PER_GROUP  # see DEFINITIONS

    def title(self) -> str:
        """One line saying which paper, table, dataset and level the numbers are."""
        unit = f"; {self.unit}" if self.unit else ""
        note = f"; {self.note}" if self.note else ""
        return f"{self.paper}, {self.table}: {self.dataset}, {self.level}{unit}{note}"


_TC_ASPECTS = ("naturalness", "coherence", "engagingness", "groundedness", "average")
_CHATEVAL_TC_ROWS = {
    "ROUGE-L": (0.146, 0.176, 0.203, 0.193, 0.300, 0.295, 0.327, 0.310, 0.244, 0.244),
    "BLEU-4": (0.175, 0.180, 0.235, 0.131, 0.316, 0.232, 0.310, 0.213, 0.259, 0.189),
    "BERTScore": (0.209, 0.226, 0.233, 0.214, 0.335, 0.317, 0.317, 0.291, 0.274, 0.262),
    "G-EVAL-3.5": (0.539, 0.532, 0.544, 0.519, 0.691, 0.660, 0.567, 0.586, 0.585, 0.574),
    "G-EVAL-4": (0.565, 0.549, 0.605, 0.594, 0.631, 0.627, 0.551, 0.531, 0.588, 0.575),
    "ChatGPT(SA)": (0.474, 0.421, 0.527, 0.482, 0.599, 0.549, 0.576, 0.558, 0.544, 0.503),
    "ChatGPT(MA)": (0.441, 0.396, 0.500, 0.454, 0.664, 0.607, 0.602, 0.583, 0.552, 0.510),
    "GPT-4(SA)": (0.532, 0.483, 0.591, 0.535, 0.734, 0.676, 0.774, 0.750, 0.658, 0.611),
    "GPT-4(MA)": (0.630, 0.571, 0.619, 0.561, 0.765, 0.695, 0.722, 0.700, 0.684, 0.632),
}
_FAIREVAL_ROWS = {
    "Human Annotator1": (68.8, 0.5),
    "Human Annotator2": (76.3, 0.62),
    "Human Annotator3": (70.0, 0.5),
    "FairEval ChatGPT MEC+BPC": (58.7, 0.31),
    "FairEval GPT-4 MEC+BPC": (62.5, 0.37),
    "ChatEval ChatGPT Single-Agent": (53.8, 0.27),
    "ChatEval ChatGPT Multi-Agent": (60.0, 0.33),
    "ChatEval GPT-4 Single-Agent": (61.3, 0.36),
    "ChatEval GPT-4 Multi-Agent": (63.8, 0.40),
}
# Fennec Table 2, rows whose names survive in the paper text (two trained-Zephyr rows lost their dataset
# names there and are left out). Per row: Auto-P, PandaLM-test, MT-Bench, each Agreement then Consistency.
_FENNEC_ROWS: dict[str, tuple[float | None, ...]] = {
    "GPT-4": (62.28, 86.28, 60.06, 74.67, 46.71, 67.26),
    "GPT-3.5": (42.74, 62.43, None, None, None, None),
    "Zephyr-7B": (31.15, 57.21, 48.42, 68.16, 31.38, 54.98),
    "PandaLM-7B": (39.44, 66.88, None, None, None, None),
    "JudgeLM-7B": (46.96, 72.30, 58.26, 76.08, 44.25, 68.66),
    "Auto-J-13B": (54.96, 83.41, 60.68, 78.64, 50.41, 77.84),
    "Fennec-7B": (55.80, 85.52, 70.67, 87.89, 55.24, 86.15),
}


def _fennec(column: int) -> dict[str, dict[str, dict[str, float]]]:
    rows = {}
    for evaluator, values in _FENNEC_ROWS.items():
        agreement, consistency = values[2 * column], values[2 * column + 1]
        if agreement is not None and consistency is not None:
            rows[evaluator] = {"preference": {"agreement": agreement, "consistency": consistency}}
    return rows


PUBLISHED: tuple[PublishedTable, ...] = (
    PublishedTable(
        paper="G-Eval (Liu et al. 2023)",
        table="Table 1",
        dataset="summeval",
        level="summary level (per document, averaged)",
        statistics=("spearman", "kendall"),
        rows={
            "G-Eval-4": _pairs(
                ("spearman", "kendall"),
                _TABLE1_ASPECTS["summeval"][1:],
                (0.582, 0.457, 0.507, 0.425, 0.455, 0.378, 0.547, 0.433),
            )
        },
        note="GPT-4, probability-weighted",
    ),
    *(
        PublishedTable(
            paper="DEBATE (Kim et al. 2024)",
            table="Table 1",
            dataset=dataset,
            level="summary level (per document, averaged)" if dataset == "summeval" else "per context, averaged",
            statistics=PAPER_STATISTICS[dataset],
            rows={evaluator: datasets[dataset] for evaluator, datasets in PAPER_TABLE1.items()},
            note="GPT-4 rows; its G-Eval-4 row is the DEBATE authors' reproduction",
        )
        for dataset in ("summeval", "topical_chat")
    ),
    PublishedTable(
        paper="DEBATE (Kim et al. 2024)",
        table="Table 3",
        dataset="summeval",
        level="summary level (per document, averaged)",
        statistics=("spearman", "kendall"),
        rows=PAPER_TABLE3,
        note="GPT-4; DEBATE with the Original or the Sophisticated Devil's Advocate prompt (Appendix C)",
    ),
    PublishedTable(
        paper="ChatEval (Chan et al. 2023)",
        table="Table 2",
        dataset="topical_chat",
        level="turn level, pooled over all 360 responses",
        statistics=("spearman", "kendall"),
        rows={name: _pairs(("spearman", "kendall"), _TC_ASPECTS, v) for name, v in _CHATEVAL_TC_ROWS.items()},
        note=f"SA single agent, MA multi-agent; {CHATEVAL_TAU_NOTE}",
        definition=POOLED,
    ),
    PublishedTable(
        paper="ChatEval (Chan et al. 2023)",
        table="Table 1",
        dataset="faireval",
        level="item level, pairwise",
        statistics=("accuracy", "kappa"),
        rows={name: {"preference": {"accuracy": a, "kappa": k}} for name, (a, k) in _FAIREVAL_ROWS.items()},
        unit="Acc. in %, Cohen's kappa",
        decimals=(1, 2),
        definition=PAIRWISE,
    ),
    *(
        PublishedTable(
            paper="Fennec (2024)",
            table="Table 2",
            dataset=dataset,
            level=f"item level, pairwise, both orders{level}",
            statistics=("agreement", "consistency"),
            rows=_fennec(column),
            unit="%",
            decimals=(2, 2),
            note=note,
            definition=PAIRWISE,
        )
        for column, (dataset, level, note) in enumerate(
            (
                ("autoj_pairwise", "", "column 'Auto-P' (Auto-J's pairwise test)"),
                ("pandalm", "", "column 'PandaLM-test'"),
                ("mt_bench", " (first turn)", "column 'MT-Bench' (its human judgments are not in this project's data)"),
            )
        )
    ),
)


def published_for(dataset: str, definition: str | None = None) -> list[PublishedTable]:
    """Every published table that reports on ``dataset`` (with ``definition``: only those of that definition)."""
    return [t for t in PUBLISHED if t.dataset == dataset and (definition is None or t.definition == definition)]
