"""xDial-Eval's FED (Zhang et al. 2023): the FED items machine-translated into 10 languages.

``xdial_fed_turn`` (``xdial_eval_fed/fed-turn.csv``: ``{language}_ctx``, ``{language}_res``) and
``xdial_fed_dialogue`` (``fed-dial.csv``: ``{language}_dial``), each with ``ratings`` = the mean FED Overall
(0-4) as aspect ``overall``. ``--language NAME`` (default english) picks the text; the dataset name is then
``xdial_fed_turn-NAME``. Rows are in FED's order, so item ids match ``fed_turn`` / ``fed_dialogue``.
GPL-3.0 upstream (e0397123/xDial-Eval), not shipped. Correlations are item-level.
"""

from __future__ import annotations

from pathlib import Path

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.fed import DIALOGUE, TURN, fed_item
from debate_eval.tasks.data.registry import ITEM_LEVEL, DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, decode_text, parse_csv, read_bytes

LANGUAGES = (
    "english",
    "arabic",
    "chinese",
    "french",
    "german",
    "hindi",
    "japanese",
    "korean",
    "russian",
    "spanish",
)
DEFAULT_LANGUAGE = "english"
OVERALL_SCALE = (0.0, 4.0)
_UPSTREAM = "https://github.com/e0397123/xDial-Eval/raw/638036c6/data"


def load_xdial(
    path: Path, *, spec: DatasetSpec, data: bytes | None = None, level: str = TURN, language: str = DEFAULT_LANGUAGE
) -> list[Item]:
    """Load one level of xDial-Eval's FED in ``language``."""
    items: list[Item] = []
    rows, _ = parse_csv(path, decode_text(path, read_bytes(path) if data is None else data))
    if not rows:
        raise UserError(f"{path}: the file has no data rows")
    for index, raw in enumerate(rows):
        row = Row(path, index, raw, noun="column")
        if level == TURN:
            inputs = {"context": row.text(f"{language}_ctx"), "response": row.text(f"{language}_res")}
        else:
            inputs = {"dialogue": row.text(f"{language}_dial")}
        overall = row.on_scale("ratings", row.number("ratings", from_text=True), OVERALL_SCALE)
        items.append(fed_item(spec.name, level, index + 1, language, inputs, {"overall": overall}, index))
    return items


def _spec(name: str, level: str, file_name: str, blob: str, size: int, description: str) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        description=description,
        relative_path=f"xdial_eval_fed/{file_name}",
        aspects={"overall": OVERALL_SCALE},
        inputs=("context", "response") if level == TURN else ("dialogue",),
        kind="dialogue",
        loader=load_xdial,
        level=ITEM_LEVEL,
        upstream_url=f"{_UPSTREAM}/{'turn' if level == TURN else 'dial'}/{file_name}",
        git_blob_id=blob,
        size_bytes=size,
        licence="GPL-3.0 (e0397123/xDial-Eval); not shipped",
        attribution="Zhang et al. 2023, xDial-Eval (FED of Mehri & Eskenazi 2020, machine-translated)",
        options={"level": level, "language": DEFAULT_LANGUAGE},
        variants=LANGUAGES,
        variant_option="language",
        default_variant=DEFAULT_LANGUAGE,
    )


TURN_SPEC = register_dataset(
    _spec(
        "xdial_fed_turn",
        TURN,
        "fed-turn.csv",
        "a72240694617da9529f15a987815878b51e87abe",
        2_610_312,
        "FED turn level in 10 languages (--language), mean FED Overall",
    )
)
DIALOGUE_SPEC = register_dataset(
    _spec(
        "xdial_fed_dialogue",
        DIALOGUE,
        "fed-dial.csv",
        "7993d5bb0b5e010d3fa9b59d78085cc7816f941c",
        1_190_561,
        "FED dialogue level in 10 languages (--language), mean FED Overall",
    )
)
