"""The label page in headless Chromium: rate three items, download labels.jsonl, read it back with the one
labels reader and join it to the run. Needs the Debian package ``chromium`` (see test_report_browser.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from debate_eval.tasks.analysis.labels import apply_labels, read_labels
from debate_eval.tasks.analysis.records import load_results
from debate_eval.tasks.analysis.report.label_page import label_page
from debate_eval.tasks.cli.main import main

pytestmark = pytest.mark.browser
READY = "document.documentElement.getAttribute('data-labels-ready') === '1'"


def _download(browser, folder: Path) -> Path:
    """Click the page's download button and wait for the file (bounded by the browser's timeout)."""
    browser.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(folder))
    browser.click("#download")
    target = folder / "labels.jsonl"
    deadline = time.monotonic() + browser.timeout_s
    while not (target.is_file() and target.stat().st_size > 0 and not list(folder.glob("*.crdownload"))):
        assert time.monotonic() < deadline, "the page's download never arrived"
        time.sleep(0.05)
    return target


def test_rate_three_items_download_and_read_back(browser, tmp_path: Path, isolated_env: Path) -> None:
    run = isolated_env / "run"
    assert main(["run", "--dataset", "summeval", "--aspect", "coherence", "--docs", "2", "--method", "geval",
                 "--provider", "scripted", "--no-progress", "--out", str(run)]) == 0  # fmt: skip
    written = label_page(run, tmp_path / "label.html", n=8)
    page = written.path
    assert len(written.item_ids) == 8
    browser.open(page)
    browser.wait_until(READY)
    assert browser.evaluate("document.querySelectorAll('section.item').length") == 8
    # the judge's transcript is there, collapsed
    assert browser.evaluate("document.querySelectorAll('section.item details:not([open])').length") == 8
    summary = browser.evaluate("document.querySelector('#item-0 details summary').textContent")
    assert "answer and transcript" in summary and not any(ch.isdigit() for ch in summary)  # the score stays hidden
    assert browser.evaluate("document.querySelector('#item-0 details p.judged').textContent").startswith(
        "the judge's score: "
    )
    assert browser.evaluate("document.querySelectorAll('#item-0 .choices button').length") == 5  # the 1-5 scale
    browser.type_into("#annotator", "ann-1")
    ratings = {0: 2, 3: 5, 6: 1}
    for index, rating in ratings.items():
        browser.click(f"#item-{index} .choices button[data-value='{rating}']")
    assert browser.evaluate("document.getElementById('progress').textContent") == "3 of 8 labelled"
    assert browser.evaluate("document.querySelectorAll('section.item.done').length") == 3
    ids = browser.evaluate("JSON.parse(document.getElementById('label-data').textContent).items.map(i => i.item_id)")
    assert ids == list(written.item_ids)

    # the progress survives a reload (the browser's local storage). Chromium hands a page's storage writes to its
    # storage service asynchronously, so on a busy machine a reload right after the clicks can come before them;
    # reload until the page shows them, within the browser's timeout (a page that never saved fails here)
    deadline = time.monotonic() + browser.timeout_s
    while True:
        browser.open(page)
        browser.wait_until(READY)
        shown = browser.evaluate("document.getElementById('progress').textContent")
        if shown == "3 of 8 labelled" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert shown == "3 of 8 labelled"
    assert browser.evaluate("document.getElementById('annotator').value") == "ann-1"

    downloaded = _download(browser, tmp_path / "downloads")
    lines = [json.loads(line) for line in downloaded.read_text(encoding="utf-8").splitlines()]
    assert [(line["item_id"], line["rating"], line["annotator"]) for line in lines] == [
        (ids[index], rating, "ann-1") for index, rating in ratings.items()
    ]
    assert all(line["aspect"] == "coherence" and line["time"].endswith("Z") for line in lines)
    records = load_results([run / "results.jsonl"])
    labels = read_labels(downloaded, records, scale=(1.0, 5.0))
    assert [(label.item_id, label.rating, label.line) for label in labels] == [
        (ids[index], float(rating), line) for line, (index, rating) in enumerate(ratings.items(), start=1)
    ]
    joined = {row.key: row.human_score for row in apply_labels(records, labels)}
    assert {key: value for key, value in joined.items() if value is not None} == {
        ids[index]: float(rating) for index, rating in ratings.items()
    }
    assert browser.errors() == []


def test_a_pairwise_run_takes_verdicts(browser, tmp_path: Path, isolated_env: Path) -> None:
    pairs = isolated_env / "pairs.jsonl"
    rows = [{"question": f"Question {i}?", "output_a": f"A{i}.", "output_b": f"B{i}."} for i in range(6)]
    pairs.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = isolated_env / "pairs"
    assert main(["run", "--dataset", str(pairs), "--fields", "question=question,output_a=output_a,output_b=output_b",
                 "--aspect", "preference", "--method", "geval", "--provider", "scripted", "--no-progress",
                 "--out", str(run)]) == 0  # fmt: skip
    written = label_page(run, tmp_path / "pairs.html", n=4)
    browser.open(written.path)
    browser.wait_until(READY)
    buttons = "Array.from(document.querySelectorAll('#item-0 .choices button')).map(b => b.textContent)"
    assert browser.evaluate(buttons) == ["first", "second", "tie"]
    browser.click("#item-1 .choices button[data-value='tie']")
    browser.click("#item-2 .choices button[data-value='second']")
    downloaded = _download(browser, tmp_path / "downloads")
    records = load_results([run / "results.jsonl"])
    labels = read_labels(downloaded, records)
    assert [(label.item_id, label.verdict) for label in labels] == [
        (written.item_ids[1], "tie"),
        (written.item_ids[2], "second"),
    ]
    assert browser.errors() == []
