"""``data download`` / ``data check`` with a fake opener: verification, atomic writes, no network."""

from __future__ import annotations

import argparse
import functools
import http.client
import json
import socket
import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data import download
from debate_eval.tasks.data.datasets import DATA_DIR_ENV, DATASETS, DatasetSpec, git_blob_id
from debate_eval.tasks.data.download import (
    ALREADY_PRESENT,
    DOWNLOADED,
    REPLACED,
    add_subparser,
    check_datasets,
    download_datasets,
)

GOOD = b'[{"a": 1}]'
OTHER = b'[{"b": 2}]'
URL = "https://data.example.invalid/tiny/tiny.json"


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any real connection attempt fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a test tried to use the network")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


class FakeResponse:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def __enter__(self) -> FakeResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self) -> bytes:
        return self.body


class FakeOpener:
    """Serves bytes per URL (or raises an exception) and records the calls."""

    def __init__(self, answers: dict[str, bytes | BaseException]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, float]] = []

    def __call__(self, url: str, timeout: float) -> FakeResponse:
        self.calls.append((url, timeout))
        answer = self.answers[url]
        if isinstance(answer, BaseException):
            raise answer
        return FakeResponse(answer)


def _spec(name: str = "tiny", body: bytes = GOOD, url: str = URL) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        relative_path=f"{name}/{name}.json",
        aspects={},
        kind="summarization",
        upstream_url=url,
        git_blob_id=git_blob_id(body),
        size_bytes=len(body),
    )


def _specs(*specs: DatasetSpec) -> dict[str, DatasetSpec]:
    return {spec.name: spec for spec in specs}


def _leftovers(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.name.endswith(".part")]


def test_good_bytes_are_written_and_verified(tmp_path: Path) -> None:
    opener = FakeOpener({URL: GOOD})
    [report] = download_datasets(tmp_path, opener=opener, specs=_specs(_spec()), timeout=7)
    target = tmp_path / "tiny" / "tiny.json"
    assert target.read_bytes() == GOOD
    assert opener.calls == [(URL, 7)]
    assert (report.name, report.path, report.status, report.blob_id) == ("tiny", target, DOWNLOADED, git_blob_id(GOOD))
    assert report.size_bytes == len(GOOD)
    assert str(target) in report.line and "verified" in report.line
    assert _leftovers(tmp_path) == []


def test_wrong_bytes_are_refused_and_not_kept(tmp_path: Path) -> None:
    opener = FakeOpener({URL: OTHER})
    with pytest.raises(UserError) as error:
        download_datasets(tmp_path, opener=opener, specs=_specs(_spec()))
    message = str(error.value)
    assert git_blob_id(GOOD) in message and git_blob_id(OTHER) in message and URL in message
    assert "not saved" in message
    assert not (tmp_path / "tiny" / "tiny.json").exists()
    assert _leftovers(tmp_path) == []


def test_wrong_bytes_do_not_overwrite_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "tiny" / "tiny.json"
    target.parent.mkdir()
    target.write_bytes(b"old and wrong")
    with pytest.raises(UserError, match="has git blob id"):
        download_datasets(tmp_path, opener=FakeOpener({URL: OTHER}), specs=_specs(_spec()))
    assert target.read_bytes() == b"old and wrong"


NETWORK_ERRORS: list[BaseException] = [
    urllib.error.URLError(socket.gaierror(-2, "Name or service not known")),
    urllib.error.URLError("timed out"),
    TimeoutError("timed out"),
    ConnectionResetError(104, "Connection reset by peer"),
    http.client.RemoteDisconnected("Remote end closed connection without response"),
]


@pytest.mark.parametrize("exc", NETWORK_ERRORS, ids=lambda exc: type(exc).__name__)
def test_no_network_is_one_clear_line(tmp_path: Path, exc: BaseException) -> None:
    with pytest.raises(UserError) as error:
        download_datasets(tmp_path, opener=FakeOpener({URL: exc}), specs=_specs(_spec()))
    message = str(error.value)
    assert "\n" not in message
    assert "data.example.invalid could not be reached" in message
    assert f"copy the files by hand into {tmp_path}" in message
    assert "summeval/summeval.json" in message and "topical_chat/topical_chat.json" in message
    assert message.count("fed/fed_data.json") == 1  # two datasets, one file: named once
    assert "--data-dir" in message and DATA_DIR_ENV in message
    assert not (tmp_path / "tiny").exists()


def test_http_error_names_the_status(tmp_path: Path) -> None:
    exc = urllib.error.HTTPError(URL, 404, "Not Found", None, None)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=f"{URL} answered HTTP 404 Not Found; copy the files by hand"):
        download_datasets(tmp_path, opener=FakeOpener({URL: exc}), specs=_specs(_spec()))


def test_an_already_verified_file_is_not_fetched_again(tmp_path: Path) -> None:
    target = tmp_path / "tiny" / "tiny.json"
    target.parent.mkdir()
    target.write_bytes(GOOD)
    opener = FakeOpener({URL: urllib.error.URLError("must not be called")})
    [report] = download_datasets(tmp_path, opener=opener, specs=_specs(_spec()))
    assert opener.calls == [] and report.status == ALREADY_PRESENT == "already present, verified"
    assert "already present, verified" in report.line


def test_force_fetches_again(tmp_path: Path) -> None:
    download_datasets(tmp_path, opener=FakeOpener({URL: GOOD}), specs=_specs(_spec()))
    opener = FakeOpener({URL: GOOD})
    [report] = download_datasets(tmp_path, opener=opener, specs=_specs(_spec()), force=True)
    assert len(opener.calls) == 1 and report.status == DOWNLOADED


def test_a_file_with_the_wrong_contents_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "tiny" / "tiny.json"
    target.parent.mkdir()
    target.write_bytes(b"stale")
    [report] = download_datasets(tmp_path, opener=FakeOpener({URL: GOOD}), specs=_specs(_spec()))
    assert report.status == REPLACED and target.read_bytes() == GOOD


def test_names_pick_datasets_and_unknown_names_are_refused(tmp_path: Path) -> None:
    url_b = "https://data.example.invalid/b.json"
    specs = _specs(_spec("a"), _spec("b", OTHER, url_b))
    opener = FakeOpener({URL: GOOD, url_b: OTHER})
    reports = download_datasets(tmp_path, ["b", "b"], opener=opener, specs=specs)
    assert [report.name for report in reports] == ["b"] and opener.calls == [(url_b, 60)]
    assert (tmp_path / "b" / "b.json").read_bytes() == OTHER and not (tmp_path / "a").exists()
    with pytest.raises(UserError, match="unknown dataset 'c'; valid datasets: a, b"):
        download_datasets(tmp_path, ["c"], opener=opener, specs=specs)
    with pytest.raises(UserError, match="valid datasets: summeval, topical_chat, fed_turn"):
        download_datasets(tmp_path, ["c"], opener=opener)


def test_upstream_urls() -> None:
    assert DATASETS["summeval"].upstream_url == (
        "https://raw.githubusercontent.com/nlpyang/geval/main/data/summeval.json"
    )
    assert DATASETS["topical_chat"].upstream_url == (
        "https://raw.githubusercontent.com/maszhongming/UniEval/main/reproduce/data/dialogue/topical_chat.json"
    )


SHIPPED = {name: spec for name, spec in DATASETS.items() if spec.shipped}


def _real_opener(shared_data_dir: Path) -> FakeOpener:
    return FakeOpener(
        {spec.upstream_url: (shared_data_dir / spec.relative_path).read_bytes() for spec in SHIPPED.values()}
    )


def test_the_real_datasets_via_a_fake_opener(tmp_path: Path, shared_data_dir: Path) -> None:
    opener = _real_opener(shared_data_dir)
    reports = download_datasets(tmp_path, list(SHIPPED), opener=opener)
    assert [report.name for report in reports] == ["summeval", "topical_chat"]
    assert {url for url, _ in opener.calls} == {spec.upstream_url for spec in SHIPPED.values()}
    for spec in SHIPPED.values():
        assert git_blob_id((tmp_path / spec.relative_path).read_bytes()) == spec.git_blob_id
    assert [report.line for report in check_datasets(tmp_path)] == [
        f"summeval: {tmp_path / 'summeval/summeval.json'}: 1600 items in 100 groups; "
        f"git blob {DATASETS['summeval'].git_blob_id} matches upstream",
        f"topical_chat: {tmp_path / 'topical_chat/topical_chat.json'}: 360 items in 60 groups; "
        f"git blob {DATASETS['topical_chat'].git_blob_id} matches upstream",
    ]


# --------------------------------------------------------------------------------------------------
# The command line


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="debate-eval")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def _run(argv: list[str]) -> int:
    args = _parse(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


def test_the_data_command_needs_a_subcommand() -> None:
    with pytest.raises(SystemExit):
        _parse(["data"])
    args = _parse(["data", "download", "--dataset", "summeval", "--force"])
    assert (args.dir, args.dataset, args.force) == (None, ["summeval"], True)


def test_cli_download(
    tmp_path: Path, shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = functools.partial(download.iter_downloads, opener=_real_opener(shared_data_dir))
    monkeypatch.setattr(download, "iter_downloads", fake)
    assert _run(["data", "download", "--dir", str(tmp_path), "--dataset", "topical_chat"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"topical_chat: {tmp_path / 'topical_chat/topical_chat.json'}: downloaded, verified "
        f"(669,279 bytes, git blob {DATASETS['topical_chat'].git_blob_id})"
    ]
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert _run(["data", "download", "--dataset", "summeval", "--dataset", "topical_chat"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "summeval" in lines[0] and "downloaded" in lines[0]
    assert "topical_chat" in lines[1] and "already present, verified" in lines[1]


def test_cli_check(shared_data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        _run(
            ["data", "check", "--data-dir", str(shared_data_dir), "--dataset", "summeval", "--dataset", "topical_chat"]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "1600 items in 100 groups" in lines[0] and "360 items in 60 groups" in lines[1]


def test_cli_check_reports_missing_files(tmp_path: Path) -> None:
    with pytest.raises(UserError) as error:
        _run(["data", "check", "--data-dir", str(tmp_path)])
    message = str(error.value)
    assert str(tmp_path / "summeval/summeval.json") in message
    assert str(tmp_path / "topical_chat/topical_chat.json") in message


def test_cli_check_refuses_a_valid_file_with_another_blob_id(
    tmp_path: Path, shared_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for spec in SHIPPED.values():
        target = tmp_path / spec.relative_path
        target.parent.mkdir(parents=True)
        target.write_bytes((shared_data_dir / spec.relative_path).read_bytes())
    summeval = tmp_path / "summeval" / "summeval.json"
    summeval.write_text(json.dumps(json.loads(summeval.read_text(encoding="utf-8"))), encoding="utf-8")
    with pytest.raises(UserError, match=r"does not match upstream's 812a51e6.*data download --force"):
        _run(["data", "check", "--data-dir", str(tmp_path)])
    assert "topical_chat" in capsys.readouterr().out


def test_by_default_every_set_is_fetched_once_per_file() -> None:
    chosen = download._choose_specs(None, None)
    assert [spec.name for spec in chosen] == [
        "summeval",
        "topical_chat",
        "fed_turn",  # fed_dialogue reads the same file
        "xdial_fed_turn",
        "xdial_fed_dialogue",
        "faireval",
        "pandalm",
        "autoj_pairwise",
        "judgebench",
    ]
    for spec in chosen:
        assert len(spec.git_blob_id) == 40 and spec.size_bytes > 0 and spec.upstream_url.startswith("https://")
