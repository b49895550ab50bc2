"""The judge card's alt-test and self-preference facets end to end (``debate-eval audit`` on the scripted length
judge): the data's annotator columns and the family map reach the facets, whose figures are those of the
statistics' own functions (tested on constructed data in tests/tasks/analysis/) on the base run's scores."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from debate_eval.tasks.analysis.audit.alt_test import alt_test
from debate_eval.tasks.analysis.audit.self_preference import self_preference
from debate_eval.tasks.cli.main import main

FAMILIES = {"gpt-x": "openai", "llama-x": "meta"}


def _data(folder: Path) -> Path:
    """40 outputs of two systems; three annotators rate each by its length bucket, with noise."""
    rng = random.Random(1)
    rows = []
    for i in range(40):
        words = rng.randint(3, 40)
        bucket = 1 if words <= 10 else 2 if words <= 20 else 3  # what the planted length judge says
        ratings = {name: min(5, max(1, bucket + rng.choice([-1, 0, 0, 1]))) for name in ("r1", "r2", "r3")}
        rows.append({"id": f"o{i}", "article": f"Article {i}.", "summary": " ".join(["word"] * words),
                     "system": "gpt-x" if i % 2 else "llama-x", "family": "openai" if i % 2 else "meta",
                     **ratings})  # fmt: skip
    path = folder / "rated.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_alt_test_and_self_preference_on_the_card(isolated_env: Path) -> None:
    data, out = _data(isolated_env), isolated_env / "audit"
    argv = ["audit", "--dataset", str(data), "--fields", "source=article,output=summary,system=system,id=id,"
            "annotators=r1|r2|r3", "--aspect", "completeness", "--criteria", "Complete?", "--scale", "1-5",
            "--method", "geval", "--provider", "scripted", "--model", "planted-length", "--no-progress",
            "--out", str(out), "--facets", "agreement,alt_test,self_preference", "--alt-epsilon", "0.2",
            "--system-families", "gpt-x=openai,llama-x=meta", "--judge-family", "openai",
            "--bootstrap", "0"]  # fmt: skip
    assert main(argv) == 0
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    facets = card["judges"][0]["facets"]
    records = [json.loads(line) for line in (out / "geval_planted-length" / "base" / "results.jsonl").open()]
    rows = [json.loads(line) for line in data.open()]
    annotations = {name: {row["id"]: float(row[name]) for row in rows} for name in ("r1", "r2", "r3")}
    scores = {r["item_id"]: r["score"] for r in records if r["score"] is not None}
    expected = alt_test(scores, annotations, epsilon=0.2)
    alt = {f["key"]: f for f in facets["alt_test"]["figures"]}
    assert facets["alt_test"]["status"] == "ok"
    assert alt["winning_rate"]["value"] == expected.winning_rate
    assert alt["advantage_probability"]["value"] == expected.advantage_probability
    assert [alt[f"annotator:{a.annotator}"]["value"] for a in expected.annotators] == [
        a.judge_wins for a in expected.annotators
    ]
    # the human rating of each record is the annotators' mean (no human column)
    by_id = {row["id"]: row for row in rows}
    assert all(r["human_score"] == (by_id[r["item_id"]]["r1"] + by_id[r["item_id"]]["r2"]
                                    + by_id[r["item_id"]]["r3"]) / 3 for r in records)  # fmt: skip
    mine = self_preference([(r["system_id"], r["score"], r["human_score"]) for r in records], FAMILIES, "openai")
    figure = next(f for f in facets["self_preference"]["figures"] if f["key"] == "self_preference")
    assert facets["self_preference"]["status"] == "ok"
    assert (figure["value"], figure["ci95"]) == (mine.difference, mine.ci95)
    assert "own-family" in (out / "card.md").read_text(encoding="utf-8") or "Self-preference" in (
        out / "card.md"
    ).read_text(encoding="utf-8")


def test_without_annotators_or_families_the_facets_say_why(isolated_env: Path) -> None:
    data, out = _data(isolated_env), isolated_env / "plain"
    argv = ["audit", "--dataset", str(data), "--fields", "source=article,output=summary,system=system,id=id,human=r1",
            "--aspect", "completeness", "--criteria", "Complete?", "--scale", "1-5", "--method", "geval",
            "--provider", "scripted", "--model", "planted-length", "--no-progress", "--out", str(out),
            "--facets", "alt_test,self_preference", "--bootstrap", "0"]  # fmt: skip
    assert main(argv) == 0
    facets = json.loads((out / "card.json").read_text(encoding="utf-8"))["judges"][0]["facets"]
    assert facets["alt_test"]["status"] == "not applicable" and "annotators" in facets["alt_test"]["reason"]
    assert facets["self_preference"]["status"] == "not applicable"
    assert "--system-families" in facets["self_preference"]["reason"]


def test_the_family_can_come_from_the_data(isolated_env: Path) -> None:
    data, out = _data(isolated_env), isolated_env / "field"
    argv = ["audit", "--dataset", str(data), "--fields", "source=article,output=summary,system=system,id=id,human=r1,"
            "system_family=family", "--aspect", "completeness", "--criteria", "Complete?", "--scale", "1-5",
            "--method", "geval", "--provider", "scripted", "--model", "planted-length", "--no-progress",
            "--out", str(out), "--facets", "self_preference", "--judge-family", "meta", "--bootstrap", "0"]  # fmt: skip
    assert main(argv) == 0
    facet = json.loads((out / "card.json").read_text(encoding="utf-8"))["judges"][0]["facets"]["self_preference"]
    records = [json.loads(line) for line in (out / "geval_planted-length" / "base" / "results.jsonl").open()]
    mine = self_preference([(r["system_id"], r["score"], r["human_score"]) for r in records], FAMILIES, "meta")
    figure = next(f for f in facet["figures"] if f["key"] == "self_preference")
    assert facet["status"] == "ok" and (figure["value"], figure["ci95"]) == (mine.difference, mine.ci95)


def test_a_rerun_with_another_alt_epsilon_reuses_the_sub_runs_and_reports_its_epsilon(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--alt-epsilon is the alt-test's allowance, applied to the base run's scores when the card is built: no
    sub-run holds it (its config hash leaves it out), so a rerun with another value makes no model call and the
    card's alt-test is recomputed at the new value, 0 included (a valid allowance, not the default)."""
    data, out = _data(isolated_env), isolated_env / "audit"
    argv = ["audit", "--dataset", str(data), "--fields", "source=article,output=summary,system=system,id=id,"
            "annotators=r1|r2|r3", "--aspect", "completeness", "--criteria", "Complete?", "--scale", "1-5",
            "--method", "geval", "--provider", "scripted", "--model", "planted-length", "--no-progress",
            "--out", str(out), "--facets", "alt_test", "--bootstrap", "0", "--alt-epsilon"]  # fmt: skip
    base = out / "geval_planted-length" / "base" / "results.jsonl"
    assert main([*argv, "0.2"]) == 0
    written = base.read_bytes()
    capsys.readouterr()
    assert main([*argv, "0"]) == 0
    assert "40 already done, 0 finished now, 0 failed; 0 model calls" in capsys.readouterr().out
    assert base.read_bytes() == written
    records = [json.loads(line) for line in base.open()]
    rows = [json.loads(line) for line in data.open()]
    annotations = {name: {row["id"]: float(row[name]) for row in rows} for name in ("r1", "r2", "r3")}
    scores = {r["item_id"]: r["score"] for r in records if r["score"] is not None}
    at_zero, at_default = alt_test(scores, annotations, epsilon=0.0), alt_test(scores, annotations)
    assert [a.p for a in at_zero.annotators] != [a.p for a in at_default.annotators]  # 0 is not the default
    facet = json.loads((out / "card.json").read_text(encoding="utf-8"))["judges"][0]["facets"]["alt_test"]
    assert facet["notes"][0].endswith("with ε = 0") and "≥ ε = 0, one-sided" in facet["method"]
    labels = {f["key"]: f["label"] for f in facet["figures"]}
    for entry in at_zero.annotators:
        assert f"(p={entry.p:.3g}, " in labels[f"annotator:{entry.annotator}"]
