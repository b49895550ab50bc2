"""Choosing a judge by running the candidates (``debate_eval.select(candidates=...)``, ``debate-eval select
--candidate``): planted scripted judges of known accuracy are run on the labelled items only; the planted best
is chosen (its held-out p-value is scipy's exact binomial test on the discordant items counted here from the
data file), equals are refused, a rerun makes no model call, and bad candidates are one-line errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest
from support.planted_pairs import FIELDS, planted_pairs

import debate_eval
from debate_eval._select_run import candidate_configs, parse_candidate
from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers.planted import SCRIPTS
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main

N = 60


def planted_reply(request: Any) -> str:
    """The planted judge the request's model names."""
    return SCRIPTS[request["model"]](request)


def verdicts(run: Path) -> dict[str, str]:
    lines = [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {line["item_id"]: line["verdict"] for line in lines}


def human(data: Path) -> dict[str, str]:
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row["label"] for row in rows}


def held_out_p(held_out: Sequence[str], runs: list[Path], data: Path, best: int) -> float:
    """The exact McNemar p of the best candidate against the simplest on the held-out items, counted here."""
    labels, simple, other = human(data), verdicts(runs[0]), verdicts(runs[best])
    simple_only = sum(simple[k] == labels[k] != other[k] for k in held_out)
    other_only = sum(other[k] == labels[k] != simple[k] for k in held_out)
    return float(binomtest(simple_only, simple_only + other_only).pvalue)


def test_the_planted_best_is_run_and_chosen_and_a_rerun_makes_no_call(api_env: Path) -> None:
    data = planted_pairs(api_env / "pairs.jsonl", N, first=0.5, length=0.6, copy=0.95, seed=0)
    candidates = [{"model": "planted-first"}, "model=planted-length", "name=copy,model=planted-copy,method=debate"]
    shared = {"dataset": str(data), "aspect": "preference", "fields": FIELDS, "method": "geval", "no_progress": True}
    with ScriptedOpenAIServer(reply=planted_reply) as server:
        selection = debate_eval.select(
            candidates=candidates, out=api_env / "select", base_url=server.base_url, **shared
        )
        calls = server.count
        again = debate_eval.select(candidates=candidates, out=api_env / "select", base_url=server.base_url, **shared)
        assert server.count == calls  # every item finished: no model is asked again, not even a preflight
    runs = [api_env / "select" / name for name in ("model-planted-first", "model-planted-length", "copy")]
    assert [c.name for c in selection.candidates] == [run.name for run in runs]
    assert all(len(verdicts(run)) == N for run in runs)
    assert selection.simplest == "model-planted-first" and selection.chosen == "copy" and selection.confirmed
    assert selection.p_value == pytest.approx(held_out_p(selection.held_out, runs, data, 2))
    labels = human(data)
    accuracy = {run.name: sum(verdicts(run)[k] == labels[k] for k in selection.held_out) for run in runs}
    held = len(selection.held_out)
    assert {c.name: c.test for c in selection.candidates} == pytest.approx({k: v / held for k, v in accuracy.items()})
    assert again.to_dict() == selection.to_dict()
    # the debate (Scorer, then a Critic that agrees) costs more per item than one G-Eval call
    costs = {c.name: c.tokens_per_item for c in selection.candidates}
    assert costs["copy"] > costs["model-planted-first"] > 0


def test_equals_are_refused_and_only_the_labels_files_items_run(
    api_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = planted_pairs(api_env / "pairs.jsonl", N, first=0.6, length=0.6, copy=0.6, seed=3)
    labelled = sorted(human(data).items())[:40]
    file = api_env / "labels.jsonl"
    file.write_text("".join(json.dumps({"item_id": k, "verdict": v}) + "\n" for k, v in labelled), encoding="utf-8")
    fields = ",".join(f"{k}={v}" for k, v in FIELDS.items())
    with ScriptedOpenAIServer(reply=planted_reply) as server:
        args = ["select", "--dataset", str(data), "--aspect", "preference", "--fields", fields, "--method", "geval"]
        args += ["--base-url", server.base_url, "--no-progress", "--labels", str(file), "--out", "select", "--json"]
        for model in ("planted-first", "planted-length", "planted-copy"):
            args += ["--candidate", f"model={model}"]
        assert main(args) == 0
    selection = json.loads(capsys.readouterr().out)
    runs = [api_env / "select" / c["name"] for c in selection["candidates"]]
    assert all(set(verdicts(run)) == {k for k, _ in labelled} for run in runs)  # the labels file's items only
    assert selection["chosen"] == selection["simplest"] == "model-planted-first"
    assert "the simplest is kept" in selection["reason"]
    # another was best on the development split; its held-out test, counted here, is not significant
    assert selection["best_on_dev"] == "model-planted-length"
    p = held_out_p(selection["held_out"], runs, data, 1)
    assert selection["p_value"] == pytest.approx(p) and p >= 0.05


def test_a_candidate_is_read_as_a_config_files_options(tmp_path: Path) -> None:
    assert parse_candidate("method=debate,max_rounds=2,temperature=0.5,critic=plain") == {
        "method": "debate",
        "max_rounds": 2,
        "temperature": 0.5,
        "critic": "plain",
    }
    assert parse_candidate('fields="source=a,output=b",name="x,y"') == {"fields": "source=a,output=b", "name": "x,y"}
    toml = tmp_path / "strict.toml"
    toml.write_text('method = "debate"\nmax_rounds = 3\n', encoding="utf-8")
    first, second = candidate_configs(["method=geval", toml])
    assert (first.name, first.request.method) == ("method-geval", "geval")
    assert (second.name, second.request.method, second.request.method_options) == (
        "strict",
        "debate",
        {"max_rounds": 3},
    )


@pytest.mark.parametrize(
    ("candidates", "message"),
    [
        (["method"], "expected KEY=VALUE"),
        (["method=geval"], "two candidates or more"),
        (["method=geval", "method=geval"], "two candidates are named method-geval"),
        (["method=geval", "method=debate,out=elsewhere"], "out is select's --out"),
        (["method=geval", "method=debate,max_tokens=many"], "max_tokens: expected a whole number"),
        (["method=geval", "method=debate,aspect=fluency"], "aspect is the same for every candidate"),
    ],
)
def test_bad_candidates_are_one_line_errors(candidates: list[str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        candidate_configs(candidates)


def test_the_command_refuses_runs_with_candidates_and_candidates_without_out(
    api_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["select", "runs/a", "--candidate", "method=geval", "--candidate", "method=debate"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["select", "--candidate", "method=geval", "--candidate", "method=debate"]) == 2
    assert "needs --out DIR" in capsys.readouterr().err


def test_only_the_rated_items_of_single_scores_are_run(api_env: Path) -> None:
    rows = [
        {"doc": f"Article {i}: the council approved the budget.", "summ": " ".join(["word"] * (4 * i + 1))}
        | ({"y": 1 + i % 5} if i % 2 == 0 else {})  # every other row rated
        for i in range(24)
    ]
    data = api_env / "single.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    selection = debate_eval.select(
        candidates=[{"model": "planted-noisy"}, {"model": "planted-length"}],
        dataset=str(data),
        aspect="quality",
        fields={"source": "doc", "output": "summ", "human": "y"},
        criteria="Is the summary good?",
        scale="1-5",
        method="geval",
        provider="scripted",
        no_progress=True,
        out=api_env / "select",
    )
    rated = {f"row-{i + 1}" for i in range(0, 24, 2)}  # own files' ids count rows from 1
    for candidate in selection.candidates:
        assert set(verdicts_or_scores(api_env / "select" / candidate.name)) == rated
    assert selection.statistic == "spearman" and selection.dev_items + selection.test_items == len(rated)


def verdicts_or_scores(run: Path) -> dict[str, Any]:
    lines = [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {line["item_id"]: line.get("verdict", line.get("score")) for line in lines}


def test_failed_items_are_named_after_every_candidate_ran_and_a_rerun_retries_only_them(api_env: Path) -> None:
    data = planted_pairs(api_env / "pairs.jsonl", 12, first=0.5, length=0.5, copy=0.9, seed=1)
    shared = {"dataset": str(data), "aspect": "preference", "fields": FIELDS, "method": "geval", "no_progress": True}
    candidates = ["model=planted-first", "model=planted-copy"]
    failing = {"Question 3:": 400}  # a permanent error for item q3, in every candidate
    named = r"model-planted-first \(1 of 12 items.*model-planted-copy \(1 of 12"
    with (
        ScriptedOpenAIServer(reply=planted_reply, fail_if_contains=failing) as server,
        pytest.raises(UserError, match=named),
    ):
        debate_eval.select(candidates=candidates, out=api_env / "select", base_url=server.base_url, **shared)
    with ScriptedOpenAIServer(reply=planted_reply) as server:
        selection = debate_eval.select(
            candidates=candidates, out=api_env / "select", base_url=server.base_url, **shared
        )
        retried = [r for r in server.requests if "Question 3:" in json.dumps(r)]
        assert len(retried) == server.count - 2 == 2  # one preflight and one call for q3 per candidate
    assert selection.dev_items + selection.test_items == 12
