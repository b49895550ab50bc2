"""The per-dataset scripts are thin wrappers over ``debate-eval run``."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.debates.base import all_methods

# the scripted server knows only the Scorer: G-Eval's Evaluator answers once its method registered its replies,
# which another test may or may not have done before this one
all_methods()
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("script", "aspect"), [("run_summeval.py", "coherence"), ("run_topical_chat.py", "engagingness")]
)
def test_dataset_scripts_run_one_aspect(isolated_env: Path, script: str, aspect: str) -> None:
    out = isolated_env / "out"
    with ScriptedOpenAIServer() as server:
        args = ["--aspect", aspect, "--limit", "1", "--base-url", server.base_url, "--model", "m"]
        completed = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / script), *args, "--out", str(out), "--no-preflight"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert completed.returncode == 0, completed.stderr
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["aspect"] == aspect and record["score"] == 3


def test_report_demo_script_is_an_entry_point_over_the_cli_layer() -> None:
    """``scripts/demos/report_demo.py`` runs the demo of ``tests/support/demo_runs.py`` (its runs: test_report.py)."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts/demos/report_demo.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert "usage: report_demo.py" in completed.stdout and "--screenshot" in completed.stdout


def test_bootstrap_coverage_benchmark_writes_its_table(tmp_path: Path) -> None:
    """``scripts/bench_bootstrap_coverage.py`` (the minimum-units rule's evidence) runs end to end, small."""
    out = tmp_path / "coverage.md"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_bootstrap_coverage.py"), "--out", str(out),
         "--replications", "40", "--resamples", "50"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    text = out.read_text(encoding="utf-8")
    assert "| mean per-document rho | 10 |" in text and "| accuracy (p = 0.75) | 2 |" in text
    assert "--replications 40 --resamples 50" in text


def test_equal_judges_benchmark_writes_its_table(tmp_path: Path) -> None:
    """``scripts/bench_equal_judges.py`` (the evidence for --compare's reported p and Holm) runs end to end, small."""
    out = tmp_path / "equal.md"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_equal_judges.py"), "--out", str(out), "--docs", "12",
         "--replications", "2", "--resamples", "50"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    text = out.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| 12 | 2 |"))
    assert len(row.split("|")) == 10 and "--docs 12 --replications 2 --resamples 50" in text


def test_audit_demo_script_is_an_entry_point_over_the_cli_layer() -> None:
    """``scripts/demos/audit_demo.py`` runs the two audits (the README's card)."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts/demos/audit_demo.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert "scripted" in completed.stdout


def _geval_run(out: Path, data: Path, base_url: str) -> list[dict]:
    """A G-Eval run of ``data`` on ``base_url`` through the command line; its records."""
    completed = subprocess.run(
        [sys.executable, "-m", "debate_eval.tasks.cli.main", "run", "--dataset", str(data), "--criteria",
         "Is the summary coherent?", "--scale", "1-5", "--aspect", "coherence", "--method", "geval",
         "--base-url", base_url, "--model", "scripted", "--no-cache", "--no-preflight", "--progress", "none",
         "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return sorted(records, key=lambda record: int(record["item_id"].removeprefix("item-")))  # in finishing order


def test_bench_endpoint_answers_a_geval_run_as_the_scripted_server_does(isolated_env: Path) -> None:
    """``scripts/bench_endpoint.py`` (the light endpoint of ``bench_scale.py``'s workers rows): a 20-item G-Eval
    run on it parses every score (weighted by the log-probabilities it sends), the scores are read from the
    items (not one constant), it counted the 20 requests, and each record has the usage and parse of the same
    run on the scripted server."""
    data = isolated_env / "data.jsonl"
    rows = [
        {"id": f"item-{i}", "source": f"Source {i}. The committee met.", "output": f"Summary {i}: " + "things " * i}
        for i in range(20)
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    endpoint = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "bench_endpoint.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert endpoint.stdout is not None
        base_url = endpoint.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        light = _geval_run(isolated_env / "light", data, base_url)
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/scripted/stats", timeout=30) as response:
            assert json.loads(response.read()) == {"requests": 20}
        window = base_url.removesuffix("/v1") + "/bench/window"
        with urllib.request.urlopen(window, timeout=30) as response:
            seen = json.loads(response.read())  # the run's calls: the first came no later than the last
        assert isinstance(seen["first"], float) and seen["first"] <= seen["last"]
        with urllib.request.urlopen(window, timeout=30) as response:
            assert json.loads(response.read()) == {"first": None, "last": None}  # read: a new, empty window
    finally:
        assert endpoint.stdin is not None
        endpoint.stdin.close()  # it stops by itself when its standard input closes
        assert endpoint.wait(timeout=30) == 0
    with ScriptedOpenAIServer() as server:
        scripted = _geval_run(isolated_env / "scripted", data, server.base_url)
    assert [r["item_id"] for r in light] == [r["item_id"] for r in scripted] == [row["id"] for row in rows]
    assert all(r["parse_status"] == "parsed" and r["details"]["method"] == "logprob_weighted" for r in light)
    assert {round(r["score"]) for r in light} > {3}  # hashed from each item: several values, all on the scale
    assert all(1 <= r["score"] <= 5 and abs(r["score"] - round(r["score"])) < 1e-9 for r in light)
    assert [r["usage"] for r in light] == [r["usage"] for r in scripted]
    assert [r["details"]["probabilities"] for r in light] == [{r["details"]["token"]: 1.0} for r in light]
