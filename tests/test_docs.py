"""The documentation's examples, run by Sybil: every Python block of ``docs/`` runs (offline: the scripted
provider, the packaged data), and every ``debate-eval`` command line of a ``bash`` or ``console`` block of
``docs/`` and the README is parsed by the command's own argument parser, so no documented flag can drift.

A block that cannot run offline is marked ``<!-- skip: next -->`` (Sybil's skip directive); the convention is
documented in docs/development.md, "Examples are tested".
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

from debate_eval.tasks.cli.main import build_parser, command_of

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))

# What ends a simple command in a shell line, and what a command may start with that is not its name.
_OPERATORS = {"&&", "||", "|", ";", "&", "(", ")"}
_KEYWORDS = {"do", "then", "else", "time"}
_REDIRECTION = re.compile(r"\s\d?>{1,2}&?\s*[^\s;&|()]+")


def debate_eval_commands(block: str, *, console: bool = False) -> Iterator[tuple[int, list[str]]]:
    """Each ``debate-eval`` command of a shell block: (line in the block counted from 0, its arguments).

    Continuation lines (a trailing backslash) are joined, comments dropped, and a line of ``&&``/``|``/``;``
    separated commands split; in a console block only the lines after a ``$`` prompt are commands.
    """
    lines = block.split("\n")
    index = 0
    while index < len(lines):
        start, line = index, lines[index]
        while line.endswith("\\") and index + 1 < len(lines):
            index += 1
            line = line[:-1] + " " + lines[index]
        index += 1
        if console:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        lexer = shlex.shlex(_REDIRECTION.sub(" ", line), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        segment: list[str] = []
        for token in [*lexer, ";"]:
            if token not in _OPERATORS:
                segment.append(token)
                continue
            while segment and segment[0] in _KEYWORDS:
                segment.pop(0)
            if segment and segment[0] == "debate-eval":
                yield start, segment[1:]
            segment = []


def parse_error(argv: list[str]) -> str | None:
    """None when ``debate-eval ARGV`` parses (as the command line would read it), else argparse's message."""
    parser = build_parser(command_of(argv))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            parser.parse_args(argv)
        except SystemExit as stop:
            if stop.code not in (0, None):
                return err.getvalue().strip().splitlines()[-1]
    return None


class ShellParser(CodeBlockParser):
    """``bash`` blocks: their ``debate-eval`` lines are parsed, not run."""

    def __init__(self, language: str) -> None:
        super().__init__(language=language)
        self.console = language == "console"

    def evaluate(self, example: Example) -> str | None:
        problems = []
        for offset, argv in debate_eval_commands(str(example.parsed), console=self.console):
            error = parse_error(argv)
            if error:
                line = example.line + 1 + offset  # the block's first line is the fence
                problems.append(f"{example.path}:{line}: debate-eval {shlex.join(argv)}\n  {error}")
        return "\n".join(problems) or None


SHELL = [ShellParser("bash"), ShellParser("console")]
RUN = Sybil(parsers=[PythonCodeBlockParser(), *SHELL, SkipParser()])
PARSE_ONLY = Sybil(parsers=[*SHELL, SkipParser()])  # the README: its Python example is tests/test_readme_api.py's


@pytest.fixture(scope="module")
def docs_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One working directory and response cache for every page: runs of the same configuration are shared."""
    return tmp_path_factory.mktemp("docs")


@pytest.fixture
def docs_env(isolated_env: Path, docs_workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``isolated_env`` (no model settings from the environment, the real data), in the shared directory."""
    monkeypatch.setenv("DEBATE_EVAL_CACHE_DIR", str(docs_workdir / "cache"))
    monkeypatch.chdir(docs_workdir)
    return docs_workdir


def run_document(sybil: Sybil, path: Path) -> int:
    """Evaluate every example of ``path`` in order; returns how many there were."""
    document = sybil.parse(path)
    examples = list(document)
    for example in examples:
        example.evaluate()
    return len(examples)


def fenced_blocks(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """Each fenced block of a Markdown text: (its fence's line counted from 1, info string, lines)."""
    lines = text.split("\n")
    start: int | None = None
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            if start is None:
                start, info = number, line.lstrip()[3:].strip()
            else:
                yield start, info, lines[start : number - 1]
                start = None


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(DOCS)) for page in PAGES])
def test_the_examples_of_the_page_run(page: Path, docs_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = page.read_text(encoding="utf-8")
    checked = sum(info in ("python", "bash", "console") for _, info, _ in fenced_blocks(text))
    skips = len(re.findall(r"^<!-- skip: ", text, re.M))
    assert run_document(RUN, page) == checked + skips  # no example block escaped Sybil's parsers


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda page: page.name)
def test_every_example_has_an_info_string_that_is_checked(page: Path) -> None:
    """A command or Python code in a block that is not ``bash``/``console``/``python`` would go unchecked."""
    for line, info, body in fenced_blocks(page.read_text(encoding="utf-8")):
        if info in ("python", "bash", "console"):
            continue
        assert not any(row.startswith(("debate-eval ", "import debate_eval")) for row in body), (
            f"{page}:{line}: a block with a debate-eval command or Python code is labelled {info or 'nothing'!r}: "
            "label it bash, console or python"
        )


def test_the_readme_commands_parse() -> None:
    assert run_document(PARSE_ONLY, ROOT / "README.md") >= 2  # the install command's run and the test command's


def test_a_flag_that_does_not_exist_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\ndebate-eval run --dataset summeval \\\n  --aspect coherence --no-such-flag 3  # a comment\n```\n",
        encoding="utf-8",
    )
    with pytest.raises(Exception, match=r"(?s)page.md:2: debate-eval run .*unrecognized arguments: --no-such-flag 3"):
        run_document(PARSE_ONLY, page)


def test_commands_are_found_in_compound_shell_lines() -> None:
    block = (
        "pip install x && debate-eval run --limit 4 > out.txt; echo done | debate-eval show RUN\n"
        "for a in x y; do debate-eval meta-eval runs/$a --json; done   # debate-eval not-this\n"
        "$ debate-eval datasets\n"
    )
    assert list(debate_eval_commands(block)) == [
        (0, ["run", "--limit", "4"]),
        (0, ["show", "RUN"]),
        (1, ["meta-eval", "runs/$a", "--json"]),
    ]
    assert list(debate_eval_commands(block, console=True)) == [(2, ["datasets"])]


def test_a_python_block_that_fails_fails_and_a_skipped_one_does_not_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- skip: next -->\n\n```python\nraise ValueError('skipped')\n```\n\n"
        "```python\nimport debate_eval\n\ndebate_eval.parse_score('Score: 9', scale='1-5').value + 1\n```\n",
        encoding="utf-8",
    )
    with pytest.raises(TypeError):  # Score 9 is outside 1-5: no value, and None + 1 fails
        run_document(RUN, page)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_readme_links_lead_somewhere() -> None:
    """The README is outside the site's strict build: its links to pages, anchors and files are checked here."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        target, _, anchor = link.partition("#")
        path = ROOT / target
        assert path.exists(), f"README.md links to {link}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            assert anchor in {github_anchor(heading) for heading in headings}, f"README.md: no anchor {link}"


def test_every_benchmark_report_is_listed_on_the_benchmarks_page() -> None:
    listed = set(re.findall(r"\]\(benchmarks/([^)#]+\.md)\)", (DOCS / "benchmarks.md").read_text(encoding="utf-8")))
    reports = {path.name for path in (ROOT / "benchmarks").glob("*.md")}
    assert reports <= listed, f"docs/benchmarks.md does not link {sorted(reports - listed)}"
