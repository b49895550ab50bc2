"""The flags of ``run`` are a ``RunRequest``: each flag's dest is a request field or a method option named
after the flag, every field has its flag, and ``--config`` / ``--dump-config`` round-trip."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the backport, a dependency on 3.10 only
    import tomli as tomllib

import debate_eval
from debate_eval.debates.base import method_option_names
from debate_eval.tasks.cli.main import build_parser, main
from debate_eval.tasks.cli.run import build_run_config, request_from_args
from debate_eval.tasks.engine.request import field_names

NOT_OPTIONS = {"help", "config", "dump_config"}  # the command's own flags, not options of a run
ALIASES = {"--protocol": "method"}  # earlier names, hidden from --help


def run_parser() -> argparse.ArgumentParser:
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return subparsers.choices["run"]


def test_every_run_flag_is_a_request_field_or_a_method_option_of_its_name() -> None:
    fields, options = set(field_names()), set(method_option_names())
    assert not fields & options, "a method option must not take a run option's name"
    seen = set()
    for action in run_parser()._actions:
        if action.dest in NOT_OPTIONS:
            continue
        assert action.dest in fields | options, f"{action.option_strings}: dest {action.dest} is no request field"
        for flag in action.option_strings:
            assert ALIASES.get(flag, flag[2:].replace("-", "_")) == action.dest, flag
        seen.add(action.dest)
    assert seen == (fields - {"method_options"}) | options  # and every field has its flag


def test_a_flag_not_given_is_absent_from_the_request() -> None:
    args = run_parser().parse_args(["--dataset", "summeval", "--aspect", "coherence"])
    assert request_from_args(args).given() == {"dataset": "summeval", "aspect": "coherence"}


def test_dump_config_then_config_gives_the_same_run(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--dataset", "summeval", "--aspect", "coherence", "--method", "tiebreaker", "--max-rounds", "3"]
    argv += ["--critic", "plain", "--limit", "2", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    argv += ["--role-model", "critic=gpt-4o-mini", "--no-cache", "--seed", "7"]
    assert main(["run", *argv, "--dump-config"]) == 0
    text = capsys.readouterr().out
    assert "max_rounds = 3" in text and 'critic = "plain"' in text and "no_cache = true" in text
    file = isolated_env / "run.toml"
    file.write_text(text, encoding="utf-8")
    assert main(["run", "--config", str(file), "--dump-config"]) == 0
    assert capsys.readouterr().out == text
    from_flags = build_run_config(run_parser().parse_args(argv))
    from_file = build_run_config(run_parser().parse_args(["--config", str(file)]))
    assert from_file.config_hash() == from_flags.config_hash()


def test_flags_win_over_the_config_file(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = isolated_env / "run.toml"
    file.write_text('dataset = "summeval"\naspect = "coherence"\nlimit = 8\nmax_rounds = 3\n', encoding="utf-8")
    assert main(["run", "--config", str(file), "--limit", "2", "--max-rounds", "2", "--dump-config"]) == 0
    out = capsys.readouterr().out
    assert "limit = 2" in out and "max_rounds = 2" in out and 'dataset = "summeval"' in out


def test_a_bad_config_file_is_one_line_and_exit_2(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = isolated_env / "run.toml"
    file.write_text('dataset = "summeval"\naspect = "coherence"\nmax_round = 3\n', encoding="utf-8")
    assert main(["run", "--config", str(file), "--provider", "scripted"]) == 2
    err = capsys.readouterr().err
    assert err == f"debate-eval: error: {file}: unknown method option 'max_round'; did you mean max_rounds?\n"


def test_a_run_without_dataset_or_aspect_says_so(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--aspect", "coherence"]) == 2
    assert "give the data to evaluate: --dataset NAME|FILE" in capsys.readouterr().err


def test_dump_config_prints_no_key_as_security_md_says(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A config file's ``api_key = ...`` is refused in one line naming the option, not its value, and nothing is
    printed; a --base-url's password that --dump-config prints is masked. docs/security.md says both."""
    key, password = "sk-FAKE-dump-config-not-a-key-0000", "sk-FAKE-base-url-not-a-password-0000"
    base = 'dataset = "summeval"\naspect = "coherence"\nmethod = "geval"\n'
    with_key = isolated_env / "key.toml"
    with_key.write_text(base + f'api_key = "{key}"\n', encoding="utf-8")
    assert main(["run", "--config", str(with_key), "--dump-config"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert "'api_key'" in captured.err and key not in captured.err
    with_url = isolated_env / "url.toml"
    with_url.write_text(base + f'base_url = "http://user:{password}@127.0.0.1:9/v1"\n', encoding="utf-8")
    assert main(["run", "--config", str(with_url), "--dump-config"]) == 0
    out = capsys.readouterr().out
    assert "[redacted]" in out and password not in out
    page = " ".join((Path(__file__).parents[3] / "docs" / "security.md").read_text(encoding="utf-8").split())
    assert "`--dump-config` prints no key" in page and "`api_key = ...` is refused as `run` refuses it" in page
    assert "`api_key = ...` is printed `[redacted]`" not in page


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("limit", "0", ">= 1, got 0"),  # the flag once said "invalid positive_int value: '0'"
        ("max_retries", "-1", ">= 0, got -1"),
        ("timeout", "-1", "expected a number > 0"),  # once accepted: every call then timed out at once
        ("timeout", "0", "expected a number > 0"),
        ("chateval_turns", "0", "expected an integer >= 1, got 0"),  # another method's option, checked all three ways
        ("chateval_strategy", '"nope"', "simultaneous-summarizer"),  # argparse words its choices its own way
    ],
)
def test_a_bad_value_is_refused_the_same_by_flag_file_and_keyword(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, expected: str
) -> None:
    """The debate runs here: a value refused on the command line is refused in a ``--config`` file and by
    ``evaluate()`` too, before any model call, in one line saying what was expected."""
    base = ["run", "--dataset", "summeval", "--aspect", "coherence", "--provider", "scripted", "--limit", "1"]
    base += ["--out", str(isolated_env / "run")]
    try:  # argparse refuses a flag's text with SystemExit(2) and a usage line above its error line
        code = main([*base, f"--{flag.replace('_', '-')}", value.strip('"')])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    from_flag = capsys.readouterr().err.splitlines()[-1]
    file = isolated_env / "run.toml"
    file.write_text(f"{flag} = {value}\n", encoding="utf-8")
    assert main([*base, "--config", str(file)]) == 2
    from_file = capsys.readouterr().err
    with pytest.raises(debate_eval.UserError) as from_keyword:
        keyword = tomllib.loads(file.read_text(encoding="utf-8"))  # the file's value, as a keyword
        given = {"aspect": "coherence", "provider": "scripted", "limit": 1, "quiet": True, **keyword}
        debate_eval.evaluate("summeval", **given)
    for message in (from_flag, from_file, str(from_keyword.value)):
        assert expected in message and len(message.strip().splitlines()) == 1, message
    assert not (isolated_env / "run" / "results.jsonl").exists()


def test_paths_in_a_config_file_are_read_from_the_current_directory(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/quickstart.md: as the same flags are, not from the file's folder."""
    folder = isolated_env / "sub"
    folder.mkdir()
    (folder / "rows.csv").write_text("src,out,h\nThe council met.,A meeting.,3\n", encoding="utf-8")
    (folder / "run.toml").write_text(
        'dataset = "rows.csv"\naspect = "faithfulness"\ncriteria = "Is it faithful?"\nscale = "1-5"\n'
        'fields = "source=src,output=out,human=h"\nprovider = "scripted"\nmethod = "geval"\nout = "made"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(isolated_env)
    assert main(["run", "--config", "sub/run.toml", "--no-progress"]) == 2
    assert "rows.csv: file not found" in capsys.readouterr().err
    monkeypatch.chdir(folder)
    assert main(["run", "--config", "run.toml", "--no-progress"]) == 0
    assert (folder / "made" / "results.jsonl").exists() and not (isolated_env / "made").exists()
