"""The label page's choice reads each record's confidence (the typed field) and its data block is safe JSON."""

from __future__ import annotations

import json
from pathlib import Path

from debate_eval.tasks.analysis.report.label_page import label_page


def _run(folder: Path) -> Path:
    folder.mkdir()
    lines = []
    for i in range(12):
        lines.append({"item_id": f"i{i}", "dataset": "own", "aspect": "quality", "method": "geval", "score": 1 + i % 5,
                      "human_score": None, "confidence": round(0.05 * ((i * 7) % 12), 2), "error": None,
                      "transcript": [{"index": 0, "agent": "user", "content": f"Judge </script><b>{i}</b>"}],
                      "inputs": {"output": f"text {i} </script>"}})  # fmt: skip
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder


def test_lowest_confidence_reads_the_records_confidence(tmp_path: Path) -> None:
    run = _run(tmp_path / "run")
    page = label_page(run, tmp_path / "l.html", n=3, how="lowest-confidence")
    confidence = {f"i{i}": round(0.05 * ((i * 7) % 12), 2) for i in range(12)}
    lowest = sorted(confidence, key=confidence.get)[:3]
    assert sorted(page.item_ids) == sorted(lowest) and page.choice == "lowest-confidence"
    html = page.path.read_text(encoding="utf-8")
    data = html.split('id="label-data">')[1].split("</script>")[0]  # no text ends the data block early
    assert json.loads(data)["items"][0]["inputs"] == [["output", f"text {page.item_ids[0][1:]} </script>"]]
    assert "<b>" not in html


def test_the_choice_does_not_depend_on_the_order_the_items_finished_in(tmp_path: Path) -> None:
    """The seeded draw is over the items by id: the same items whatever the order of results.jsonl."""
    run = _run(tmp_path / "run")
    results = run / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    for how in ("random", "stratified", "lowest-confidence"):
        results.write_text("".join(lines), encoding="utf-8")
        before = label_page(run, tmp_path / f"{how}-a.html", n=5, how=how, seed=4).item_ids
        results.write_text("".join(lines[::-1]), encoding="utf-8")
        after = label_page(run, tmp_path / f"{how}-b.html", n=5, how=how, seed=4).item_ids
        assert sorted(after) == sorted(before), how
