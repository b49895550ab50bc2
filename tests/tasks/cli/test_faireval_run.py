"""``run --dataset faireval --method chateval --fidelity authors-code --limit 4`` on a
scripted endpoint runs ChatEval's released FairEval flow (two scores per referee per order, both orders) and
``meta-eval`` reports accuracy and kappa as their Table 1 does (Acc. in %, Kap. with two decimals)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, role_of_request
from debate_eval.tasks.cli.main import main

SCORE_LINES = ("The score of Assistant 1:", "The score of Assistant 2:")


def their_kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa as their calc script's get_kappa computes it (3x3 confusion of prediction and target)."""
    classes = ["first", "second", "tie"]
    confusion = [[sum(1 for p, t in pairs if (p, t) == (row, col)) for col in classes] for row in classes]
    n = len(pairs)
    po = sum(confusion[i][i] for i in range(3)) / n
    pe = sum(sum(confusion[i]) * sum(confusion[r][i] for r in range(3)) for i in range(3)) / (n * n)
    return (po - pe) / (1 - pe)


def run(out: Path, *extra: str, server: ScriptedOpenAIServer) -> int:
    argv = ["run", "--dataset", "faireval", "--aspect", "preference", "--method", "chateval"]
    argv += ["--fidelity", "authors-code", "--limit", "4", "--no-preflight", "--no-cache"]
    return main([*argv, "--base-url", server.base_url, "--model", "gpt-4", "--out", str(out), *extra])


def test_their_flow_runs_both_orders_and_meta_eval_reports_table_1(
    isolated_env: Path, dataset_path: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset_path("faireval")  # FairEval does not ship with the package: skip with the reason when it is absent
    out = isolated_env / "faireval"
    with ScriptedOpenAIServer() as server:
        assert run(out, server=server) == 0
    requests: list[dict[str, Any]] = server.requests
    assert len(requests) == 4 * 2 * 2 * 2  # items x orders x referees x turns
    assert {role_of_request(r) for r in requests} == {"referee"}
    assert all(not any(m["role"] == "system" for m in r["messages"]) for r in requests)
    assert all(set(r) == {"model", "messages", "max_tokens", "temperature", "top_p", "n", "stop",
                          "presence_penalty", "frequency_penalty"} for r in requests)  # fmt: skip
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 4
    for record in records:
        orders = record["details"]["orders"]
        assert set(orders) == {"original", "swapped"}
        assert (orders["swapped"]["assistant_1"], orders["swapped"]["assistant_2"]) == ("output_b", "output_a")
        for order in orders.values():
            assert len(order["evaluation"]) == 2  # one entry per referee: their get_evaluation
            for entry in order["evaluation"]:
                lines = entry["evaluation"].splitlines()
                assert lines[-2].startswith(SCORE_LINES[0]) and lines[-1].startswith(SCORE_LINES[1])
        first_answer_shown = {
            e["order"]: e["content"] for e in record["transcript"] if e["agent"] == "user"
        }  # the item as shown in each order
        assert first_answer_shown["original"].index(record["inputs"]["output_a"]) < first_answer_shown[
            "original"
        ].index(record["inputs"]["output_b"])
        assert first_answer_shown["swapped"].index(record["inputs"]["output_b"]) < first_answer_shown["swapped"].index(
            record["inputs"]["output_a"]
        )
        assert record["verdict"] in ("first", "second", "tie") and record["details"]["their_sums"] is not None
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--bootstrap", "0"]) == 0
    shown = capsys.readouterr().out
    pairs = [(r["verdict"], r["human_label"]) for r in records]
    accuracy = 100 * sum(v == h for v, h in pairs) / len(pairs)
    kappa = their_kappa(pairs)
    assert f"Table 1: Acc. (%) {accuracy:.1f}, Kap. {kappa:.2f} (this run, 4 items)" in shown


def test_swap_is_refused_since_their_flow_judges_both_orders(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAIServer() as server:
        code = run(isolated_env / "x", "--swap", server=server)
        assert server.count == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "drop --swap" in err[0]
