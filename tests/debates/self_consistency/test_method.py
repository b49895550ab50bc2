"""``self-consistency`` end to end on a scripted server: K samples of the base method's judge per item, each a
fresh call (its own seed and cache variant), every sample's messages in the transcript, the combined score or
verdict, the base method's options, and ``rescore`` re-reading the samples."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, role_of_request
from debate_eval.tasks.cli.main import main

SEED = 453  # the run's default seed: sample k sends SEED + k


def by_seed(answers: dict[int, str]) -> Callable[[Any], str]:
    """A reply that depends on the request's seed (sample k of a run with the default seed sends 453 + k)."""
    return lambda request: answers[int(request["seed"]) - SEED]


def run(server: ScriptedOpenAIServer, out: Path, *args: str) -> int:
    common = ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress"]
    return main(["run", "--method", "self-consistency", *args, *common, "--no-preflight", "--temperature", "0.7"])


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


SINGLE = ["--dataset", "summeval", "--aspect", "coherence", "--limit", "2"]


def test_k_samples_are_k_fresh_calls_and_their_mean(isolated_env: Path) -> None:
    out = isolated_env / "sc"
    reply = by_seed({0: "Score: 2", 1: "Score: 4", 2: "Score: 4"})
    with ScriptedOpenAIServer(reply=reply) as server:
        assert run(server, out, *SINGLE, "--sc-samples", "3") == 0
        seeds = Counter(request["seed"] for request in server.requests)
    assert seeds == {SEED: 2, SEED + 1: 2, SEED + 2: 2}  # every sample reached the model, once per item
    for record in records(out):
        assert record["method"] == "self-consistency" and record["decided_by"] == "samples"
        assert record["llm_calls"] == 3 and record["cached_calls"] == 0
        assert [(e["sample"], e["agent"]) for e in record["transcript"]] == [
            (k, agent) for k in range(3) for agent in ("user", "Evaluator")
        ]
        assert [e["index"] for e in record["transcript"]] == list(range(6))
        details = record["details"]
        assert details["base"] == "geval" and details["combine"] == "mean" and details["samples"] == 3
        assert [s["score"] for s in details["sample_results"]] == [2, 4, 4]
        assert record["score"] == pytest.approx(10 / 3) and record["parse_method"] == "sample_mean"
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))["result_config"]
    assert config["self-consistency"]["base"] == "geval" and config["self-consistency"]["samples"] == 3
    assert config["self-consistency"]["base_config"]["samples"] == 1  # G-Eval's own --geval-samples


def test_identical_requests_still_reach_the_model_and_a_rerun_is_served_from_the_cache(isolated_env: Path) -> None:
    with ScriptedOpenAIServer() as server:  # the same answer whatever the seed
        assert run(server, isolated_env / "a", *SINGLE, "--sc-samples", "4") == 0
        assert len(server.requests) == 8  # no sample was answered from another sample's cache entry
        assert run(server, isolated_env / "b", *SINGLE, "--sc-samples", "4") == 0
        assert len(server.requests) == 8  # the same samples again: each from its own cache entry
    assert all(r["cached_calls"] == 4 for r in records(isolated_env / "b"))


def test_majority_of_scores_and_the_tie_rule(isolated_env: Path) -> None:
    reply = by_seed({0: "Score: 2", 1: "Score: 4", 2: "Score: 4", 3: "Score: 2", 4: "Score: 5"})
    with ScriptedOpenAIServer(reply=reply) as server:
        assert run(server, isolated_env / "three", *SINGLE, "--sc-samples", "3", "--sc-combine", "majority") == 0
        assert run(server, isolated_env / "four", *SINGLE, "--sc-samples", "4", "--sc-combine", "majority") == 0
    assert {r["score"] for r in records(isolated_env / "three")} == {4}
    tied = records(isolated_env / "four")  # 2, 4, 4, 2: a tie between 2 and 4, their mean
    assert {r["score"] for r in tied} == {3} and all("tie" in r["parse_reason"] for r in tied)


class WeightedServer(ScriptedOpenAIServer):
    """Sample k answers ``ANSWERS[k]``, its token's log-probabilities spread as ``WEIGHTS[k]`` (the answer's
    integer first)."""

    ANSWERS: ClassVar[dict[int, str]] = {0: "3", 1: "3", 2: "4"}
    # weighted scores 2.98, 3.02, 3.9
    WEIGHTS: ClassVar[dict[int, dict[str, float]]] = {
        0: {"3": 0.98, "2": 0.02},
        1: {"3": 0.98, "4": 0.02},
        2: {"4": 0.9, "3": 0.1},
    }

    def completion(self, request: dict[str, Any]) -> dict[str, Any]:
        body = super().completion(request)
        (token,) = body["choices"][0]["logprobs"]["content"]
        tops = self.WEIGHTS[int(request["seed"]) - SEED].items()
        token["top_logprobs"] = [{"token": t, "logprob": math.log(p), "bytes": list(t.encode())} for t, p in tops]
        token["logprob"] = token["top_logprobs"][0]["logprob"]
        return body


def test_majority_votes_on_the_parsed_answers_and_mean_averages_the_weighted_scores(isolated_env: Path) -> None:
    reply = by_seed(WeightedServer.ANSWERS)
    with WeightedServer(reply=reply) as server:
        assert run(server, isolated_env / "majority", *SINGLE, "--sc-samples", "3", "--sc-combine", "majority") == 0
        assert run(server, isolated_env / "mean", *SINGLE, "--sc-samples", "3", "--sc-combine", "mean") == 0
    for record in records(isolated_env / "majority"):
        samples = record["details"]["sample_results"]
        assert [s["details"]["method"] for s in samples] == ["logprob_weighted"] * 3
        assert [s["score"] for s in samples] == pytest.approx([2.98, 3.02, 3.9])
        assert [s["parse"]["value"] for s in samples] == [3, 3, 4]  # what each sample answered
        assert record["score"] == 3 and "2 gave 3" in record["parse_reason"]  # the answers vote, not the weights
    assert [r["score"] for r in records(isolated_env / "mean")] == pytest.approx([9.9 / 3] * 2)  # not 10/3
    for out in ("majority", "mean"):
        before = records(isolated_env / out)
        assert main(["rescore", str(isolated_env / out)]) == 0
        assert records(isolated_env / out) == before  # rescore re-reads the same answers and combines them alike


def test_the_base_methods_options_apply_to_every_sample(isolated_env: Path) -> None:
    out = isolated_env / "debate"
    with ScriptedOpenAIServer() as server:
        argv = [*SINGLE, "--limit", "1", "--sc-base", "debate", "--sc-samples", "2", "--max-rounds", "1"]
        assert run(server, out, *argv) == 0
        roles = Counter(role_of_request(request) for request in server.requests)
    (record,) = records(out)
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))["result_config"]
    assert config["self-consistency"]["base_config"]["max_rounds"] == 1
    assert sorted(config["models"]) == ["critic", "scorer"]  # the debate's roles
    assert roles["scorer"] >= 2 and roles["critic"] == 2  # one Critic round per sample
    assert {e["sample"] for e in record["transcript"]} == {0, 1}
    assert [s["decided_by"] for s in record["details"]["sample_results"]] == ["Scorer", "Scorer"]


def test_rescore_rereads_every_sample(isolated_env: Path) -> None:
    out = isolated_env / "sc"
    with ScriptedOpenAIServer(reply=by_seed({0: "Score: 2", 1: "Score: 4", 2: "Score: 4"})) as server:
        # parsed answers (a probability-weighted score keeps its value on rescore: the log-probabilities
        # are not stored)
        assert run(server, out, *SINGLE, "--sc-samples", "3", "--geval-no-logprobs") == 0
    results = out / "results.jsonl"
    edited = []
    for record in records(out):
        answers = [e for e in record["transcript"] if e["agent"] == "Evaluator"]
        answers[0]["content"] = "Score: 5"  # sample 0 now says 5
        edited.append(json.dumps(record))
    results.write_text("\n".join(edited) + "\n", encoding="utf-8")
    assert main(["rescore", str(out)]) == 0
    for record in records(out):
        assert [s["score"] for s in record["details"]["sample_results"]] == [5, 4, 4]
        assert record["score"] == pytest.approx(13 / 3) and record["parse_status"] == "parsed"
        assert record["transcript"][1]["score"]["value"] == 5


def test_refused_bases_are_one_line(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        assert run(server, isolated_env / "x", *SINGLE, "--sc-base", "self-consistency") == 2
        assert "--sc-base: self-consistency samples another method's judge" in capsys.readouterr().err
        assert run(server, isolated_env / "y", *SINGLE, "--sc-base", "nope") == 2
        assert "unknown method 'nope'" in capsys.readouterr().err
        assert server.requests == []


PAIRWISE = ["--dataset", "pandalm", "--aspect", "preference", "--limit", "2"]


def test_pairwise_majority_of_verdicts(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("pandalm")
    out = isolated_env / "pairwise"
    with ScriptedOpenAIServer(reply=by_seed({0: "[[A]]", 1: "[[B]]", 2: "[[A]]"})) as server:
        assert run(server, out, *PAIRWISE, "--sc-samples", "3") == 0
        assert len(server.requests) == 6
    for record in records(out):
        assert record["verdict"] == "first" and record["parse_method"] == "sample_majority"
        assert [s["verdict"] for s in record["details"]["sample_results"]] == ["first", "second", "first"]
    assert main(["rescore", str(out)]) == 0
    assert all(r["verdict"] == "first" for r in records(out))


def test_pairwise_split_is_a_tie_and_swap_combines_the_orders(
    isolated_env: Path, dataset_path: Callable[[str], Path]
) -> None:
    dataset_path("pandalm")
    with ScriptedOpenAIServer(reply=by_seed({0: "[[A]]", 1: "[[B]]"})) as server:
        assert run(server, isolated_env / "split", *PAIRWISE, "--sc-samples", "2") == 0
        assert run(server, isolated_env / "mean", *PAIRWISE, "--sc-samples", "2", "--sc-combine", "mean") == 0
    assert {r["verdict"] for r in records(isolated_env / "split")} == {"tie"}
    assert {r["verdict"] for r in records(isolated_env / "mean")} == {"tie"}  # +1 and -1: preference 0
    out = isolated_env / "swap"
    with ScriptedOpenAIServer(reply=lambda request: "[[A]]") as server:
        assert run(server, out, *PAIRWISE, "--sc-samples", "3", "--swap", "--no-cache") == 0
        assert len(server.requests) == 12  # 2 items x 2 orders x 3 samples
    for record in records(out):  # always A: first in one order, second in the other
        assert record["verdicts"] == {"original": "first", "swapped": "second"} and record["verdict"] == "tie"
        assert {(e["order"], e["sample"]) for e in record["transcript"]} == {
            (order, k) for order in ("original", "swapped") for k in range(3)
        }
    assert main(["rescore", str(out)]) == 0
    assert all(r["verdicts"] == {"original": "first", "swapped": "second"} for r in records(out))
