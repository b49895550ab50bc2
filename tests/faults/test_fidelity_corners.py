"""``--fidelity authors-code`` without ``--template`` sends this project's own wording of the prompt: their
prompt file is what makes it the authors' run, so the run says so in one line (and not when it is given)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def test_the_warning_names_that_aspects_file_and_holds_under_self_consistency(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    outcome = cli([*authors_run(isolated_env / "flu"), "--aspect", "fluency"])
    (warning,) = [line for line in outcome.error_lines() if WARNING in line]
    assert "DEBATE's prompts/summeval/flu_detailed.txt" in warning
    sampled = ["--method", "self-consistency", "--sc-base", "debate", "--sc-samples", "2", "--temperature", "0.7"]
    outcome = cli([*authors_run(isolated_env / "sc"), *sampled])
    assert outcome.code == 0, outcome.output[-2000:]
    (warning,) = [line for line in outcome.error_lines() if WARNING in line]  # before: no warning at all
    assert "DEBATE's prompts/summeval/coh_detailed.txt" in warning


def test_no_warning_where_the_authors_prompt_is_sent_as_it_is(
    isolated_env: Path, cli: Callable[[list[str]], Outcome], dataset_path: Callable[[str], Path]
) -> None:
    dataset_path("faireval")  # FairEval does not ship with the package: skip with the reason when it is absent
    outcome = cli([
        "run", "--dataset", "faireval", "--aspect", "preference", "--method", "chateval", "--limit", "1",
        "--fidelity", "authors-code", "--provider", "scripted", "--out", str(isolated_env / "fe"), "--no-progress",
    ])  # fmt: skip
    assert outcome.code == 0, outcome.output[-2000:]
    assert WARNING not in outcome.output  # their FairEval prompt is built in, byte for byte


def test_self_consistency_keeps_the_base_methods_authors_request_format(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    crlf = fault_env / "coh_detailed.txt"  # a prompt file in their layout: CRLF line endings
    text = builtin_template("summeval", "coherence").text.replace("\r\n", "\n").replace("\n", "\r\n")
    crlf.write_bytes(text.encode("utf-8"))
    server = server_factory()

    def bodies(out: str, *method: str) -> list[str]:
        before = server.count
        outcome = cli([
            "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", *method,
            "--fidelity", "authors-code", "--max-rounds", "1", "--template", str(crlf),
            "--base-url", server.base_url, "--model", "gpt-4-1106-preview", "--no-preflight", "--no-cache",
            "--no-progress", "--out", str(fault_env / out),
        ])  # fmt: skip
        assert outcome.code == 0, outcome.output[-2000:]
        return [json.dumps(body, sort_keys=True) for body in server.requests[before:]]

    base = bodies("debate", "--method", "debate")
    sampled = bodies("sc", "--method", "self-consistency", "--sc-base", "debate", "--sc-samples", "2")
    assert all(set(json.loads(body)) == {"model", "messages", "temperature"} for body in base)  # their format
    assert "\\r" not in "".join(base)  # their open().read(): universal newlines
    # each sample sends what the base method's authors-code run sends, body for body (before: penalties,
    # stream, a seed and top_p, and the prompt file's CRLF)
    assert sampled == base * 2


def test_the_apostrophe_claim_matches_the_authors_strings() -> None:
    from debate_eval.agents.personas import get_persona

    devils_advocate = get_persona("authors-devils-advocate", "critic").text  # debate.py: their only copy of it
    plain = get_persona("authors-plain", "critic").text
    assert "Devil\u2019s" in devils_advocate and "don\u2019t" in devils_advocate and "'" not in devils_advocate
    assert "it's" in plain and "\u2019" not in plain
    docs = (Path(__file__).parents[2] / "docs" / "fidelity.md").read_text(encoding="utf-8")
    assert "the released code sends straight ones" not in docs  # it does not, for the Devil's Advocate
    assert "only released copy\n(`debate.py`) has the curly one" in docs
