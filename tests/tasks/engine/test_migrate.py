"""Config hashes count only the roles a method calls; run directories of the previous version still resume.

The golden hashes and ``data/legacy_run_0afcb53/`` were written by the code of commit 0afcb53 (before the
method registry): ``debate-eval run`` on SummEval coherence, 3 items, every role at ``--base-url
http://127.0.0.1:9/v1 --model scripted`` (the replies came from the scripted server through client
overrides, so the recorded endpoint is that fixed URL). Nothing listens on port 9: a resume that made any
model call would fail its items.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from debate_eval.debates.fennec import method as fennec_method
from debate_eval.tasks.cli.main import build_parser, main
from debate_eval.tasks.cli.run import build_run_config
from debate_eval.tasks.engine.compat.hashes import pre_prompts_config_hash, pre_registry_config_hash
from debate_eval.tasks.engine.results import read_jsonl

LEGACY_RUN = Path(__file__).parent / "data" / "legacy_run_0afcb53"
ENDPOINT = ["--base-url", "http://127.0.0.1:9/v1", "--model", "scripted"]
SUMMEVAL = ["--dataset", "summeval", "--aspect", "coherence", *ENDPOINT]
# a run in this process, and the parent of --workers (which opens the run directory the same way)
BACKENDS = [pytest.param([], id="in_process"), pytest.param(["--workers", "2"], id="workers")]
# (arguments of `run`, the config hash commit 0afcb53 gave them)
GOLDEN = [
    (SUMMEVAL, "f9eb877706a19fca"),
    ([*SUMMEVAL, "--protocol", "multiagent"], "24027a16e7baa65c"),
    ([*SUMMEVAL, "--protocol", "tiebreaker"], "1ade21ba5c632064"),
    ([*SUMMEVAL, "--protocol", "both", "--commander-llm", "--max-rounds", "3"], "8d2b92f6b7b43aee"),
    (
        ["--dataset", "topical_chat", "--aspect", "engagingness", *ENDPOINT, "--protocol", "debate", "--tie-breaker"],
        "3d96049a84e891f7",
    ),
    ([*SUMMEVAL, "--protocol", "geval"], "64aa8235a0e2bd72"),
    ([*SUMMEVAL, "--protocol", "geval", "--geval-samples", "3", "--temperature", "0.7"], "8ef906863418b151"),
]
# ChatEval's paper mode changed since 0afcb53 (d42253c: two referees by default, a bounded re-ask): its old
# runs are another configuration, so no legacy hash is given (0afcb53 gave these two 78ce99efe58e4621 and
# bddfff518ab45ba1) and such a directory is refused rather than resumed with mixed results.
CHANGED_SINCE = [
    [*SUMMEVAL, "--protocol", "chateval", "--chateval-roles", "general-public,critic,news-author"],
    [*SUMMEVAL, "--protocol", "chateval", "--chateval-strategy", "simultaneous-summarizer", "--chateval-turns", "1"],
]


def config_of(argv: list[str]):  # type: ignore[no-untyped-def]
    return build_run_config(build_parser().parse_args(["run", *argv]))


@pytest.mark.parametrize(("argv", "old_hash"), GOLDEN)
def test_the_legacy_hash_is_the_previous_versions(isolated_env: Path, argv: list[str], old_hash: str) -> None:
    config = config_of(argv)
    assert pre_registry_config_hash(config) == old_hash
    assert config.config_hash() != old_hash  # the new hash leaves unused roles out


@pytest.mark.parametrize("argv", CHANGED_SINCE)
def test_a_method_changed_since_has_no_legacy_hash(isolated_env: Path, argv: list[str]) -> None:
    assert pre_registry_config_hash(config_of(argv)) is None


def test_an_unused_roles_model_no_longer_changes_the_hash(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {p: config_of([*SUMMEVAL, "--protocol", p]) for p in ("debate", "tiebreaker", "geval")}
    monkeypatch.setenv("DEBATE_EVAL_TIEBREAKER_MODEL", "another-model")
    moved = {p: config_of([*SUMMEVAL, "--protocol", p]) for p in ("debate", "tiebreaker", "geval")}
    assert moved["debate"].config_hash() == plain["debate"].config_hash()
    assert moved["geval"].config_hash() == plain["geval"].config_hash()
    assert moved["tiebreaker"].config_hash() != plain["tiebreaker"].config_hash()  # it calls the Tie-breaker
    assert pre_registry_config_hash(moved["debate"]) != pre_registry_config_hash(
        plain["debate"]
    )  # the old hash did count it
    assert sorted(plain["debate"].result_config()["models"]) == ["critic", "scorer"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_run_directory_of_the_previous_version_resumes_with_no_call(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], backend: list[str]
) -> None:
    out = isolated_env / "legacy"
    shutil.copytree(LEGACY_RUN, out)
    before = read_jsonl(out / "results.jsonl")
    assert {r["config_hash"] for r in before} == {"f9eb877706a19fca"} and len(before) == 3
    argv = ["run", *SUMMEVAL, "--limit", "3", "--out", str(out), "--no-preflight", "--no-progress", "--no-cache"]
    argv += backend

    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "written by an earlier version (config hash f9eb877706a19fca)" in err
    new_hash = config_of(SUMMEVAL).config_hash()
    after = read_jsonl(out / "results.jsonl")
    assert {r["config_hash"] for r in after} == {new_hash}
    strip = [{k: v for k, v in r.items() if k != "config_hash"} for r in after]
    assert strip == [{k: v for k, v in r.items() if k != "config_hash"} for r in before]  # nothing else changed
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert document["config_hash"] == new_hash and document["migrated_from"] == {"config_hash": "f9eb877706a19fca"}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["already_done"] == 3 and summary["this_invocation"]["attempted"] == 0
    assert summary["this_invocation"]["llm_calls"] == 0 and summary["finished"] == 3

    assert main(argv) == 0  # a second resume: already migrated, still nothing to do
    assert "earlier version" not in capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
def test_another_configuration_is_still_refused(isolated_env: Path, backend: list[str]) -> None:
    out = isolated_env / "legacy"
    shutil.copytree(LEGACY_RUN, out)
    argv = ["run", *SUMMEVAL, "--max-rounds", "3", "--limit", "3", "--out", str(out), "--no-preflight", *backend]
    assert main(argv) == 2
    assert {r["config_hash"] for r in read_jsonl(out / "results.jsonl")} == {"f9eb877706a19fca"}


# Fennec before its prompts were recorded: the hash the code of main before that change gave this command
# (``debate-eval run`` with these arguments, ``config.json``'s ``config_hash``)
FENNEC = ["--dataset", "summeval", "--aspect", "coherence", "--protocol", "fennec", "--provider", "scripted"]
FENNEC_BEFORE_PROMPTS = "aca4b31a8e7feb91"


def fennec_run(out: Path) -> list[str]:
    return ["run", *FENNEC, "--limit", "2", "--branches", "1", "--out", str(out), "--no-progress", "--no-cache"]


def test_a_fennec_hash_before_its_prompts_were_recorded(isolated_env: Path) -> None:
    config = config_of(FENNEC)
    assert pre_prompts_config_hash(config) == FENNEC_BEFORE_PROMPTS != config.config_hash()
    assert pre_prompts_config_hash(config_of(SUMMEVAL)) is None  # another method: nothing to read


def test_a_fennec_run_directory_without_prompts_resumes_with_no_call(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory written as the code before the prompts were recorded wrote it (``FennecConfig`` without
    ``to_dict``: every field, no prompts) resumes: its lines get the new hash, no item is judged again."""
    out = isolated_env / "fennec"
    with monkeypatch.context() as before:
        before.delattr(fennec_method.FennecConfig, "to_dict")
        assert main(fennec_run(out)) == 0
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    old = document["config_hash"]
    assert "prompts" not in document["result_config"]["fennec"]
    assert {r["config_hash"] for r in read_jsonl(out / "results.jsonl")} == {old}
    capsys.readouterr()

    assert main(fennec_run(out)) == 0
    assert f"written by an earlier version (config hash {old})" in capsys.readouterr().err
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    new = config_of([*FENNEC, "--branches", "1"]).config_hash()
    assert document["config_hash"] == new != old and document["migrated_from"] == {"config_hash": old}
    assert set(document["result_config"]["fennec"]["prompts"]) >= {"criteria.txt", "guideline.txt"}
    assert {r["config_hash"] for r in read_jsonl(out / "results.jsonl")} == {new}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["already_done"] == 2 and summary["this_invocation"]["attempted"] == 0
    assert summary["this_invocation"]["llm_calls"] == 0 and summary["finished"] == 2


def test_a_fennec_rerun_with_an_edited_prompt_is_refused(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = isolated_env / "fennec"
    assert main(fennec_run(out)) == 0
    hashes = {r["config_hash"] for r in read_jsonl(out / "results.jsonl")}
    shipped = fennec_method.prompt_text
    edited = {"guideline.txt": shipped("guideline.txt") + "\nBe strict."}
    monkeypatch.setattr(fennec_method, "prompt_text", lambda name: edited.get(name) or shipped(name))
    assert main(fennec_run(out)) == 2
    assert {r["config_hash"] for r in read_jsonl(out / "results.jsonl")} == hashes  # nothing mixed in
