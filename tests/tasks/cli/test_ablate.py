"""``debate-eval ablate`` on a tiny scripted run: one CSV row per cell, and a PNG."""

from __future__ import annotations

import csv
import importlib.util
import json
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.analysis.ablation_plot import plot_ablation
from debate_eval.tasks.cli.ablate_grid import expand_grid, parse_grid, plot_rounds
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import load_items, resolve_data_dir, select_items
from debate_eval.tasks.engine.request import RunRequest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTED = ["--model", "scripted", "--no-progress", "--no-preflight"]


def varying_reply(request: dict) -> str:
    """Scores that vary with the item, so that correlations exist."""
    task = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return f"Score: {1 + len(task) % 5}"


def ablate(out: Path, server: ScriptedOpenAIServer, *args: str) -> int:
    return main(
        ["ablate", "--dataset", "summeval", "--aspect", "coherence", "--out", str(out), "--base-url", server.base_url]
        + SCRIPTED
        + list(args)
    )


def rows_of(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader((out / "ablation.csv").open()))


def item_ids_of(results: Path) -> set[str]:
    return {json.loads(line)["item_id"] for line in results.read_text().splitlines()}


def first_docs(docs: int) -> set[str]:
    return {item.item_id for item in select_items(load_items("summeval", resolve_data_dir(None)), docs=docs)}


def test_grid_parsing_and_expansion() -> None:
    grid = parse_grid(["max_rounds=1,2", "method=debate,geval", "critic=plain,devils-advocate"])
    assert parse_grid(["rounds=1,2", "protocol=debate,geval", "critic=plain,devils-advocate"]) == grid  # old names
    names = [cell.name for cell in expand_grid(grid, RunRequest())]
    assert names == [
        "debate_critic-plain_n1",
        "debate_critic-plain_n2",
        "debate_critic-devils-advocate_n1",
        "debate_critic-devils-advocate_n2",
        "geval",  # the single agent has no rounds or Critic: one cell
    ]


@pytest.mark.parametrize("spec", ["rounds", "rounds=", "colour=red", "rounds=a,b"])
def test_bad_grids(spec: str) -> None:
    with pytest.raises(UserError):
        expand_grid(parse_grid([spec]), RunRequest())


def test_ablation_writes_a_row_per_cell_and_a_figure(isolated_env: Path) -> None:
    out = isolated_env / "ablation"
    with ScriptedOpenAIServer(reply=varying_reply) as server:
        code = ablate(out, server, "--docs", "1", "--grid", "rounds=1,2", "--grid", "protocol=debate,geval")
    assert code == 0
    rows = rows_of(out)
    assert [r["cell"] for r in rows] == ["debate_critic-default_n1", "debate_critic-default_n2", "geval"]
    assert all(r["n_items"] == "16" and r["n_missing"] == "0" and r["n_groups"] == "1" for r in rows)
    assert all(-1 <= float(r["spearman"]) <= 1 for r in rows)
    assert all(r["same_as"] == "" and r["error"] == "" for r in rows)
    assert rows[0]["critic"] == "devils-advocate" and rows[2]["critic"] == ""
    # the cells share the response cache: n = 2 repeats n = 1's three calls, then makes two more
    assert [(int(r["llm_calls"]), int(r["cached_calls"])) for r in rows] == [(48, 0), (32, 48), (16, 0)]
    png = (out / "ablation.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    # every cell evaluated the same items: the first document's 16 summaries
    evaluated = [item_ids_of(out / "cells" / r["cell"] / "results.jsonl") for r in rows]
    assert all(ids == first_docs(1) for ids in evaluated) and len(evaluated[0]) == 16


def test_stale_items_of_an_earlier_selection_are_not_counted(isolated_env: Path) -> None:
    """``--docs 2`` then ``--docs 1`` into the same --out: the second table describes the 16 items of doc 1 only."""
    out = isolated_env / "ablation"
    grid = ["--grid", "protocol=debate,geval", "--max-rounds", "1"]
    with ScriptedOpenAIServer(reply=varying_reply) as server:
        assert ablate(out, server, "--docs", "2", *grid) == 0
        assert [r["n_items"] for r in rows_of(out)] == ["32", "32"]
        assert ablate(out, server, "--docs", "1", *grid) == 0
    rows = rows_of(out)
    assert [(r["n_items"], r["n_groups"], r["failed_items"]) for r in rows] == [("16", "1", "0"), ("16", "1", "0")]
    # calls and tokens come from the selected items' records only (3 calls per debate, 1 per G-Eval item)
    assert [int(r["llm_calls"]) for r in rows] == [48, 16]
    for row in rows:  # the cell directories still hold both documents, the table only the selected one
        assert item_ids_of(out / "cells" / row["cell"] / "results.jsonl") == first_docs(2)


def test_cells_with_the_same_resolved_configuration_share_one_run(isolated_env: Path) -> None:
    """--critic overrides a protocol's own Critic: multiagent x devils-advocate is debate x devils-advocate."""
    out = isolated_env / "ablation"
    with ScriptedOpenAIServer(reply=varying_reply) as server:
        code = ablate(
            out,
            server,
            *("--limit", "2", "--max-rounds", "1"),
            *("--grid", "protocol=debate,multiagent,tiebreaker,both", "--grid", "critic=devils-advocate,plain"),
        )
    assert code == 0
    rows = {r["cell"]: r for r in rows_of(out)}
    assert {cell: row["same_as"] for cell, row in rows.items()} == {
        "debate_critic-devils-advocate_n1": "",
        "debate_critic-plain_n1": "",
        "multiagent_critic-devils-advocate_n1": "debate_critic-devils-advocate_n1",
        "multiagent_critic-plain_n1": "debate_critic-plain_n1",
        "tiebreaker_critic-devils-advocate_n1": "",
        "tiebreaker_critic-plain_n1": "",
        "both_critic-devils-advocate_n1": "tiebreaker_critic-devils-advocate_n1",
        "both_critic-plain_n1": "tiebreaker_critic-plain_n1",
    }
    assert sorted(p.name for p in (out / "cells").iterdir()) == sorted(c for c, r in rows.items() if not r["same_as"])
    for cell, row in rows.items():  # a shared row repeats its run's results under its own label
        if row["same_as"]:
            shared = rows[row["same_as"]]
            assert row["protocol"] == cell.split("_")[0]
            same = ("spearman", "n_items", "llm_calls", "config_hash", "critic", "tiebreaker")
            assert all(row[key] == shared[key] for key in same)


def test_failed_cells_make_the_command_fail_and_keep_the_other_rows(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "ablation"
    # the geval cell's directory holds another configuration: its run raises before any call
    (out / "cells" / "geval").mkdir(parents=True)
    (out / "cells" / "geval" / "config.json").write_text(json.dumps({"config_hash": "another"}))
    (out / "cells" / "geval" / "results.jsonl").write_text(
        json.dumps({"item_id": "x", "dataset": "summeval", "aspect": "coherence", "config_hash": "another"}) + "\n"
    )
    # every request of the Devil's Advocate Critic fails permanently: the debate cell's items fail
    failing = {"criticize the score as much as possible": 400}
    with ScriptedOpenAIServer(reply=varying_reply, fail_if_contains=failing) as server:
        code = ablate(out, server, "--docs", "1", "--max-rounds", "1", "--grid", "protocol=debate,multiagent,geval")
    assert code == 1
    rows = {r["cell"]: r for r in rows_of(out)}
    assert list(rows) == ["debate_critic-default_n1", "multiagent_critic-default_n1", "geval"]
    assert rows["debate_critic-default_n1"]["error"].startswith("16 of 16 items failed")
    assert rows["debate_critic-default_n1"]["failed_items"] == "16"
    assert rows["geval"]["error"].startswith("UserError") and rows["geval"]["wall_s"] == ""
    assert rows["multiagent_critic-default_n1"]["error"] == ""
    assert rows["multiagent_critic-default_n1"]["n_items"] == "16"
    assert (out / "ablation.png").read_bytes().startswith(b"\x89PNG")
    err = capsys.readouterr().err
    assert "2 of 3 cells failed" in err and "debate_critic-default_n1" in err and "geval" in err


def _row(protocol: str, critic: str, rounds: int, spearman: float, tiebreaker: bool = False) -> dict[str, Any]:
    return {
        "protocol": protocol,
        "critic": critic,
        "rounds": rounds,
        "tiebreaker": tiebreaker,
        "commander": "fixed",
        "spearman": spearman,
    }


def test_persona_and_protocol_panels_use_the_largest_n(tmp_path: Path) -> None:
    """With a rounds grid every n is equally frequent; the panels take the largest and say so."""
    rows = [
        _row(protocol, critic, n, spearman=n / 10 + (0.01 if critic == "plain" else 0.0))
        for protocol in ("debate", "multiagent")
        for critic in ("devils-advocate", "plain")
        for n in (1, 2, 3)
    ] + [_row("geval", "", "", 0.05)]  # type: ignore[arg-type]
    drawn = plot_ablation(rows, "summeval", "coherence", tmp_path / "a.png")
    assert drawn["rounds"] == 3
    assert drawn["personas"] == {"devils-advocate": 0.3, "plain": 0.31}
    assert drawn["protocols"] == {"debate": 0.3, "multiagent": 0.31, "geval": 0.05}
    assert "n = 3" in drawn["titles"][1] and "n = 3" in drawn["titles"][2]
    drawn = plot_ablation(rows, "summeval", "coherence", tmp_path / "b.png", rounds=1)
    assert drawn["personas"] == {"devils-advocate": 0.1, "plain": 0.11} and "n = 1" in drawn["titles"][1]


def test_the_panels_n_comes_from_the_grid_or_max_rounds() -> None:
    base = RunRequest(method_options={"max_rounds": 4})
    assert plot_rounds(parse_grid(["max_rounds=1,3,2"]), base) == 3
    assert plot_rounds(parse_grid(["method=debate,geval"]), base) == 4
    assert plot_rounds(parse_grid(["method=debate,geval"]), RunRequest()) == 2  # the option's declared default


def load_bench() -> ModuleType:
    path = ROOT / "scripts" / "bench_ablation_embedded.py"
    spec = importlib.util.spec_from_file_location("bench_ablation_embedded", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_report_fresh_settings_command_methods_and_latency(isolated_env: Path) -> None:
    """The embedded benchmark's report, on a scripted server instead of the embedded model."""
    bench = load_bench()
    work, report = isolated_env / "work", isolated_env / "report.md"
    (work / "cells" / "old").mkdir(parents=True)
    (work / "cells" / "old" / "results.jsonl").write_text("{}\n")  # an earlier run's leftovers
    argv = ["--docs", "1", "--protocols", "debate,geval", "--work", str(work), "--out", str(report)]
    with ScriptedOpenAIServer(reply=varying_reply, top_logprobs={"2": -0.7, "3": -0.7}) as server:
        extra = ["--base-url", server.base_url, *SCRIPTED]
        assert bench.main([*argv, "--fresh"], extra=extra) == 0
        assert not (work / "cells" / "old").exists()  # --fresh deleted WORK first
        text = report.read_text()
        assert "Measurement: fresh (`--fresh`" in text
        ablate_line = shlex.join(["debate-eval", *bench.ablate_argv(bench.parse_args(argv), work), *extra])
        assert ablate_line in text and "debate-eval ablate --dataset summeval" in text
        # settings from each cell's config.json: model, no embedded slots, max tokens, temperature, seed, rounds
        assert "| debate_critic-default_n2 | scripted | - | 256 | 0.0 | 453 | n = 2, Critic `devils-advocate` |" in text
        assert "| geval | scripted | - | 256 | 0.0 | 453 | log-probabilities on, 1 sample(s) |" in text
        # G-Eval's scoring methods, and the per-call latency column
        assert "- `geval`: `logprob_weighted` 16 (of 16 items)" in text
        header = next(line for line in text.splitlines() if line.startswith("| protocol |"))
        column = [cell.strip() for cell in header.split("|")].index("s per call")
        table = [line for line in text.splitlines() if line.count("|") == header.count("|") and line != header]
        assert [line.split("|")[1].strip() for line in table[1:]] == ["debate", "geval"]
        assert all(float(line.split("|")[column]) >= 0 for line in table[1:])
        # a rerun without --fresh resumes, and the report says so
        assert bench.main(argv, extra=extra) == 0
        assert "Measurement: **resumed**" in report.read_text()
