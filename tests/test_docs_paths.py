"""Every repository path the docs name in backticks exists (``docs/**/*.md`` and ``README.md``).

A path is a word of a code span (outside fenced blocks) that starts with a top-level folder of the repository:
`tasks/engine/record.py`, `benchmarks/scale.md`, `tests/debates/`, and the script and the output of
`python scripts/bench_equal_judges.py --out benchmarks/equal_judges.md`; a trailing ``:line`` or ``::name`` and
trailing punctuation are dropped. A word with a placeholder or a glob (`tests/debates/<method>/`,
`docs/**/*.md`) names no one path and is not checked, nor are the words of a `git ...` command (they name paths
at other revisions). The changelog is history: it names files as they were ("was
`debates/fennec/judgments.py`"), so it is not read. A page that names on purpose a path that does not exist (a
file a walk-through creates, a file a "before" column measured) is listed in ``NOT_IN_THE_REPOSITORY`` with its
reason. (Links are checked elsewhere: the site's strict build, and tests/test_docs.py for the README.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The repository's top-level folders (a path the docs name starts with one of them).
TOP_FOLDERS = ("agents", "benchmarks", "debates", "docs", "examples", "scripts", "tasks", "tests")
HISTORY = {"docs/changelog.md"}  # names files as they were when each entry was written
FENCE = re.compile(r"^ *(```|~~~).*?^ *\1", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
WORD = re.compile(r"(?:" + "|".join(TOP_FOLDERS) + r")/\S*")
PLACEHOLDER = re.compile(r"[<>*{}\[\]$]|\.\.\.")
SUFFIX = re.compile(r"(?:::?[A-Za-z_][\w.]*|:\d+(?:-\d+)?)$")
# (page, path) -> why the page names a path that is not in the repository
NOT_IN_THE_REPOSITORY = {
    ("docs/extending/provider.md", "agents/models/providers/mistral.py"): "the file the walk-through creates",
    ("docs/extending/method.md", "debates/pairwise/rescore.py"): "the 'before' column: the file since removed",
}


def pages() -> list[Path]:
    """The pages checked: every Markdown page under docs/ but the changelog, and the README."""
    found = [p for p in sorted((ROOT / "docs").rglob("*.md")) if p.relative_to(ROOT).as_posix() not in HISTORY]
    return [*found, ROOT / "README.md"]


def named_paths(text: str) -> list[tuple[int, str]]:
    """The repository paths ``text`` names in its code spans, with their lines (counted from 1), cleaned of a
    trailing ``:line`` / ``::name`` and punctuation; words with a placeholder or a glob are left out."""
    text = FENCE.sub(lambda block: "\n" * block.group(0).count("\n"), text)  # fenced blocks keep their lines
    found = []
    for span in SPAN.finditer(text):
        words = span.group(1).split()
        if words[0] == "git":
            continue
        for word in words:
            word = word.strip("'\"")
            if not WORD.fullmatch(word) or PLACEHOLDER.search(word):
                continue
            path = SUFFIX.sub("", word.rstrip(".,;:)")).rstrip("/")
            found.append((text.count("\n", 0, span.start()) + 1, path))
    return found


def test_the_top_folders_exist() -> None:
    assert [name for name in TOP_FOLDERS if not (ROOT / name).is_dir()] == []


def test_every_path_the_docs_name_exists() -> None:
    missing = []
    seen_exceptions = set()
    for page in pages():
        name = page.relative_to(ROOT).as_posix()
        for line, path in named_paths(page.read_text(encoding="utf-8")):
            if (name, path) in NOT_IN_THE_REPOSITORY:
                seen_exceptions.add((name, path))
            elif not (ROOT / path).exists():
                missing.append(f"{name}:{line}: `{path}` is not in the repository")
    assert missing == []
    # each exception is still named by its page and still absent (else it leaves the list)
    assert set(NOT_IN_THE_REPOSITORY) - seen_exceptions == set()
    assert [path for _, path in NOT_IN_THE_REPOSITORY if (ROOT / path).exists()] == []


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        ("see `tasks/engine/record.py` and `benchmarks/scale.md`.", ["tasks/engine/record.py", "benchmarks/scale.md"]),
        (
            "`tests/debates/` and `python scripts/x.py --out benchmarks/x.md`",
            ["tests/debates", "scripts/x.py", "benchmarks/x.md"],
        ),
        ("`tasks/engine/a.py:12` `debates/method.py::Method.rescore`", ["tasks/engine/a.py", "debates/method.py"]),
        ("`tests/debates/<method>/` `docs/**/*.md` `runs/x/results.jsonl` `debate_eval/x.py`", []),
        ("`pyproject.toml` `python -m tasks.cli` `git show HEAD~3 -- tasks/engine/gone.py`", []),
    ],
)
def test_what_counts_as_a_path(text: str, paths: list[str]) -> None:
    assert [path for _, path in named_paths(text)] == paths


def test_fenced_blocks_are_not_read_and_lines_count_from_one() -> None:
    text = "intro\n```bash\npython scripts/in_a_block.py `tasks/x.py`\n```\nthen `docs/x.md`\n"
    assert named_paths(text) == [(5, "docs/x.md")]


def test_a_missing_path_is_caught(tmp_path: Path) -> None:
    page = "the store is `tasks/engine/no_such_module.py`; the record is `tasks/engine/record.py`\n"
    missing = [path for _, path in named_paths(page) if not (ROOT / path).exists()]
    assert missing == ["tasks/engine/no_such_module.py"]
