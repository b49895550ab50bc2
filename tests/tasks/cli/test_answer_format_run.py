"""``run --answer-format`` / ``--structured-output`` end to end against the scripted server: what each request
asks for, what config.json, the config hash and the transcripts record, and the strict JSON parse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, role_of_request
from debate_eval.tasks.cli.main import main


def run_cli(
    server: ScriptedOpenAIServer, out: Path, *extra: str, dataset: str = "summeval", aspect: str = "coherence"
) -> int:
    args = ["run", "--dataset", dataset, "--aspect", aspect, "--limit", "2", "--base-url", server.base_url]
    return main([*args, "--model", "scripted", "--out", str(out), "--no-progress", "--no-preflight", *extra])


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def config(out: Path) -> dict[str, Any]:
    return json.loads((out / "config.json").read_text(encoding="utf-8"))


def test_grammar_requests_carry_each_roles_grammar_and_cap(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "grammar"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--answer-format", "grammar", "--max-tokens", "64") == 0
        requests = list(server.requests)
    by_role: dict[str, list[dict[str, Any]]] = {}
    for request in requests:
        by_role.setdefault(role_of_request(request), []).append(request)
    for request in by_role["scorer"]:
        assert request["max_tokens"] == 64
        assert request["grammar"].startswith('root ::= rationale "\\nScore: " value')
        assert 'value ::= "1" | "2" | "3" | "4" | "5"' in request["grammar"]
    for request in by_role["critic"]:
        assert request["grammar"].startswith('root ::= "NO ISSUE" | feedback')
    answers = config(out)["result_config"]["answers"]
    assert answers["requested"] == "grammar" and answers["modes"] == {"critic": "grammar", "scorer": "grammar"}
    for record in records(out):
        answered = [e for e in record["transcript"] if e["role"] in ("scorer", "critic")]
        assert answered and all(e["answer_format"]["mode"] == "grammar" for e in answered)
        assert {e["answer_format"]["kind"] for e in answered} == {"score", "critique"}
        assert all("answer_format" not in e for e in record["transcript"] if e["role"] == "commander")
    capsys.readouterr()
    assert main(["show", str(out)]) == 0 and main(["show", str(out), "--item", "1"]) == 0
    shown = capsys.readouterr().out
    assert shown.count("answers: grammar for critic, scorer (requested: grammar)") == 2
    assert "grammar score, cap 64" in shown and "grammar critique, cap 64" in shown
    page = isolated_env / "report.html"
    assert main(["report", str(out), "--out", str(page)]) == 0
    assert "<dt>answers</dt><dd>grammar for critic, scorer (requested: grammar)" in page.read_text(encoding="utf-8")


def test_auto_leaves_a_remote_endpoint_free_and_its_hash_unchanged(isolated_env: Path) -> None:
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, isolated_env / "auto") == 0
        assert run_cli(server, isolated_env / "free", "--answer-format", "free") == 0
        assert all("grammar" not in r and "response_format" not in r for r in server.requests)
    auto, free = config(isolated_env / "auto"), config(isolated_env / "free")
    assert "answers" not in auto["result_config"] and auto["config_hash"] == free["config_hash"]
    assert all("answer_format" not in e for r in records(isolated_env / "auto") for e in r["transcript"])


def test_structured_output_asks_for_a_json_schema_and_parses_it_strictly(isolated_env: Path) -> None:
    out = isolated_env / "json"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--structured-output", "--protocol", "geval", "--geval-no-logprobs") == 0
        requests = list(server.requests)
    for request in requests:
        schema = request["response_format"]["json_schema"]
        assert request["response_format"]["type"] == "json_schema" and schema["strict"] is True
        assert schema["schema"]["required"] == ["score"]  # G-Eval's form: the score only
    for record in records(out):
        assert record["parse_method"] == "structured" and record["score"] == 3
        assert json.loads(record["transcript"][-1]["content"]) == {"score": 3}
    assert config(out)["result_config"]["answers"]["modes"] == {"scorer": "json"}


def test_structured_debate_keeps_the_critic_free_and_reads_the_scorers_json(isolated_env: Path) -> None:
    out = isolated_env / "json-debate"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--structured-output", "--max-rounds", "1") == 0
        critic = [r for r in server.requests if role_of_request(r) == "critic"]
    assert critic and all("response_format" not in r for r in critic)
    for record in records(out):
        assert record["score"] == 3 and record["parse_method"] == "structured"


def test_a_pairwise_run_asks_for_verdicts(isolated_env: Path) -> None:
    pairs = isolated_env / "pairs.csv"
    pairs.write_text("id,prompt,answer_1,answer_2,winner\na,Name a colour.,Red.,Blue.,A\nb,Say hi.,Hi!,Hello!,B\n")
    out = isolated_env / "pairwise"
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    with ScriptedOpenAIServer() as server:
        args = ["--protocol", "geval", "--geval-no-logprobs", "--answer-format", "grammar", "--fields", fields]
        args += ["--labels", "first=A,second=B"]
        assert run_cli(server, out, *args, dataset=str(pairs), aspect="preference") == 0
        grammars = [r["grammar"] for r in server.requests]
    assert grammars and all('("[[A]]" | "[[B]]" | "[[C]]")' in g for g in grammars)
    assert all(r["verdict"] == "first" for r in records(out))


def test_fennec_asks_for_k_criteria_and_a_pairwise_judges_grades_and_verdict(isolated_env: Path) -> None:
    pairs = isolated_env / "pairs.csv"
    pairs.write_text("id,prompt,answer_1,answer_2,winner\na,Name a colour.,Red.,Blue.,A\n")
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    with ScriptedOpenAIServer() as server:
        args = ["--method", "fennec", "--answer-format", "grammar", "--fields", fields, "--labels", "first=A,second=B"]
        assert run_cli(server, isolated_env / "fennec", *args, dataset=str(pairs), aspect="preference") == 0
        grammars = {role_of_request(r): r.get("grammar") for r in server.requests}
    assert grammars["criteria_writer"].startswith('root ::= "1. " item "\\n" "2. " item "\\n" "3. " item')
    judge = grammars["judge"]
    assert '"\\nScore A: " value "\\nScore B: " value "\\nVerdict: " ("[[A]]" | "[[B]]" | "[[C]]")' in judge
    assert 'value ::= "1" | "2" | "3" | "4" | "5"' in judge  # Fennec's 1-5 grades, not the item's 0-1
    assert grammars["guideline_writer"] is None  # text: only capped


@pytest.mark.parametrize("flag", [["--structured-output"], ["--answer-format", "grammar"]])
def test_authors_code_refuses_constrained_answers_in_one_line(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, isolated_env / "authors", "--fidelity", "authors-code", *flag) == 2
        assert server.count == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not with --fidelity authors-code" in err[0]


def test_structured_output_and_another_answer_format_disagree(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, isolated_env / "both", "--structured-output", "--answer-format", "grammar") == 2
    assert "--structured-output (structured_output) is --answer-format json, not grammar" in capsys.readouterr().err
