"""Bad input to the readers, through the real command line (issue 23, item 7 and the "Also" items): a record
with bad values given to ``report``, an own data file that is not UTF-8, and a folder given as ``--dataset``.
Each is one line naming the file, the line or row (counted from 1) and the field; exit 2; no traceback; no
model call; no secret."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import Outcome, assert_clean, run_args


def test_report_on_a_record_with_bad_values_is_one_line_naming_file_and_line(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    server = server_factory()
    run = cli(run_args(server, fault_env / "run", limit=3))
    assert_clean(run, code=0, message=None, results=3, server=server)
    results = run.out / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record["score"] = "high"
    lines[1] = json.dumps(record)
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = f"{results}: line 2 (counted from 1): score must be a number or null, not 'high'"
    report = cli(["report", str(run.out), "--out", str(fault_env / "r.html")])
    assert_clean(report, code=2, message=message, results=0, server=server)  # (no results.jsonl beside r.html)
    assert not (fault_env / "r.html").exists()
    meta_eval = cli(["meta-eval", str(run.out)])  # the same line: one validator
    assert_clean(meta_eval, code=2, message=message, results=3, server=server)


@pytest.mark.parametrize(
    ("name", "data", "where"),
    [
        ("ratings.csv", b"id,source,output,human\na,fine,ok,3\nb,Caf\xe9 au lait,good,4\n",
         'row 2 (counted from 1, the header line not counted): column "source"'),
        ("ratings.jsonl", b'{"id": "a", "source": "fine", "output": "ok", "human": 3}\n'
         b'{"id": "b", "source": "Caf\xe9", "output": "good", "human": 4}\n',
         'row 2 (counted from 1): column "source"'),
    ],
)  # fmt: skip
def test_a_latin1_own_file_names_the_row_and_column(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, name: str, data: bytes, where: str
) -> None:
    path = fault_env / name
    path.write_bytes(data)
    server = server_factory()
    outcome = cli(run_args(server, fault_env / "run", "--dataset", str(path), "--aspect", "quality"))
    message = f"{path}: {where}: not UTF-8 text (byte 0xe9); the file looks like Latin-1/Windows-1252: save it as UTF-8"
    assert_clean(outcome, code=2, message=message, results=0, server=server)
    assert "byte offset" not in outcome.stderr and server.count == 0


@pytest.mark.parametrize("name", ["ratings.csv", "ratings"])
def test_a_folder_given_as_dataset_is_called_a_folder(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, name: str
) -> None:
    folder = fault_env / name
    folder.mkdir()
    (folder / "scores.jsonl").write_text('{"source": "a", "output": "b", "human": 1}\n', encoding="utf-8")
    server = server_factory()
    outcome = cli(run_args(server, fault_env / "run", "--dataset", str(folder), "--aspect", "quality"))
    message = f"{folder}: is a folder, not a data file (--dataset takes a dataset name or your own"
    assert_clean(outcome, code=2, message=message, results=0, server=server)
    assert "not found" not in outcome.stderr and "the data files in it: scores.jsonl" in outcome.stderr
    assert server.count == 0
