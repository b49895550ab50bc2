"""``label``, ``meta-eval --labels`` and ``calibrate`` from the command line on a scripted run of own data with
systems (the planted length judge): the page is written, the labels join the run, bad labels are one line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from debate_eval.tasks.cli.main import main


def _run(folder: Path) -> tuple[Path, dict[str, float]]:
    """A scripted run of 60 outputs of two systems (no human ratings); the judge scores length buckets 1-3."""
    rng = random.Random(0)
    rows = []
    for i in range(30):
        for system, longest in (("short", 20), ("long", 40)):
            rows.append({"id": f"{i}-{system}", "article": f"Article {i}.", "system": system,
                         "summary": " ".join(["word"] * rng.randint(3, longest))})  # fmt: skip
    data = folder / "outputs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = folder / "run"
    assert main(["run", "--dataset", str(data), "--fields", "source=article,output=summary,system=system,id=id",
                 "--aspect", "completeness", "--criteria", "Complete?", "--scale", "1-5", "--method", "geval",
                 "--provider", "scripted", "--model", "planted-length", "--no-progress",
                 "--out", str(run)]) == 0  # fmt: skip
    scores = {}
    for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        scores[record["item_id"]] = record["score"]
    return run, scores


def test_label_page_meta_eval_and_calibrate_read_the_labels(isolated_env: Path, capsys: pytest.CaptureFixture) -> None:
    run, scores = _run(isolated_env)
    assert main(["label", str(run), "--n", "12", "--out", str(isolated_env / "label.html")]) == 0
    assert "12 items" in capsys.readouterr().out
    assert (isolated_env / "label.html").read_text(encoding="utf-8").count('"item_id"') == 12

    ids = sorted(scores)[:24]
    ratings = {item: float(min(5, scores[item] + 1 + (k % 3 == 0))) for k, item in enumerate(ids)}
    labels = isolated_env / "labels.jsonl"
    labels.write_text(
        "".join(json.dumps({"item_id": i, "rating": r, "annotator": "a"}) + "\n" for i, r in ratings.items())
    )
    capsys.readouterr()
    assert main(["meta-eval", str(run), "--labels", str(labels), "--json", "--bootstrap", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    entry = next(iter(next(iter(report.values())).values()))
    expected = stats.spearmanr([scores[i] for i in ids], [ratings[i] for i in ids]).statistic
    assert (entry["n_items"], entry["n_unrated"]) == (60, 36)  # the dataset had no ratings: 24 labelled
    assert entry["pooled_spearman"] == pytest.approx(expected)

    assert main(["calibrate", str(run), "--labels", str(labels), "--json", "--bootstrap", "0"]) == 0
    calibration = json.loads(capsys.readouterr().out)
    assert calibration["n_labelled"] == 24 and calibration["applied"]["n_unlabelled"] == 60 - 24
    raw = np.array([scores[i] for i in ids])
    human = np.array([ratings[i] for i in ids])
    assert calibration["error_before"]["mae"] == pytest.approx(np.abs(raw - human).mean())
    assert calibration["scale"] == [1.0, 5.0]

    labels.write_text(json.dumps({"item_id": ids[0], "rating": 9}) + "\n")
    assert main(["meta-eval", str(run), "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1 (counted from 1): rating 9 is off the run's scale 1-5" in err
    assert main(["calibrate", str(run), "--labels", str(labels)]) == 2
