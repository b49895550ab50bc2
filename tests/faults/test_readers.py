"""Bad input to the readers, through the real command line: a
record with bad values given to ``report``, a hand-edited ``config.json``, an own data file that is not UTF-8,
and a folder given as ``--dataset``.
Each is one line naming the file, the line or row (counted from 1) and the field; exit 2; no traceback; no
model call; no secret."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import Outcome, assert_clean, assert_no_key, run_args


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


# --- A hand-edited config.json -------------------------------------------------------------


def edit_models(config_path: Path, model: str) -> None:
    """Change every role's model in ``config.json`` by hand, as a user with an editor would."""
    document = json.loads(config_path.read_text(encoding="utf-8"))
    for settings in document["result_config"]["models"].values():
        settings["model"] = model
    for settings in document["models"]["roles"].values():
        settings["model"] = model
    config_path.write_text(json.dumps(document, indent=2), encoding="utf-8")


def test_a_hand_edited_config_is_found_named_restored_or_refused(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    server = server_factory()
    out = fault_env / "run"
    first = cli(run_args(server, out, limit=2))
    assert_clean(first, code=0, message=None, results=2, server=server)
    config_path = out / "config.json"
    original = json.loads(config_path.read_text(encoding="utf-8"))
    edit_models(config_path, "gpt-4o")

    # the report never names a model that never ran
    report = cli(["report", str(out), "--out", str(fault_env / "report.html")])
    assert report.code == 0 and "Traceback" not in report.output
    warnings = [line for line in report.error_lines() if "edited by hand" in line]
    assert len(warnings) == 1 and "result_config.models.scorer.model" in warnings[0]
    assert "gpt-4o" not in (fault_env / "report.html").read_text(encoding="utf-8")

    # another configuration (the edited model) is refused, naming the edited fields
    calls = server.count
    other = cli(run_args(server, out, "--model", "gpt-4o", limit=3))
    message = f"{config_path} was edited by hand after the run wrote it (changed: "
    assert_clean(other, code=2, message=message, results=2, server=server)
    assert "result_config.models.scorer.model" in other.stderr and "unknown fields" not in other.stderr
    assert server.count == calls  # no model call

    # the run's own command restores config.json (the edited file kept beside it) and goes on
    again = cli(run_args(server, out, limit=3))
    assert_clean(again, code=0, message=None, results=3, server=server)
    notes = [line for line in again.error_lines() if "edited by hand" in line]
    assert len(notes) == 1 and "result_config.models.scorer.model" in notes[0] and "restored" in notes[0]
    restored = json.loads(config_path.read_text(encoding="utf-8"))
    assert restored["result_config"] == original["result_config"] and restored["config_hash"] == original["config_hash"]
    kept = [path for path in out.iterdir() if path.name.startswith("config.json.edited-")]
    assert len(kept) == 1 and "gpt-4o" in kept[0].read_text(encoding="utf-8")
    assert_no_key(again.output, fault_env)
