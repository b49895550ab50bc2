"""Odd inputs, each one clear line (file, row counted from 1, field; exit 2, no traceback) or read as promised:
rows nested deeper than the JSON reader goes, non-scalar cells in Parquet files and DataFrames, compressed
files, and ids whose newlines and escape sequences must not reach the terminal through ``show``.
"""

from __future__ import annotations

import gzip
import json
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest
from faultkit import Outcome

import debate_eval
from debate_eval.agents.errors import UserError

DEEP = 200_000
ROWS = [
    {"id": "r1", "source": "A short source text.", "output": "A short summary."},
    {"id": "r2", "source": "Another source text.", "output": "Another summary."},
]


def run(data: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run", "--dataset", str(data), "--aspect", "quality", "--fields", "source=source,output=output,id=id",
        "--criteria", "Is the summary faithful to its source?", "--scale", "1-5",
        "--provider", "scripted", "--method", "geval", "--out", str(out), "--no-progress", *extra,
    ]  # fmt: skip


def one_error(outcome: Outcome) -> str:
    assert outcome.code == 2, outcome.output
    assert "Traceback" not in outcome.output, outcome.output[-2000:]
    errors = [line for line in outcome.error_lines() if line.startswith("debate-eval: error:")]
    assert len(errors) == 1, outcome.output[-2000:]
    return errors[0]


def deep_value() -> str:
    return "[" * DEEP + "]" * DEEP


def test_a_jsonl_row_nested_too_deep_is_one_line_naming_row_and_depth(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    path = isolated_env / "deep.jsonl"
    deep = f'{{"id": "r2", "source": "s", "output": {deep_value()}}}'
    path.write_text(json.dumps(ROWS[0]) + "\n" + deep + "\n", encoding="utf-8")
    line = one_error(cli(run(path, isolated_env / "out")))  # was a RecursionError traceback
    assert str(path) in line and "row 2 (counted from 1), line 2" in line and f"{DEEP + 1:,} levels" in line


def test_a_json_row_nested_too_deep_is_one_line_naming_row_and_depth(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    path = isolated_env / "deep.json"
    path.write_text(f"[{json.dumps(ROWS[0])}, {json.dumps(ROWS[1])}, {deep_value()}]", encoding="utf-8")
    line = one_error(cli(run(path, isolated_env / "out")))
    assert str(path) in line and "row 3 (counted from 1)" in line and f"{DEEP + 1:,} levels" in line


def test_a_dataframe_cell_holding_an_array_is_named(isolated_env: Path) -> None:
    pandas = pytest.importorskip("pandas")
    numpy = pytest.importorskip("numpy")
    frame = pandas.DataFrame({"source": ["a", "b"], "output": ["fine", numpy.array(["x", "y"])]})
    with pytest.raises(UserError) as caught:  # was ValueError: can only convert an array of size 1
        debate_eval.evaluate(
            frame,
            aspect="quality",
            provider="scripted",
            method="geval",
            criteria="Is the summary faithful to its source?",
            scale="1-5",
            no_progress=True,
        )
    message = str(caught.value)
    assert 'row 2 (counted from 1): column "output": expected text, got a list' in message, message


def test_a_parquet_cell_holding_a_list_is_named(isolated_env: Path, cli: Callable[[list[str]], Outcome]) -> None:
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = isolated_env / "lists.parquet"
    pandas.DataFrame({"id": ["r1", "r2"], "source": ["a", "b"], "output": [["x", "y"], ["z"]]}).to_parquet(path)
    outcome = cli(run(path, isolated_env / "out"))
    line = one_error(outcome)  # then one line per bad row (was ValueError: can only convert an array of size 1)
    assert str(path) in line, line
    assert 'row 1 (counted from 1): column "output": expected text, got a list' in outcome.stderr, outcome.stderr


@pytest.mark.parametrize(("suffix", "compress"), [(".jsonl.gz", gzip.compress), (".jsonl.xz", lzma.compress)])
def test_a_compressed_jsonl_file_is_read(
    suffix: str, compress: Callable[[bytes], bytes], isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    path = isolated_env / f"rows{suffix}"
    path.write_bytes(compress("".join(json.dumps(row) + "\n" for row in ROWS).encode()))
    outcome = cli(run(path, isolated_env / "out"))  # was "unknown dataset"
    assert outcome.code == 0, outcome.output[-2000:]
    assert sorted(r["item_id"] for r in outcome.records()) == ["r1", "r2"]


def test_a_compressed_csv_file_is_read(isolated_env: Path, cli: Callable[[list[str]], Outcome]) -> None:
    path = isolated_env / "rows.csv.gz"
    text = "id,source,output\n" + "".join(f"{r['id']},{r['source']},{r['output']}\n" for r in ROWS)
    path.write_bytes(gzip.compress(text.encode()))
    outcome = cli(run(path, isolated_env / "out"))
    assert outcome.code == 0, outcome.output[-2000:]
    assert len(outcome.records()) == 2


def test_a_zstd_file_is_refused_by_name(isolated_env: Path, cli: Callable[[list[str]], Outcome]) -> None:
    path = isolated_env / "rows.jsonl.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd not really zstd")
    line = one_error(cli(run(path, isolated_env / "out")))
    assert str(path) in line and ".zst compressed files are not read" in line, line


def test_show_escapes_control_characters_of_ids(isolated_env: Path, cli: Callable[[list[str]], Outcome]) -> None:
    path = isolated_env / "ids.jsonl"
    rows = [{**ROWS[0], "id": "two\nlines"}, {**ROWS[1], "id": "red\x1b[31mtext\x07"}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = isolated_env / "out"
    assert cli(run(path, out)).code == 0
    for args in (["show", str(out)], ["show", str(out), "--item", "red"]):
        shown = cli(args)
        assert shown.code == 0, shown.output
        assert "\x1b" not in shown.output and "\x07" not in shown.output  # no escape reaches the terminal
        assert "red\\x1b[31mtext\\x07" in shown.stdout
    table = cli(["show", str(out)]).stdout.splitlines()
    assert any("two\\nlines" in line for line in table)  # the id stays on its row
    assert not any(line.strip() == "lines" or line.startswith("lines") for line in table)
