"""``tasks/engine/rundir.py`` is the only module that names a run directory's files (``config.json``,
``results.jsonl``, the resume index ``results.index.json``, ``summary.json``): every other module asks ``RunDir``
for their paths and documents. Read from the source with ``ast``: a string that is one of those names (or the
start of a name built from one, such as a temporary file's) or an import of the names' constants counts;
prose that mentions a file (a docstring, a help text, a message) does not."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from debate_eval.tasks.engine.rundir import CONFIG_FILE, INDEX_FILE, RESULTS_FILE, SUMMARY_FILE, RunDir, results_file

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ("agents", "debates", "tasks")
OWNER = "tasks/engine/rundir.py"
NAMES = (CONFIG_FILE, RESULTS_FILE, INDEX_FILE, SUMMARY_FILE)
CONSTANTS = ("CONFIG_FILE", "RESULTS_FILE", "INDEX_FILE", "SUMMARY_FILE")
# Known exceptions, each with its reason.
ALLOWED = {
    # the Batch API's own state file inside OUT/batch/, which happens to share the name (agents/ cannot import
    # the run directory, a layer above it)
    ("agents/models/batch_state.py", "results.jsonl"),
}


def _names_a_file(text: str) -> str | None:
    """The run file ``text`` names: one of the names, or a name built from one (``.results.jsonl.``)."""
    stripped = text.strip(".")
    for name in NAMES:
        if stripped == name or (text.startswith(("." + name, name + ".")) and " " not in text):
            return name
    return None


def namings(path: Path, root: Path = ROOT) -> list[str]:
    """Where ``path`` names a run directory's file (``file:line what``), docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    where = str(path.relative_to(root))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            name = _names_a_file(node.value)
            if name and (where, name) not in ALLOWED:
                found.append(f"{where}:{node.lineno} {node.value!r}")
        elif isinstance(node, ast.ImportFrom):
            found += [f"{where}:{node.lineno} imports {a.name}" for a in node.names if a.name in CONSTANTS]
        elif isinstance(node, ast.Name) and node.id in CONSTANTS:
            found.append(f"{where}:{node.lineno} {node.id}")
    return found


def files_naming(root: Path) -> list[str]:
    return [
        hit
        for folder in FOLDERS
        for path in sorted((root / folder).rglob("*.py"))
        if str(path.relative_to(root)) != OWNER
        for hit in namings(path, root)
    ]


def test_no_module_but_rundir_names_the_run_files() -> None:
    assert files_naming(ROOT) == []


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ('path = out / "results.jsonl"\n', True),
        ('tmp = out / f".results.jsonl.{pid}.tmp"\n', True),
        ("from x import CONFIG_FILE\n", True),
        ('"""Writes summary.json."""\nprint("see summary.json for the totals")\n', False),
    ],
)
def test_the_check_catches_a_path_join_and_not_prose(tmp_path: Path, source: str, caught: bool) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "m.py").write_text(source, encoding="utf-8")
    assert bool(files_naming(tmp_path)) == caught


def test_rundir_paths(tmp_path: Path) -> None:
    run_dir = RunDir(tmp_path)
    assert run_dir.index_path == tmp_path / "results.index.json"
    assert run_dir.edited_config_path("20261129") == tmp_path / "config.json.edited-20261129"
    assert results_file(tmp_path) == tmp_path / "results.jsonl"
    assert results_file(tmp_path / "other.jsonl") == tmp_path / "other.jsonl"
    assert not run_dir.is_run()
    run_dir.write_config({"config_hash": "x"}, seal=False)
    assert run_dir.is_run() and run_dir.config == {"config_hash": "x"}


def test_an_output_file_is_never_one_of_a_runs_own_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """calibrate --out, label --out and report --out over a run's results.jsonl replaced the finished run."""
    from debate_eval.agents.errors import UserError
    from debate_eval.tasks.cli.main import main
    from debate_eval.tasks.engine.rundir import refuse_run_file

    run = tmp_path / "run"
    run.mkdir()
    rows = [
        {"item_id": str(i), "dataset": "own", "aspect": "q", "method": "geval", "score": 1 + i % 5,
         "human_score": 1 + (i * 3) % 5}
        for i in range(12)
    ]  # fmt: skip
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    (run / RESULTS_FILE).write_text(lines, encoding="utf-8")
    for name in (RESULTS_FILE, CONFIG_FILE, SUMMARY_FILE, INDEX_FILE):
        with pytest.raises(UserError, match=f"--out {run / name}: a file of the run directory {run}; write it"):
            refuse_run_file(run / name)
    refuse_run_file(run / "label.html")  # beside the run's files: allowed
    refuse_run_file(tmp_path / RESULTS_FILE)  # a folder that is not a run: allowed
    for argv in (
        ["calibrate", str(run), "--out", str(run / RESULTS_FILE)],
        ["label", str(run), "--out", str(run / RESULTS_FILE)],
        ["report", str(run), "--out", str(run / RESULTS_FILE)],
    ):
        assert main(argv) == 2
        assert "a file of the run directory" in capsys.readouterr().err
    assert (run / RESULTS_FILE).read_text(encoding="utf-8") == lines


def test_a_resumed_run_and_a_merge_read_config_json_through_the_run_directory(tmp_path: Path) -> None:
    """The results store's check and merge's read of a shard name the file and what is wrong with it."""
    from debate_eval.agents.errors import UserError
    from debate_eval.tasks.engine.backends.shards import merge_shards
    from debate_eval.tasks.engine.results import ResultsStore

    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(UserError, match=f"^{run}: not a run directory \\(no {CONFIG_FILE}\\)$"):
        merge_shards(tmp_path / "merged", [run])
    cases = [
        ("{not json", "not valid JSON", "not valid JSON"),
        ("[1, 2]", "not a debate-eval config.json", "not a debate-eval config.json \\(no config_hash\\)"),
        ('{"result_config": {}}', None, "not a debate-eval config.json \\(no config_hash\\)"),
    ]
    for text, resumed, merged in cases:
        (run / CONFIG_FILE).write_text(text, encoding="utf-8")
        if resumed is not None:
            with pytest.raises(UserError, match=f"^{run / CONFIG_FILE}: {resumed}; use a new --out directory$"):
                ResultsStore(run, {"config_hash": "abc"}, "abc")
        with pytest.raises(UserError, match=f"^{run / CONFIG_FILE}: {merged}$"):
            merge_shards(tmp_path / "merged", [run])
