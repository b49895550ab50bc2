"""Runs over several systems' outputs, end to end on the scripted provider's length judge (``--provider scripted
--model planted-length``: the score is the judged text's length bucket, so the system with the longest outputs
is the known winner): ``--fields ...,system=COLUMN`` on a CSV (a DataFrame: tests/tasks/api/test_systems.py),
the per-system block of the run summary, ``summary.json`` and ``meta-eval --json`` (with the system-level
correlation), and a pairwise file naming both systems (``system_a``/``system_b``) with their win rates."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli.main import main

LENGTHS = {"terse": 6, "middling": 16, "verbose": 45}  # words: length buckets 1, 2 and 4 of planted-length
N_SOURCES = 12


def outputs_rows(seed: int = 5) -> list[dict[str, Any]]:
    """Each source summarised by the three systems; the human rating follows the length, with noise."""
    rng = random.Random(seed)
    rows = []
    for i in range(N_SOURCES):
        source = f"Article {i}: " + " ".join(f"fact{i}_{j}" for j in range(30))
        for system, words in LENGTHS.items():
            output = " ".join(f"w{j}" for j in range(words + rng.randint(0, 3)))
            rating = {"terse": 1, "middling": 3, "verbose": 4}[system] + rng.choice([0, 0, 1])
            rows.append({"id": f"{i}-{system}", "article": source, "summary": output, "sys": system, "rating": rating})
    return rows


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


COMMON = ["--provider", "scripted", "--model", "planted-length", "--protocol", "geval", "--no-progress"]


def test_an_own_csv_of_three_systems_reports_each_and_every_pair(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_csv(isolated_env / "outputs.csv", outputs_rows())
    out = isolated_env / "run"
    fields = "source=article,output=summary,human=rating,system=sys,id=id"
    args = ["run", "--dataset", str(data), "--fields", fields, "--aspect", "quality", "--scale", "1-5"]
    assert main([*args, "--criteria", "Is the summary complete?", "--out", str(out), *COMMON]) == 0
    printed = capsys.readouterr().out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["system_id"] for r in records} == set(LENGTHS)
    assert len({r["group_id"] for r in records}) == N_SOURCES  # no group column: the outputs of one source
    summary = json.loads((out / "summary.json").read_text())["systems"]["quality"]
    means = {name: entry["mean"] for name, entry in summary["systems"].items()}
    assert means == pytest.approx({"terse": 1.0, "middling": 2.0, "verbose": 4.0})
    pairs = {(p["first"], p["second"]): p for p in summary["pairs"]}
    assert set(pairs) == {("middling", "terse"), ("middling", "verbose"), ("terse", "verbose")}
    worst = pairs[("terse", "verbose")]
    assert worst["difference"] == pytest.approx(-3.0) and worst["n_inputs"] == N_SOURCES
    assert (worst["wins"], worst["ties"], worst["losses"]) == (0, 0, N_SOURCES) and worst["p_value"] < 0.01
    assert "quality: per system, mean judge score, 95% CI" in printed
    # every source 3 points apart: the paired t-test's p is 0 (it was the bootstrap's floor 2/1001, which Holm
    # over many pairs could never bring below 0.05)
    assert "  terse - verbose: -3.000 [-3.000, -3.000], p=0, Holm p=0, BH p=0, 0/0/12 over 12 inputs" in printed

    assert main(["meta-eval", str(out), "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)[str(data)]["quality"]
    assert entry["systems"]["pairs"] == summary["pairs"]  # the same comparison, the same resamples
    assert entry["systems"]["ranks"] == summary["ranks"]  # each system's rank and the ranks it can hold
    assert {name: rank["rank_set"] for name, rank in entry["systems"]["ranks"].items()} == {
        "verbose": [1, 1],
        "middling": [2, 2],
        "terse": [3, 3],
    }  # every source orders them the same way: every pair differs after Holm
    assert entry["systems"]["family"] == f"the 3 tested pairs of 3 systems ({data}/quality)"
    level = entry["system_level"]
    assert level["n_systems"] == 3 and level["n_groups"] == N_SOURCES and level["kendall"] == pytest.approx(1.0)
    # three systems: no interval over the systems (Fisher z for Kendall needs five); the documents' one is there
    assert level["ci95"] == "too few systems (n=3)" and level["ci95_documents"]["kendall"] is not None
    assert main(["meta-eval", str(out)]) == 0
    table = capsys.readouterr().out
    assert f"{data}/quality: system level (3 systems' mean scores over 12 groups): tau 1.000" in table


def test_a_pairwise_file_naming_both_systems_reports_their_win_rates(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(2)
    rows = []
    for i in range(12):
        a, b = ("verbose", "terse") if i % 2 else ("terse", "verbose")  # each system shown first half the time
        text = {name: " ".join(f"w{j}" for j in range(LENGTHS[name] + rng.randint(0, 3))) for name in (a, b)}
        rows.append({"q": f"Question {i}?", "x": text[a], "y": text[b], "sa": a, "sb": b, "label": "tie"})
    data = isolated_env / "pairs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = isolated_env / "pairwise"
    fields = "question=q,output_a=x,output_b=y,label=label,system_a=sa,system_b=sb"
    args = ["run", "--dataset", str(data), "--fields", fields, "--aspect", "preference", "--out", str(out)]
    assert main([*args, *COMMON]) == 0
    printed = capsys.readouterr().out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert all(r["system_a"] in LENGTHS and r["system_b"] in LENGTHS for r in records)
    rates = json.loads((out / "summary.json").read_text())["systems"]["preference"]["systems"]
    assert rates["verbose"]["win_rate"] == 1.0 and rates["terse"]["win_rate"] == 0.0  # the longer one, always
    assert rates["verbose"]["against"]["terse"]["wins"] == 12
    assert "  verbose: 1.000 [1.000, 1.000], 12/0/0 in 12 comparisons" in printed
    assert main(["meta-eval", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[str(data)]["preference"]["systems"]["systems"] == rates


def test_a_pairwise_file_mapping_one_system_column_is_refused_in_one_line(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = isolated_env / "pairs.jsonl"
    data.write_text(json.dumps({"q": "Q?", "x": "a", "y": "b", "sa": "s1", "label": "tie"}) + "\n", encoding="utf-8")
    args = ["run", "--dataset", str(data), "--fields", "question=q,output_a=x,output_b=y,label=label,system_a=sa"]
    assert main([*args, "--aspect", "preference", *COMMON]) == 2
    err = capsys.readouterr().err
    assert f'{data}: row 1 (counted from 1): column "sa": map system_b=COLUMN as well' in err
    assert "Traceback" not in err


def test_an_imported_summeval_run_gets_the_system_level_correlation(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The DEBATE authors' released format, three SummEval documents x five systems: the systems come from the
    item ids (``DOC/SYSTEM``) and the system-level figures equal pandas/scipy on the imported records."""
    pandas = pytest.importorskip("pandas")
    from scipy import stats

    from debate_eval.tasks.data.datasets import load_items

    items = load_items("summeval", None)
    docs = list(dict.fromkeys(item.group_id for item in items))[:3]
    systems = ["M0", "M1", "M5", "M8", "M23"]
    prompt = "Evaluation Criteria:\n\nCoherence (1-5) - the collective quality of all sentences."
    rows = [
        {"doc_id": doc, "system_id": system, "prompt": prompt, "coherence": f"- Coherence: {1 + (i + d) % 5}"}
        for d, doc in enumerate(docs)
        for i, system in enumerate(systems)
    ]
    released = isolated_env / "released.json"
    released.write_text(json.dumps(rows), encoding="utf-8")
    out = isolated_env / "imported"
    assert main(["import", "debate-authors", str(released), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--json"]) == 0
    level = json.loads(capsys.readouterr().out)["summeval"]["coherence"]["system_level"]
    records = pandas.DataFrame([json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()])
    records["system"] = records["item_id"].str.split("/").str[1]
    means = records.groupby("system")[["score", "human_score"]].mean()
    assert (level["n_systems"], level["n_groups"]) == (5, 3) and set(level["systems"]) == set(systems)
    assert level["kendall"] == pytest.approx(stats.kendalltau(means["score"], means["human_score"]).statistic)
    assert level["pearson"] == pytest.approx(stats.pearsonr(means["score"], means["human_score"]).statistic)
    assert level["ci95"] == "too few groups (n=3)"


# what a --workers run's summary.json holds otherwise than the in-process run of the same items: the worker
# count, this invocation's wall time and its rate limiters (one per worker process)
BACKEND_FIELDS = {"workers"}
INVOCATION_FIELDS = {"elapsed_s", "rate_limits"}


def comparable(summary: dict[str, Any]) -> dict[str, Any]:
    """``summary.json`` without the fields a backend legitimately changes (``BACKEND_FIELDS``,
    ``INVOCATION_FIELDS``)."""
    kept = {key: value for key, value in summary.items() if key not in BACKEND_FIELDS}
    kept["this_invocation"] = {k: v for k, v in summary["this_invocation"].items() if k not in INVOCATION_FIELDS}
    return kept


SYSTEMS_RUN = ["--fields", "source=article,output=summary,human=rating,system=sys,id=id", "--aspect", "quality"]
# no endpoint check, which each worker makes; the second run would find the first one's answers in the cache
SYSTEMS_RUN += ["--scale", "1-5", "--criteria", "Is the summary complete?", *COMMON, "--no-preflight", "--no-cache"]


def test_a_workers_run_writes_the_systems_block_of_the_in_process_run(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_csv(isolated_env / "outputs.csv", outputs_rows())
    summaries = {}
    for name, backend in (("in_process", []), ("workers", ["--workers", "2"])):
        out = isolated_env / name
        assert main(["run", "--dataset", str(data), *SYSTEMS_RUN, "--out", str(out), *backend]) == 0
        summaries[name] = json.loads((out / "summary.json").read_text())
    printed = capsys.readouterr().out
    assert summaries["workers"]["workers"] == 2
    assert summaries["workers"]["this_invocation"]["transport"]["requests"] == 3 * N_SOURCES  # a call an output
    assert set(summaries["workers"]["systems"]["quality"]["systems"]) == set(LENGTHS)
    assert comparable(summaries["workers"]) == comparable(summaries["in_process"])
    assert printed.count("quality: per system, mean judge score, 95% CI") == 2  # both runs print it


def test_merged_shards_write_the_systems_block_of_the_in_process_run(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_csv(isolated_env / "outputs.csv", outputs_rows())
    run = ["run", "--dataset", str(data), *SYSTEMS_RUN]
    assert main([*run, "--out", str(isolated_env / "in_process")]) == 0
    shards = [str(isolated_env / f"shard{k}") for k in range(2)]
    for k, shard in enumerate(shards):
        assert main([*run, "--shard", f"{k}/2", "--out", shard]) == 0
    assert main(["merge", str(isolated_env / "merged"), *shards]) == 0
    capsys.readouterr()
    single = json.loads((isolated_env / "in_process" / "summary.json").read_text())
    merged = json.loads((isolated_env / "merged" / "summary.json").read_text())
    assert merged["merged_from"] == shards
    # a merge runs nothing: its summary has the run's totals and systems, no invocation of its own
    single.pop("this_invocation")
    merged.pop("merged_from")
    assert set(merged["systems"]["quality"]["systems"]) == set(LENGTHS)
    assert merged == single
