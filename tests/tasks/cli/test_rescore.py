"""``debate-eval rescore`` and a resume's re-reading of older records reproduce, with an unchanged parser, exactly
what the run recorded: for every built-in method and each task type it has (pairwise in both orders, --swap).

Both re-read every answer from the transcript through the method's own hooks (``reparser``, ``rescore``,
``rescore_pairwise``), so a hook that parses with another parser, another scale or combines in another way than
the run shows up here as a changed record. No field is left out of the comparison: the records are equal as
JSON, timing (``elapsed_s``) included, since re-reading keeps what it does not re-read.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.debates.base import all_methods, method_source
from debate_eval.debates.scoring import PARSER_VERSION
from debate_eval.tasks.cli.main import main

ITEMS = 2
# each method's options that keep a run short (one round, one turn, two samples, two branches)
SHORT: dict[str, list[str]] = {
    "chateval": ["--chateval-turns", "1"],
    "fennec": ["--branches", "2"],
    "self-consistency": ["--sc-samples", "2"],
}
DEBATE_FAMILY = ["--max-rounds", "1"]
SINGLE = {"dialevalml": ("fed_turn", "relevant")}  # its dialogue set: "3" on relevant's 0-2 is its own 1-5
DEFAULT_SINGLE = ("summeval", "coherence")
PAIRWISE = ("pandalm", "preference")


# the flows that read answers with their own extraction (the authors' released code), single tasks only
FIDELITY = [("debate", ["--fidelity", "authors-code", "--tie-breaker"]), ("chateval", ["--fidelity", "authors-code"])]


def cases() -> list[Any]:
    """(method, task type, more flags) for every built-in method and each task type it implements, and the
    authors-code fidelity of the methods that have one."""
    found = []
    for name, method in all_methods().items():
        if method_source(method) != "built-in":
            continue
        for task_type in method.task_types:
            found.append(pytest.param(name, task_type, [], id=f"{name}-{task_type}"))
    found += [pytest.param(name, "single", extra, id=f"{name}-single-authors-code") for name, extra in FIDELITY]
    return found


def run_args(method: str, task_type: str, out: Path, extra: list[str]) -> list[str]:
    dataset, aspect = PAIRWISE if task_type == "pairwise" else SINGLE.get(method, DEFAULT_SINGLE)
    args = ["run", "--dataset", dataset, "--aspect", aspect, "--method", method, "--limit", str(ITEMS), *extra]
    args += SHORT.get(method, DEBATE_FAMILY if method in ("debate", "multiagent", "tiebreaker", "both") else [])
    if task_type == "pairwise":
        args.append("--swap")
    return [*args, "--provider", "scripted", "--out", str(out), "--no-progress"]


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def as_older_parser(out: Path) -> None:
    """The run's records as an older parser would have named and explained them (every reason changed)."""
    rewritten = []
    for line in lines(out):
        line.update(parser_version=PARSER_VERSION - 1, parse_reason="read by an older parser")
        for entry in line["transcript"]:
            for key in ("score", "verdict"):
                if isinstance(entry.get(key), dict):
                    entry[key] = {**entry[key], "reason": "read by an older parser"}
        rewritten.append(json.dumps(line) + "\n")
    (out / "results.jsonl").write_text("".join(rewritten), encoding="utf-8")


@pytest.mark.parametrize(("method", "task_type", "extra"), cases())
def test_rescore_and_a_resume_reread_reproduce_the_run(
    isolated_env: Path, dataset_path: Callable[[str], Path], method: str, task_type: str, extra: list[str]
) -> None:
    out = isolated_env / "run"
    args = run_args(method, task_type, out, extra)
    dataset_path(args[args.index("--dataset") + 1])
    assert main(args) == 0
    recorded = lines(out)
    assert len(recorded) == ITEMS and not any(line["error"] for line in recorded)
    assert any(line["transcript"] for line in recorded)
    reread_dir = isolated_env / "older"
    shutil.copytree(out, reread_dir)

    assert main(["rescore", str(out)]) == 0
    assert lines(out) == recorded  # every field as the run wrote it, transcript entries included

    as_older_parser(reread_dir)
    assert main([*args[: args.index("--out") + 1], str(reread_dir), "--no-progress"]) == 0
    assert lines(reread_dir) == recorded


def test_two_rescores_in_one_second_keep_both_backups(
    isolated_env: Path, dataset_path: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backup of the file as the run wrote it is never written over by a second rescore's backup."""
    out = isolated_env / "run"
    args = run_args("geval", "single", out, [])
    dataset_path("summeval")
    assert main(args) == 0
    original = (out / "results.jsonl").read_bytes()
    monkeypatch.setattr("debate_eval.tasks.cli.rescore.time.strftime", lambda _format: "20261127-120000")
    assert main(["rescore", str(out)]) == 0
    assert main(["rescore", str(out)]) == 0
    backups = sorted(path.name for path in out.glob("results.jsonl.bak-*"))
    assert backups == ["results.jsonl.bak-20261127-120000", "results.jsonl.bak-20261127-120000-2"]
    assert (out / "results.jsonl.bak-20261127-120000").read_bytes() == original


def test_a_jury_run_is_refused_in_one_line_naming_its_jurors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A jury's verdicts come from its jurors' runs (was: its own config.json called not debate-eval's)."""
    jurors = []
    for model in ("planted-length", "planted-copy"):
        jurors.append(tmp_path / model)
        argv = ["run", "--dataset", "summeval", "--aspect", "coherence", "--method", "geval", "--provider", "scripted"]
        assert main([*argv, "--model", model, "--limit", "2", "--out", str(jurors[-1]), "--no-progress"]) == 0
    jury = tmp_path / "jury"
    assert main(["jury", *map(str, jurors), "--out", str(jury)]) == 0
    before = (jury / "results.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["rescore", str(jury)]) == 2
    error = capsys.readouterr().err
    assert error == (
        f"debate-eval: error: {jury / 'results.jsonl'}: a jury's verdicts are combined from its jurors' runs "
        f"({jurors[0]}, {jurors[1]}), not read from a judge's text: rescore each juror's run, then run "
        "`debate-eval jury` again\n"
    )
    assert (jury / "results.jsonl").read_bytes() == before


@pytest.mark.parametrize("pairwise", [False, True], ids=["score", "compare"])
def test_a_judges_folder_is_rescored_from_its_prompts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pairwise: bool
) -> None:
    """A ``Judge(record_to=...)`` folder has no dataset (was: "unknown dataset 'judge'"): each judgment's texts
    are read back out of its prompt, checked against the digest its record keeps, and its answers read again."""
    from debate_eval import Judge

    out = tmp_path / "judged"
    judge = Judge(method="debate", provider="scripted", criteria="Is it right?", record_to=out, max_rounds=1)
    try:
        if pairwise:
            judge.compare("Answer one.", "Answer two.", question="What? {{output_a}}")
        else:
            judge.score_many(
                [{"output": "out {{source}} one", "source": "src", "system": "A"}, {"output": "2", "source": "s"}]
            )
    finally:
        judge.close()
    recorded = lines(out)
    as_older_parser(out)
    assert lines(out) != recorded
    capsys.readouterr()
    assert main(["rescore", str(out)]) == 0
    assert "left as they are" not in capsys.readouterr().out
    assert lines(out) == recorded
