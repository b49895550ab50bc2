"""``--fidelity authors-code`` without ``--template`` sends this project's own wording of the prompt: their
prompt file is what makes it the authors' run, so the run says so in one line (and not when it is given)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from faultkit import Outcome

from debate_eval.tasks.data.templates import builtin_template

WARNING = "--fidelity authors-code without --template sends this project's own wording of the prompt"


def authors_run(out: Path, *extra: str) -> list[str]:
    return [
        "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--provider", "scripted",
        "--fidelity", "authors-code", "--max-rounds", "1", "--out", str(out), "--no-progress", *extra,
    ]  # fmt: skip


def test_authors_code_without_a_template_says_so_in_one_line(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    outcome = cli(authors_run(isolated_env / "out"))
    assert outcome.code == 0, outcome.output[-2000:]
    warnings = [line for line in outcome.error_lines() if WARNING in line]
    assert len(warnings) == 1 and "--template FILE" in warnings[0], outcome.stderr


def test_authors_code_with_their_template_file_says_nothing(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    their_file = isolated_env / "coh_detailed.txt"  # a prompt file of theirs (here: the same text, as a file)
    their_file.write_text(builtin_template("summeval", "coherence").text, encoding="utf-8")
    outcome = cli(authors_run(isolated_env / "out", "--template", str(their_file)))
    assert outcome.code == 0, outcome.output[-2000:]
    assert WARNING not in outcome.output
