"""Outputs without human ratings: an own single-score file and a pairwise file run end to end on the command
line (scores or verdicts, transcripts, resume, summary, ``show``, ``report``); ``meta-eval`` says in one line
that there is nothing to compare with and exits 2, ``--fail-under`` included; a partly rated file is
meta-evaluated on its rated rows, the others counted as unrated."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import main

SCRIPTED = ["--provider", "scripted", "--no-progress"]
NO_HUMAN = "no human ratings in its 6 record(s): nothing to meta-evaluate"


def _write_outputs(folder: Path, ratings: list[object] | None = None) -> Path:
    rows = [
        {"doc": f"Article {i}: the council met on Monday and approved the budget.", "summ": f"Summary {i}."}
        for i in range(6)
    ]
    if ratings is not None:
        rows = [{**row, "rating": rating} for row, rating in zip(rows, ratings, strict=True)]
    path = folder / "outputs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _records(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_unlabelled_file_runs_resumes_shows_and_reports(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write_outputs(isolated_env)
    out = isolated_env / "run"
    argv = ["run", "--dataset", str(path), "--fields", "source=doc,output=summ", "--aspect", "quality"]
    argv += ["--criteria", "Is the summary faithful to the article?", "--scale", "1-5", "--out", str(out)]
    assert main([*argv, *SCRIPTED]) == 0
    printed = capsys.readouterr().out
    assert "6 finished, 0 failed" in printed and "scores: 6 parsed, 0 without a score" in printed
    assert "score distribution: 3: 6" in printed  # the scripted Scorer answers 3 to every summary
    records = _records(out)
    assert len(records) == 6 and all(r["score"] == 3.0 and r["human_score"] is None for r in records)
    assert all(r["transcript"] for r in records)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["parsed"] == 6 and summary["llm_calls"] > 0 and summary["score_distribution"] == {"3": 6}

    assert main([*argv, *SCRIPTED]) == 0  # resume: every item is done, no model call
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["already_done"] == 6 and summary["this_invocation"]["llm_calls"] == 0
    assert len(_records(out)) == 6

    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    assert "6 items" in capsys.readouterr().out
    assert main(["show", str(out), "--item", "1"]) == 0
    assert "Summary" in capsys.readouterr().out

    assert main(["report", str(out), "--out", str(isolated_env / "report.html")]) == 0
    page = (isolated_env / "report.html").read_text(encoding="utf-8")
    assert "No human ratings in this run: nothing to meta-evaluate" in page
    assert "score distribution" in page and "predicted vs human" not in page

    capsys.readouterr()
    for extra in ([], ["--json"], ["--fail-under", "spearman=0.1"], ["--fail-under", "kappa=0"]):
        assert main(["meta-eval", str(out), *extra]) == 2  # nothing computed is not a pass
        captured = capsys.readouterr()
        assert captured.out == "" and NO_HUMAN in captured.err and len(captured.err.strip().splitlines()) == 1


def test_a_partly_rated_file_is_meta_evaluated_on_its_rated_rows(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_outputs(isolated_env, ratings=[4, "", 2, None, 5, 1])  # two rows unrated (empty, null)
    out = isolated_env / "run"
    argv = ["run", "--dataset", str(path), "--fields", "source=doc,output=summ,human=rating", "--aspect", "quality"]
    argv += ["--criteria", "Faithful?", "--scale", "1-5", "--method", "geval", *SCRIPTED]
    assert main([*argv, "--out", str(out)]) == 0
    assert sorted(r["human_score"] is None for r in _records(out)) == [False] * 4 + [True] * 2
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--json", "--bootstrap", "0"]) == 0
    stats = json.loads(capsys.readouterr().out)[str(path)]["quality"]
    assert (stats["n_items"], stats["n_unrated"]) == (6, 2)
    bad = _write_outputs(isolated_env, ratings=[4, "high", 2, 3, 5, 1])  # a rating that is not one stays an error
    assert main([*argv, "--out", str(isolated_env / "bad")]) == 2
    assert f'{bad}: row 2 (counted from 1): column "rating": expected a number, got "high"' in capsys.readouterr().err


def test_pairwise_file_without_labels(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"q": f"Question {i}?", "a": f"Answer A{i}.", "b": f"Answer B{i}."} for i in range(4)]
    path = isolated_env / "pairs.csv"
    path.write_text("q,a,b\n" + "".join(f"{r['q']},{r['a']},{r['b']}\n" for r in rows), encoding="utf-8")
    out = isolated_env / "pairs"
    argv = ["run", "--dataset", str(path), "--fields", "question=q,output_a=a,output_b=b", "--aspect", "preference"]
    assert main([*argv, "--method", "geval", "--swap", "--out", str(out), *SCRIPTED]) == 0
    assert "verdict distribution: first" in capsys.readouterr().out
    records = _records(out)
    counted = json.loads((out / "summary.json").read_text(encoding="utf-8"))["verdict_distribution"]
    assert sum(counted.values()) == 4 and counted == dict(Counter(str(r["verdict"]) for r in records))
    assert len(records) == 4 and all(r["verdict"] in ("first", "second", "tie") for r in records)
    assert all(r["human_label"] is None and len(r["verdicts"]) == 2 for r in records)
    assert main(["report", str(out), "--out", str(isolated_env / "report.html")]) == 0
    page = (isolated_env / "report.html").read_text(encoding="utf-8")
    assert "No human ratings in this run" in page and "verdicts (no human labels)" in page
    capsys.readouterr()
    assert main(["meta-eval", str(out)]) == 2
    assert "no human ratings in its 4 record(s)" in capsys.readouterr().err


def test_a_judges_folder_without_ratings_is_told_how_to_label_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``Judge(record_to=...)`` folder has no --fields to map a rating column with: meta-eval's one line
    also names the label page and ``--labels``, and with labels given the folder is meta-evaluated."""
    from debate_eval import Judge

    out = tmp_path / "judged"
    with Judge(method="geval", provider="scripted", criteria="Is it right?", scale=(1, 5), record_to=out) as judge:
        judge.score_many([{"output": f"Output {i}.", "id": f"i{i}"} for i in range(4)])
    capsys.readouterr()
    assert main(["meta-eval", str(out)]) == 2
    assert "`debate-eval label` and give its labels.jsonl as --labels" in capsys.readouterr().err
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"item_id": f"i{i}", "rating": i + 1}) + "\n" for i in range(4)))
    assert main(["meta-eval", str(out), "--labels", str(labels), "--json"]) == 0
