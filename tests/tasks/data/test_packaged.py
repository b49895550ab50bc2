"""The copies of SummEval and Topical-Chat inside the package: verified, used last, a damaged copy is one line."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data import packaged
from debate_eval.tasks.data.datasets import DATA_DIR_ENV, DATASETS, git_blob_id, load_items
from debate_eval.tasks.data.packaged import decompress_verified, has_packaged_copy, packaged_bytes

SHIPPED = ["summeval", "topical_chat"]
PACKAGED_DIR = Path(packaged.__file__).parent / "packaged"


@pytest.fixture
def no_data_folders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No --data-dir, no $DEBATE_EVAL_DATA_DIR, an empty home: only the packaged copy is left."""
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def test_exactly_summeval_and_topical_chat_ship() -> None:
    assert [name for name, spec in DATASETS.items() if spec.shipped] == SHIPPED
    assert all(has_packaged_copy(DATASETS[name]) for name in SHIPPED)
    assert sorted(p.name for p in PACKAGED_DIR.iterdir()) == ["NOTICE", "summeval.json.xz", "topical_chat.json.xz"]


@pytest.mark.parametrize("name", SHIPPED)
def test_packaged_copy_is_the_upstream_blob(name: str) -> None:
    spec = DATASETS[name]
    data = packaged_bytes(spec)
    assert len(data) == spec.size_bytes and git_blob_id(data) == spec.git_blob_id
    compressed = (PACKAGED_DIR / f"{spec.file_name}.xz").stat().st_size
    assert compressed < spec.size_bytes / 4


@pytest.mark.parametrize("name", SHIPPED)
def test_packaged_copy_equals_the_shared_file(name: str, shared_data_dir: Path) -> None:
    assert packaged_bytes(DATASETS[name]) == (shared_data_dir / DATASETS[name].relative_path).read_bytes()


def test_the_notice_attributes_both_sets() -> None:
    notice = (PACKAGED_DIR / "NOTICE").read_text(encoding="utf-8")
    for fragment in (
        "812a51e6727b4a64e661603fa350d76586ef7de0",
        "b1d805141da0c7896888b5843a0cbc8f2cc26e30",
        "Fabbri",
        "MIT",
        "CNN/DailyMail",
        "Mehri & Eskenazi",
        "CDLA-Sharing-1.0",
        "CC BY-NC-ND 4.0",
    ):
        assert fragment in notice


def test_no_data_folder_reads_the_packaged_copy(no_data_folders: Path) -> None:
    items = load_items("summeval", None)
    assert len(items) == 1600 and items[0].system_id == "M11"
    assert len(load_items("topical_chat", None)) == 360
    with pytest.raises(UserError, match=r"dataset fed_turn: file fed/fed_data.json not found.*data download"):
        load_items("fed_turn", None)


def test_a_data_folder_comes_before_the_packaged_copy(no_data_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = no_data_folders / "data"
    path = folder / "summeval" / "summeval.json"
    path.parent.mkdir(parents=True)
    row = {"doc_id": "d", "system_id": "s", "source": "x", "system_output": "y"}
    row["scores"] = {"coherence": 1, "consistency": 1, "fluency": 1, "relevance": 1}
    path.write_text(json.dumps([row]), encoding="utf-8")
    assert len(load_items("summeval", folder)) == 1  # --data-dir
    with monkeypatch.context() as env:
        env.setenv(DATA_DIR_ENV, str(folder))
        assert len(load_items("summeval", None)) == 1  # $DEBATE_EVAL_DATA_DIR
    download = no_data_folders / "home" / ".cache" / "debate-eval" / "data" / "summeval"
    download.mkdir(parents=True)
    (download / "summeval.json").write_bytes(path.read_bytes())
    assert len(load_items("summeval", None)) == 1  # the download folder
    with pytest.raises(UserError, match="data folder not found"):
        load_items("summeval", no_data_folders / "typo")


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (lambda data: data[: len(data) // 2], "cannot decompress"),
        (lambda data: b"not xz at all", "cannot decompress"),
        (lambda data: lzma.compress(lzma.decompress(data).replace(b"Paul Merson", b"Paul Mersen", 1)), "git blob id"),
    ],
)
def test_a_damaged_copy_is_one_clear_line(damage, fragment: str) -> None:  # type: ignore[no-untyped-def]
    spec = DATASETS["summeval"]
    good = (PACKAGED_DIR / "summeval.json.xz").read_bytes()
    with pytest.raises(UserError) as error:
        decompress_verified(damage(good), name="summeval", blob_id=spec.git_blob_id, label="packaged copy X")
    message = str(error.value)
    assert "\n" not in message and message.startswith("packaged copy X of summeval is corrupted")
    assert fragment in message and "data download" in message


def test_a_damaged_installed_copy_fails_the_load(no_data_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check runs on the real load path: a wrong blob id in the spec stands in for damaged bytes."""
    from dataclasses import replace

    from debate_eval.tasks.data import registry

    spec = replace(DATASETS["summeval"], git_blob_id="0" * 40)
    monkeypatch.setitem(registry._REGISTRY, "summeval", spec)
    with pytest.raises(UserError, match="is corrupted: git blob id 812a51e6"):
        load_items("summeval", None)


def test_run_summeval_with_no_data_folder_and_an_empty_home(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's check: no data variables, HOME an empty folder -> the packaged copy; 2 results written."""
    from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
    from debate_eval.tasks.cli.main import main

    monkeypatch.delenv(DATA_DIR_ENV)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(isolated_env / "empty-home"))
    with ScriptedOpenAIServer() as server:
        code = main(
            [
                "run",
                "--dataset",
                "summeval",
                "--aspect",
                "coherence",
                "--limit",
                "2",
                "--no-progress",
                "--base-url",
                server.base_url,
                "--model",
                "M",
            ]
        )
    assert code == 0, capsys.readouterr().err
    results = isolated_env / "runs" / "summeval_coherence_debate" / "results.jsonl"
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 2 and all(record["score"] is not None for record in records)
    assert not (isolated_env / "empty-home" / ".cache" / "debate-eval" / "data").exists()  # nothing downloaded


def test_no_uncompressed_data_copy_is_tracked() -> None:
    """The project's rule: only the compressed, attributed copies ship; no dataset file is in git under any
    name (checked by blob id, so a renamed copy is caught too), and nothing is named like a ../shared file."""
    import re
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[3]
    if not (root / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    listing = subprocess.run(["git", "ls-files", "-s"], cwd=root, capture_output=True, text=True, check=True).stdout
    tracked = {line.split()[1]: line.split("\t", 1)[1] for line in listing.splitlines()}
    copies = {spec.name: tracked[spec.git_blob_id] for spec in DATASETS.values() if spec.git_blob_id in tracked}
    assert copies == {}
    forbidden = re.compile(
        r"(^|/)shared/|(^|/)(summeval|topical_chat|fed_data|testset-v1|gpt-3\.5-turbo-testset-v1|testdata_pairwise"
        r"|answer_gpt35|answer_vicuna-13b|review_gpt35_vicuna-13b_human)\.(json|jsonl|txt)$|(^|/)fed-(turn|dial)\.csv$"
    )
    assert [path for path in tracked.values() if forbidden.search(path)] == []
    packaged_files = sorted(path for path in tracked.values() if path.startswith("tasks/data/packaged/"))
    assert packaged_files == [
        "tasks/data/packaged/NOTICE",
        "tasks/data/packaged/summeval.json.xz",
        "tasks/data/packaged/topical_chat.json.xz",
    ]
