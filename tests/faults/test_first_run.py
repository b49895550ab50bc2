"""First-run frictions: the embedded model's timeout follows what it is (a local process: generous) and the
first line says what the run waits for; a per-system block too small to compare is one line; an unlabelled
run's ``next:`` line does not suggest ``meta-eval`` (which refuses it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from faultkit import Outcome

from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config

SYSTEMS_LINE = "systems: too few items per system to compare; see `meta-eval`"


def test_the_embedded_model_gets_a_local_process_timeout(isolated_env: Path) -> None:
    from debate_eval.tasks.engine import build
    from debate_eval.tasks.engine.request import RunRequest
    from debate_eval.tasks.engine.summary import RunSummary, start_line

    embedded = resolve_model_config(ModelOverrides(provider="embedded")).for_role("scorer")
    remote = resolve_model_config(ModelOverrides(base_url="http://127.0.0.1:9/v1", model="m")).for_role("scorer")
    assert embedded.timeout_s == 900 and remote.timeout_s == 120  # before: 120 s for both
    assert resolve_model_config(ModelOverrides(provider="embedded", timeout_s=30)).for_role("scorer").timeout_s == 30
    request = {"dataset": "summeval", "aspect": "coherence", "provider": "embedded"}
    config = build.build_run_config(RunRequest.from_mapping(request))
    summary = RunSummary(out_dir=isolated_env)
    summary.selected, summary.already_done = 4, 0
    line = start_line(config, summary)
    assert "waiting for the embedded model" in line and "after 900 s" in line and "\n" not in line


def own_rows(path: Path, *, human: bool) -> Path:
    rows = []
    for k in range(3):
        for system in ("alpha", "beta"):
            row = {"id": f"q{k}-{system}", "system": system, "source": f"Question {k}: what is {k} plus {k}?"}
            row["output"] = f"{2 * k}."
            if human:
                row["human"] = 1 + k % 5
            rows.append(row)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def judge_rows(rows: Path, out: Path) -> list[str]:
    return [
        "run", "--dataset", str(rows), "--aspect", "helpfulness", "--criteria", "Is the answer right?",
        "--scale", "1-5", "--method", "geval", "--provider", "scripted", "--out", str(out), "--no-progress",
    ]  # fmt: skip


def test_a_small_per_system_block_is_one_line_and_an_unlabelled_run_suggests_no_meta_eval(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    outcome = cli(judge_rows(own_rows(isolated_env / "rows.jsonl", human=False), isolated_env / "out"))
    assert outcome.code == 0, outcome.output[-2000:]
    lines = outcome.stdout.splitlines()
    assert lines.count(SYSTEMS_LINE) == 1 and not any("too few" in line for line in lines if line != SYSTEMS_LINE)
    (last,) = [line for line in lines if "next:" in line]
    assert "meta-eval" not in last and "debate-eval show" in last  # meta-eval refuses a run with no rating
    refused = cli(["meta-eval", str(isolated_env / "out" / "results.jsonl")])
    assert refused.code == 2  # which is why it is not suggested
    rated = cli(judge_rows(own_rows(isolated_env / "rated.jsonl", human=True), isolated_env / "rated"))
    (last,) = [line for line in rated.stdout.splitlines() if "next:" in line]
    assert "debate-eval meta-eval" in last
