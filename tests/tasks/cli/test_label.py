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


def _run(
    folder: Path, name: str = "run", model: str = "planted-length", scale: str = "1-5"
) -> tuple[Path, dict[str, float]]:
    """A scripted run of 60 outputs of two systems (no human ratings); the judge scores length buckets 1-3."""
    rng = random.Random(0)
    rows = []
    for i in range(30):
        for system, longest in (("short", 20), ("long", 40)):
            rows.append({"id": f"{i}-{system}", "article": f"Article {i}.", "system": system,
                         "summary": " ".join(["word"] * rng.randint(3, longest))})  # fmt: skip
    data = folder / "outputs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = folder / name
    assert main(["run", "--dataset", str(data), "--fields", "source=article,output=summary,system=system,id=id",
                 "--aspect", "completeness", "--criteria", "Complete?", "--scale", scale, "--method", "geval",
                 "--provider", "scripted", "--model", model, "--no-progress",
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
    out = isolated_env / "calibrated.jsonl"
    assert main(["calibrate", str(run), "--labels", str(labels), "--bootstrap", "0", "--out", str(out)]) == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    knots = dict(zip(calibration["map"]["knots"], calibration["map"]["values"], strict=True))
    assert len(written) == 60 and all(line["calibrated"] == pytest.approx(knots[line["score"]]) for line in written)
    capsys.readouterr()
    assert main(["calibrate", str(run), "--labels", str(labels), "--bootstrap", "0", "--out", str(out)]) == 0  # again
    before = labels.read_bytes()  # --out naming the labels (or a data) file: kept and refused (was overwritten)
    assert main(["calibrate", str(run), "--labels", str(labels), "--bootstrap", "0", "--out", str(labels)]) == 2
    assert capsys.readouterr().err == (
        f"debate-eval: error: --out {labels}: already exists and is not a file of calibrated scores written by "
        "debate-eval calibrate; give another --out (or move that file away)\n"
    )
    assert labels.read_bytes() == before

    # the report's reliability diagram: per judge score, the mean label of its items (counted by hand)
    assert main(["report", str(run), "--labels", str(labels), "--out", str(isolated_env / "r.html")]) == 0
    page = (isolated_env / "r.html").read_text(encoding="utf-8")
    assert "reliability and the isotonic map" in page
    for score in sorted({scores[i] for i in ids}):
        rated = [ratings[i] for i in ids if scores[i] == score]
        assert f"judge {score:.3g}: mean human {np.mean(rated):.3g} over {len(rated)} item(s)" in page

    labels.write_text(json.dumps({"item_id": ids[0], "rating": 9}) + "\n")
    assert main(["meta-eval", str(run), "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1 (counted from 1): rating 9 is off the run's scale 1-5" in err
    assert main(["calibrate", str(run), "--labels", str(labels)]) == 2


def test_labels_of_a_few_judgebench_pairs(isolated_env: Path, shared_data_dir: Path, capsys) -> None:
    """The released o1-mini judgments on JudgeBench's 350 pairs (imported): a label page of 20 pairs, their
    verdicts given as labels, meta-eval's accuracy over those 20 against a hand count."""
    pairs = shared_data_dir / "judgebench" / "judgebench_gpt-4o-2024-05-13.jsonl"
    outputs = shared_data_dir / "judgebench" / "outputs" / "arena_hard_o1-mini-2024-09-12.jsonl"
    if not pairs.is_file() or not outputs.is_file():
        pytest.skip(f"{pairs.parent} not found (JudgeBench does not ship); set DEBATE_EVAL_DATA_DIR")
    run = isolated_env / "jb"
    assert main(["import", "judgebench", str(pairs), str(outputs), "--out", str(run)]) == 0
    assert main(["label", str(run), "--n", "20", "--out", str(isolated_env / "jb.html")]) == 0
    page = (isolated_env / "jb.html").read_text(encoding="utf-8")
    data = json.loads(page.split('id="label-data">')[1].split("</script>")[0])
    assert data["scale"] is None and all(item["pairwise"] for item in data["items"])
    ids = [item["item_id"] for item in data["items"]]
    verdicts = {item_id: ("first", "second")[k % 2] for k, item_id in enumerate(ids)}
    labels = isolated_env / "labels.jsonl"
    labels.write_text("".join(json.dumps({"item_id": i, "verdict": v}) + "\n" for i, v in verdicts.items()))
    judged = {r["item_id"]: r["verdict"] for r in map(json.loads, (run / "results.jsonl").open())}
    capsys.readouterr()
    assert main(["meta-eval", str(run), "--labels", str(labels), "--json", "--bootstrap", "0"]) == 0
    entry = json.loads(capsys.readouterr().out)["judgebench"]["preference"]
    assert (entry["n_items"], entry["n_unlabelled"]) == (350, 330)
    assert entry["accuracy"] == pytest.approx(sum(judged[i] == v for i, v in verdicts.items()) / 20)


def test_label_refuses_to_overwrite_a_file_it_did_not_write(isolated_env: Path, capsys: pytest.CaptureFixture) -> None:
    """An existing --out that is not a label page (notes, a folder) is kept and refused in one line; a label page
    written before is replaced (a new draw of the same run)."""
    run, _ = _run(isolated_env)
    notes = isolated_env / "notes.html"
    notes.write_text("<p>my notes</p>\n", encoding="utf-8")
    for target in (notes, isolated_env):
        assert main(["label", str(run), "--n", "5", "--out", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--out {target}: already exists and is not a label page" in err, err
    assert notes.read_text(encoding="utf-8") == "<p>my notes</p>\n"
    page = isolated_env / "label.html"
    assert main(["label", str(run), "--n", "5", "--out", str(page)]) == 0
    assert main(["label", str(run), "--n", "7", "--seed", "1", "--out", str(page)]) == 0
    assert page.read_text(encoding="utf-8").count('"item_id"') == 7


def test_calibrate_applies_a_map_only_to_a_run_of_the_same_judge_and_scale(
    isolated_env: Path, capsys: pytest.CaptureFixture
) -> None:
    """--apply (and the API's apply_to) refuses, in one line naming both models, a run judged by another model
    or on another scale; a run that records no model is applied with a warning that it could not be checked."""
    import debate_eval

    run, scores = _run(isolated_env)
    same, _ = _run(isolated_env, "same")
    other, _ = _run(isolated_env, "other", model="scripted")
    wide, _ = _run(isolated_env, "wide", scale="1-10")
    bare = isolated_env / "bare"
    bare.mkdir()
    (bare / "results.jsonl").write_bytes((same / "results.jsonl").read_bytes())  # no config.json
    labels = isolated_env / "labels.jsonl"
    labels.write_text(
        "".join(json.dumps({"item_id": i, "rating": min(5, scores[i] + 1)}) + "\n" for i in sorted(scores)[:30])
    )
    argv = ["calibrate", str(run), "--labels", str(labels), "--bootstrap", "0", "--json", "--apply"]
    capsys.readouterr()
    assert main([*argv, str(same)]) == 0
    assert json.loads(capsys.readouterr().out)["applied"]["n_unlabelled"] == 60
    for target, message in [
        (other, f"--apply {other}: judged by scripted, but the map was fitted on {run}, judged by planted-length"),
        (wide, f"--apply {wide}: scored on the scale 1-10, but the map was fitted on {run}'s scale 1-5"),
    ]:
        assert main([*argv, str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert main([*argv, str(bare)]) == 0
    err = capsys.readouterr().err
    assert f"warning: --apply: {bare} records no judge model" in err and "could not be checked" in err
    with pytest.raises(
        debate_eval.UserError, match=r"apply_to .*other: judged by scripted, .* judged by planted-length"
    ):
        debate_eval.calibrate(run, labels, apply_to=other, bootstrap=0)
    assert debate_eval.calibrate(run, labels, apply_to=same, bootstrap=0).applied["n_unlabelled"] == 60
