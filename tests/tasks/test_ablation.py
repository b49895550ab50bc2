"""``debate-eval ablate`` on a tiny scripted run: one CSV row per cell, and a PNG."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.ablation import expand_grid, parse_grid
from debate_eval.tasks.cli import main


def test_grid_parsing_and_expansion() -> None:
    grid = parse_grid(["rounds=1,2", "protocol=debate,geval", "critic=plain,devils-advocate"])
    defaults = argparse.Namespace(protocol="debate", critic=None, max_rounds=2, commander_llm=False)
    names = [cell.name for cell in expand_grid(grid, defaults)]
    assert names == [
        "debate_critic-plain_n1",
        "debate_critic-plain_n2",
        "debate_critic-devils-advocate_n1",
        "debate_critic-devils-advocate_n2",
        "geval",  # the single agent has no rounds or Critic: one cell
    ]


@pytest.mark.parametrize("spec", ["rounds", "rounds=", "colour=red", "rounds=a,b"])
def test_bad_grids(spec: str) -> None:
    defaults = argparse.Namespace(protocol="debate", critic=None, max_rounds=2, commander_llm=False)
    with pytest.raises(UserError):
        expand_grid(parse_grid([spec]), defaults)


def test_ablation_writes_a_row_per_cell_and_a_figure(isolated_env: Path) -> None:
    out = isolated_env / "ablation"

    def reply(request: dict) -> str:  # scores that vary with the item, so that correlations exist
        task = next(m["content"] for m in request["messages"] if m["role"] == "user")
        return f"Score: {1 + len(task) % 5}"

    with ScriptedOpenAIServer(reply=reply) as server:
        code = main(
            ["ablate", "--dataset", "summeval", "--aspect", "coherence", "--docs", "1", "--out", str(out)]
            + ["--base-url", server.base_url, "--model", "scripted", "--no-progress", "--no-preflight"]
            + ["--grid", "rounds=1,2", "--grid", "protocol=debate,geval"]
        )
    assert code == 0
    rows = list(csv.DictReader((out / "ablation.csv").open()))
    assert [r["cell"] for r in rows] == ["debate_critic-default_n1", "debate_critic-default_n2", "geval"]
    assert all(r["n_items"] == "16" and r["n_missing"] == "0" and r["n_groups"] == "1" for r in rows)
    assert all(-1 <= float(r["spearman"]) <= 1 for r in rows)
    assert rows[0]["critic"] == "devils-advocate" and rows[2]["critic"] == ""
    # the cells share the response cache: n = 2 repeats n = 1's three calls, then makes two more
    assert [(int(r["llm_calls"]), int(r["cached_calls"])) for r in rows] == [(48, 0), (32, 48), (16, 0)]
    png = (out / "ablation.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert (out / "cells" / "geval" / "results.jsonl").exists()
