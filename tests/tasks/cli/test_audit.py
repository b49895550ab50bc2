"""``debate-eval audit`` end to end with scripted judges whose faults are planted (``--provider scripted --model
planted-*``, agents/models/providers/planted.py): the card shows each fault where it should,
reruns resume with no call, several judges share a folder, the budget stops before a sub-run."""

from __future__ import annotations

import json
import random
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import audit_data  # tests/tasks (see tests/tasks/conftest.py)
import pytest

from debate_eval.tasks.cli.main import main

single_args, pairwise_args = audit_data.single_args, audit_data.pairwise_args


def card(out: Path) -> dict[str, Any]:
    return json.loads((out / "card.json").read_text(encoding="utf-8"))


def figure(document: dict[str, Any], facet: str, key: str, judge: int = 0) -> dict[str, Any]:
    entry = document["judges"][judge]["facets"][facet]
    assert entry["status"] == "ok", entry
    return next(f for f in entry["figures"] if f["key"] == key)


def test_always_first_judge_has_first_position_rate_1_and_consistency_0(isolated_env: Path) -> None:
    out = isolated_env / "first"
    assert main(pairwise_args(isolated_env, "planted-first", out, "--method", "geval")) == 0
    document = card(out)
    rate = figure(document, "position", "first_position_rate")
    assert rate["value"] == 1.0 and rate["baseline"] == 0.5 and rate["ci95"] == [1.0, 1.0]
    assert figure(document, "position", "consistency")["value"] == 0.0
    inconsistent = figure(document, "position", "consistency")["items"][0]
    assert inconsistent["run"] == "position" and len(inconsistent["item_ids"]) == 20
    human = figure(document, "position", "first_rate_dataset_order")
    assert human["value"] == 1.0 and human["baseline"] == 0.5  # labels alternate A, B
    facets = document["judges"][0]["facets"]
    assert facets["robustness"]["status"] == "not applicable" and "pairwise" in facets["robustness"]["reason"]
    assert document["scripted"] is True and document["task_type"] == "pairwise"


def test_length_judge_has_a_high_verbosity_figure(isolated_env: Path) -> None:
    out = isolated_env / "length"
    assert main(single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "verbosity")) == 0
    document = card(out)
    partial = figure(document, "verbosity", "partial_spearman")
    assert partial["value"] > 0.9 and partial["ci95"][0] > 0.8
    assert partial["baseline"] is not None and partial["value"] > abs(partial["baseline"]) + 0.5  # humans: no length
    assert document["judges"][0]["facets"]["stability"]["status"] == "not run"


def test_a_judge_that_copies_a_planted_score_has_susceptibility_1(isolated_env: Path) -> None:
    out = isolated_env / "copy"
    assert main(single_args(isolated_env, "planted-copy", out, "--method", "geval", "--facets", "injection")) == 0
    document = card(out)
    assert figure(document, "injection", "injected_moved")["value"] == 1.0
    variants = document["judges"][0]["facets"]["injection"]["plot"]["variants"]
    assert len(variants) == 7 and all(v["moved"] == v["items"] for v in variants.values())
    # beyond the control (its score of the neutral text is a hash: it moves some items by chance)
    share = figure(document, "injection", "susceptibility")
    assert share["value"] == 1.0 - figure(document, "injection", "control_moved")["value"]
    assert share["ci95"][0] > 0 and figure(document, "injection", "mean_shift")["ci95"][0] > 1.0
    assert document["judges"][0]["runs"].keys() >= {"base", "injected", "control", "repeat-2"}
    # judges that ignore the instruction: the length judge (the neutral text adds as many words) and a noisy one
    for model in ("planted-length", "planted-noisy"):
        other = isolated_env / f"{model}-injection"
        assert main(single_args(isolated_env, model, other, "--method", "geval", "--facets", "injection")) == 0
        for key in ("susceptibility", "mean_shift"):
            low, high = figure(card(other), "injection", key)["ci95"]
            assert low <= 0 <= high, (model, key, low, high)


def test_deterministic_judge_has_stability_alpha_1_and_a_noisy_one_less(isolated_env: Path) -> None:
    out = isolated_env / "stable"
    assert main(single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "stability")) == 0
    alpha = figure(card(out), "stability", "alpha")
    assert alpha["value"] == 1.0 and figure(card(out), "stability", "moved_share")["value"] == 0.0
    noisy = isolated_env / "noisy"
    assert main(single_args(isolated_env, "planted-noisy", noisy, "--method", "geval", "--facets", "stability")) == 0
    assert figure(card(noisy), "stability", "alpha")["value"] < 0.95
    assert figure(card(noisy), "stability", "moved_share")["value"] > 0.2


def test_rerun_resumes_without_calls_and_a_second_method_joins_the_card(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "both"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval,debate", "--repeats", "2")
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "calls per judging" in printed and "total:" in printed
    first = card(out)
    assert [j["label"] for j in first["judges"]] == ["geval_planted-length", "debate_planted-length"]
    for judge in first["judges"]:
        assert set(judge["runs"]) == {"base", "injected", "control", "repeat-2", "paraphrased"}
        assert (out / judge["runs"]["base"] / "results.jsonl").is_file()
    assert main(args) == 0
    again = capsys.readouterr().out
    assert again.count(" 0 finished now") == 10 and again.count("; 0 model calls") == 10
    # nothing left to judge costs nothing, though the scripted model has no price
    assert "  total: 0 calls at most, estimated cost $0.0000" in again and " unknown" not in again
    # each sub-run is an ordinary run directory
    assert main(["meta-eval", str(out / first["judges"][0]["runs"]["base"])]) == 0
    assert main(["show", str(out / first["judges"][1]["runs"]["injected"])]) == 0
    page = isolated_env / "again.html"
    assert main(["report", str(out), "--out", str(page)]) == 0  # the report command on an audit folder
    html = page.read_text(encoding="utf-8")
    assert "<h2>Judge card</h2>" in html and "judged texts not loaded" not in html
    markdown = (out / "card.md").read_text(encoding="utf-8")
    assert "geval_planted-length" in markdown and "debate_planted-length" in markdown and "Scripted run" in markdown


def test_other_data_in_the_same_folder_is_refused(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "one"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")
    assert main(args) == 0
    assert main([*args, "--limit", "5"]) == 2
    assert "holds an audit of other data" in capsys.readouterr().err


def test_a_run_directory_is_not_an_audit_folder(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An --out holding a run's results.jsonl is refused: the card, report and sub-runs were written into it."""
    run = isolated_env / "run"
    run.mkdir()
    (run / "results.jsonl").write_text('{"item_id": "x"}\n', encoding="utf-8")
    assert main(single_args(isolated_env, "planted-length", run, "--method", "geval", "--facets", "agreement")) == 2
    assert "is a run directory (it holds results.jsonl), not an audit folder" in capsys.readouterr().err
    assert sorted(path.name for path in run.iterdir()) == ["results.jsonl"]


def test_a_run_into_an_audit_folder_is_refused(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``run --out`` an audit folder: one line, and no run file written among the card's sub-runs."""
    out = isolated_env / "audited"
    assert main(single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")) == 0
    held = sorted(path.name for path in out.iterdir())
    capsys.readouterr()
    run = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--provider", "scripted"]
    assert main([*run, "--out", str(out), "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        f"debate-eval: error: {out}: an audit folder (debate-eval audit), not a run directory; give the run another "
        "--out"
    ]
    assert sorted(path.name for path in out.iterdir()) == held


def test_a_shard_of_an_audit_is_refused(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--shard K/N would judge a part of the items while the card says all of them: refused before anything runs."""
    out = isolated_env / "sharded"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")
    assert main([*args, "--shard", "1/2"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "debate-eval: error: --shard 1/2: an audit judges every selected item (its card would stand on one shard and "
        "say all); split its work with --workers or --ray instead"
    ]
    assert not out.exists()


def test_budget_needs_a_price_for_every_model(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "budget"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval")
    assert main([*args, "--budget-usd", "0.01"]) == 2  # the planted model has no price
    assert "no price for planted-length" in capsys.readouterr().err


def test_budget_stops_before_the_sub_run_that_would_exceed_it(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = isolated_env / "prices.csv"
    prices.write_text("model,input_per_million,output_per_million\nplanted-length,100,100\n", encoding="utf-8")
    monkeypatch.setenv("DEBATE_EVAL_PRICES", str(prices))
    out = isolated_env / "budget"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval")
    assert main([*args, "--facets", "agreement"]) == 0  # the base run alone: what one pass over the items costs
    base = json.loads((out / "geval_planted-length" / "base" / "summary.json").read_text(encoding="utf-8"))
    one_pass = base["estimated_cost_usd"]
    assert one_pass > 0
    capsys.readouterr()
    budget = 2.5 * one_pass  # enough for the injected texts and their control, not for a repeat after them
    assert main([*args, "--budget-usd", f"{budget:.6f}"]) == 0
    captured = capsys.readouterr()
    assert "est. cost" in captured.out and "total: " in captured.out
    assert "stopped by --budget-usd" in captured.err and "sub-run repeat-2" in captured.err
    facets = card(out)["judges"][0]["facets"]
    assert facets["injection"]["status"] == "ok"
    assert facets["stability"]["status"] == "not run" and "budget" in facets["stability"]["reason"]
    spent = sum(
        json.loads((out / "geval_planted-length" / run / "summary.json").read_text(encoding="utf-8"))[
            "this_invocation"
        ]["estimated_cost_usd"]
        for run in ("base", "injected", "control")
    )
    assert 0 < spent <= budget
    assert not (out / "geval_planted-length" / "repeat-2").exists()


def test_a_finished_run_of_the_same_judge_makes_the_base_run_free(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "after-run"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")
    run_args = [a for a in args[1:] if a not in ("--facets", "agreement", "--bootstrap", "200")]
    run_args[run_args.index("--out") + 1] = str(isolated_env / "plain-run")
    assert main(["run", *run_args]) == 0  # the same judge, run on its own before
    capsys.readouterr()
    assert main(args) == 0
    assert "base: 24 judgings, 0 already done, 24 finished now, 0 failed; 0 model calls, 24 from the cache" in (
        capsys.readouterr().out
    )


def test_the_default_scripted_judge_needs_no_model_name(isolated_env: Path) -> None:
    out = isolated_env / "default"
    args = single_args(isolated_env, "planted-length", out, "--method", "debate", "--facets", "agreement,scale")
    model = args.index("--model")
    del args[model : model + 2]  # the provider's own default model (the dry run must keep it)
    assert main(args) == 0
    facets = card(out)["judges"][0]["facets"]
    assert facets["scale"]["status"] == "ok" and facets["scale"]["notes"] == ["most common judgment: score 3"]


def test_bootstrap_past_its_bound_is_refused_before_the_folder_is_made(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Checked with the other settings, before the data is read (the dataset here does not exist)."""
    out = isolated_env / "huge"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")
    args[args.index("--dataset") + 1] = str(isolated_env / "absent.jsonl")
    assert main([*args, "--bootstrap", str(10**23)]) == 2
    assert capsys.readouterr().err == f"debate-eval: error: --bootstrap {10**23}: give at most 100,000 resamples\n"
    assert not out.exists()


def test_commands_of_one_run_pointed_at_an_audit_folder_name_its_sub_runs(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """meta-eval, show, label and calibrate read one run: given the audit folder they say it is one and name the
    sub-runs (DIR/JUDGE/RUN) instead of "no results.jsonl"."""
    out = isolated_env / "audit"
    assert main(single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")) == 0
    capsys.readouterr()
    sub_run = out / "geval_planted-length" / "base"
    assert (sub_run / "results.jsonl").is_file()
    for command in (["meta-eval"], ["show"], ["label", "--out", str(isolated_env / "label.html")], ["calibrate"]):
        assert main([command[0], str(out), *command[1:]]) == 2
        err = capsys.readouterr().err
        assert err == (
            f"debate-eval: error: {out}: an audit folder (debate-eval audit), not a run; its sub-runs are the run "
            f"directories {out}/JUDGE/RUN: {sub_run}\n"
        ), command
    assert not (isolated_env / "label.html").exists()
    rows = isolated_env / "rows.jsonl"  # the audit's page through report: an existing file of another kind is kept
    rows.write_text("{}\n", encoding="utf-8")
    assert main(["report", str(out), "--out", str(rows)]) == 2
    assert "is not a report page written by debate-eval report" in capsys.readouterr().err
    assert rows.read_text(encoding="utf-8") == "{}\n"
    assert main(["report", str(out), "--out", str(out / "report.html")]) == 0  # its own page is replaced


def figures_of(document: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Every figure of the card by (judge, facet, figure key)."""
    return {
        (judge["label"], name, entry["key"]): entry
        for judge in document["judges"]
        for name, facet in judge["facets"].items()
        for entry in facet.get("figures") or []
    }


@pytest.mark.parametrize(("make_args", "model"), [(single_args, "planted-noisy"), (pairwise_args, "planted-noisy")])
def test_the_card_does_not_depend_on_the_order_the_items_finished_in(
    isolated_env: Path, make_args: Any, model: str
) -> None:
    """A sub-run's results.jsonl is in the order its items finished (concurrency); the same records in another
    order (the lines shuffled, the card rebuilt from the frozen sub-runs, no model call) give the same intervals,
    bit for bit, and the same values (to the rounding of a float sum taken in another order)."""
    out = isolated_env / "order"
    args = make_args(isolated_env, model, out, "--method", "geval", "--repeats", "2")
    assert main(args) == 0
    before = figures_of(card(out))
    shuffled = 0
    for results in sorted(out.rglob("results.jsonl")):
        lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
        random.Random(7).shuffle(lines)
        shuffled += len(lines) > 1
        results.write_text("".join(lines), encoding="utf-8")
    assert shuffled >= 3  # base, repeat-2 and a perturbed sub-run at least
    assert main(args) == 0
    after = figures_of(card(out))
    assert after.keys() == before.keys() and len(before) >= 8
    intervals = [key for key, entry in before.items() if isinstance(entry["ci95"], list)]
    assert len(intervals) >= 5  # the resampled figures this test is about
    for key, entry in before.items():
        assert after[key]["ci95"] == entry["ci95"], key
        assert after[key]["baseline_ci95"] == entry["baseline_ci95"], key
        for field in ("value", "baseline"):
            expected = entry[field] if entry[field] is None else pytest.approx(entry[field], rel=1e-12, abs=1e-15)
            assert after[key][field] == expected, (key, field)


def test_an_interrupted_audit_resumes_judging_no_finished_item_again_and_gives_the_same_card(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after 30 sub-run items (mid-way through the second sub-run), then the same command again: the
    server is asked only for the judgings no sub-run finished, and the card is the uninterrupted audit's (the
    same records, whatever order they finished in)."""
    import os
    import signal

    from debate_eval.agents.models.providers.planted import script_for
    from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
    from debate_eval.tasks.engine.session import Session

    monkeypatch.setenv("OPENAI_API_KEY", "sk-AUDIT-RESUME-0123456789")
    facets = ("--method", "geval", "--facets", "agreement,stability,injection", "--repeats", "2", "--no-cache")
    judgings = 4 * 24  # base, injected, control and repeat-2 of the 24 items

    def judging_requests(requests: list[dict[str, Any]]) -> int:
        return sum("Reply with OK." not in json.dumps(request.get("messages")) for request in requests)

    with ScriptedOpenAIServer(reply=script_for("planted-noisy")) as server:

        def args(out: Path) -> list[str]:
            given = single_args(isolated_env, "planted-noisy", out, *facets)
            at = given.index("--provider")
            return [*given[:at], "--base-url", server.base_url, *given[at + 2 :]]

        assert main(args(isolated_env / "whole")) == 0
        assert judging_requests(server.requests) == judgings
        appended, append = [0], Session.append

        def interrupting(self: Session, record: Any) -> None:
            append(self, record)
            appended[0] += 1
            if appended[0] == 30:
                os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C lands: asyncio cancels the run

        monkeypatch.setattr(Session, "append", interrupting)
        out = isolated_env / "cut"
        with pytest.raises(KeyboardInterrupt):
            main(args(out))
        monkeypatch.setattr(Session, "append", append)
        kept = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in out.rglob("results.jsonl"))
        assert 30 <= kept < judgings and not (out / "card.json").exists()
        before = len(server.requests)
        assert main(args(out)) == 0
        assert judging_requests(server.requests[before:]) == judgings - kept
    whole = (isolated_env / "whole" / "card.json").read_text(encoding="utf-8")
    assert card(out) == json.loads(whole.replace(str(isolated_env / "whole"), str(out)))


def test_the_credentials_of_a_base_url_are_in_no_file_of_the_audit_folder(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """audit.json, the card and its pages record the command that made them: a --base-url's user password and
    query key are masked there, as everywhere else a run writes."""
    from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-AUDIT-ENVKEY-0123456789")
    out = isolated_env / "secret"
    with ScriptedOpenAIServer() as server:
        url = server.base_url.replace("http://", "http://user:PROXYPASSWORD42@") + "?api-key=QUERYKEY4242"
        given = single_args(isolated_env, "scripted", out, "--method", "geval", "--facets", "agreement")
        at = given.index("--provider")
        args = [*given[:at], "--base-url", url, *given[at + 2 :]]
        monkeypatch.setattr("sys.argv", ["debate-eval", *args])  # what the command records
        assert main(args) == 0
    assert "--base-url 'http://user:[redacted]@" in card(out)["commands"][0]
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "PROXYPASSWORD42" not in text and "QUERYKEY4242" not in text and "ENVKEY" not in text, path


def test_the_command_recorded_is_the_argv_given_to_main_not_the_process_s(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``main([...])`` called from Python (a script, a notebook) records its own arguments in audit.json and on
    the card, not those of the process that called it."""
    out = isolated_env / "called"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")
    monkeypatch.setattr("sys.argv", ["python", "notebook.py", "--unrelated"])
    assert main(args) == 0
    expected = "debate-eval " + " ".join(args)  # no word of these needs quoting (a hand-written shlex.join)
    assert card(out)["commands"] == [expected]
    assert expected in (out / "audit.json").read_text(encoding="utf-8")


def test_an_audit_into_a_judge_folder_of_an_audit_is_refused(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out AUDIT/JUDGE`` (or deeper) would start an audit nested in another: one line naming the audit folder,
    and nothing written."""
    out = isolated_env / "outer"
    args = single_args(isolated_env, "planted-length", out, "--method", "geval", "--facets", "agreement")
    assert main(args) == 0
    judge = next(path for path in out.iterdir() if path.is_dir())
    for inner in (judge, judge / "base"):
        held = sorted(path.relative_to(out) for path in out.rglob("*"))
        capsys.readouterr()
        at = args.index("--out")
        assert main([*args[:at], "--out", str(inner), *args[at + 2 :]]) == 2
        assert capsys.readouterr().err.strip().splitlines() == [
            f"debate-eval: error: {inner}: inside the audit folder {out}; give the audit its own --out"
        ]
        assert sorted(path.relative_to(out) for path in out.rglob("*")) == held


AUDIT_FLAGS = [
    "--dataset", "summeval", "--aspect", "coherence", "--limit", "12", "--method", "geval", "--provider", "scripted",
    "--repeats", "4", "--facets", "agreement,stability", "--paraphrases", "3", "--budget-usd", "2.5",
    "--alt-epsilon", "0.15", "--ci-method", "percentile", "--label", "mine", "--system-families", "a=openai,b=meta",
]  # fmt: skip


def dumped(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(["audit", *argv, "--dump-config"]) == 0
    return capsys.readouterr().out


def test_dump_config_then_config_gives_the_same_audit(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--dump-config prints the audit's own options beside the run's, and --config reads them back to the same
    request; a flag wins over the file."""
    from debate_eval.tasks.audit.plan import AuditRequest
    from debate_eval.tasks.cli.audit import OWN_OPTIONS, audit_request
    from debate_eval.tasks.cli.main import build_parser

    assert {spec.name for spec in fields(AuditRequest)} - set(OWN_OPTIONS) == {"run", "commands"}  # none left out

    text = dumped(capsys, *AUDIT_FLAGS)
    lines = text.splitlines()
    assert "repeats = 4" in lines and 'facets = ["agreement", "stability"]' in lines and "budget_usd = 2.5" in lines
    assert 'system_families = { a = "openai", b = "meta" }' in lines and 'label = "mine"' in lines
    assert not any(line.startswith(("bootstrap", "injections", "judge_family")) for line in lines)  # at defaults
    file = isolated_env / "audit.toml"
    file.write_text(text, encoding="utf-8")
    assert dumped(capsys, "--config", str(file)) == text
    parser = build_parser("audit")
    from_flags = audit_request(parser.parse_args(["audit", *AUDIT_FLAGS]))
    from_file = audit_request(parser.parse_args(["audit", "--config", str(file)]))
    assert replace(from_file, commands=()) == replace(from_flags, commands=())
    assert "repeats = 2" in dumped(capsys, "--config", str(file), "--repeats", "2").splitlines()


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("repeets = 4", "unknown method option 'repeets'"),
        ('repeats = "four"', "repeats: expected a whole number, got 'four'"),
        ("facets = [1]", "facets: expected names (a list of text or a comma-separated text), got [1]"),
        ("repeats = 0", "repeats: --repeats and --paraphrases must be whole numbers >= 1"),
        ("alt_epsilon = 2", "alt_epsilon: --alt-epsilon must be in [0, 1), got 2.0"),
        ('facets = ["nope"]', "facets: --facets: unknown facet nope"),
    ],
)
def test_a_bad_audit_key_in_a_config_file_names_the_file(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], line: str, error: str
) -> None:
    file = isolated_env / "bad.toml"
    file.write_text(f'dataset = "summeval"\naspect = "coherence"\n{line}\n', encoding="utf-8")
    assert main(["audit", "--config", str(file), "--provider", "scripted", "--dump-config"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"debate-eval: error: {file}: ") and error in lines[0], lines
