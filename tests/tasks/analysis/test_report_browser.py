"""The report in a real browser (headless Chromium over the DevTools pipe): no console error, filtering,
sorting, opening transcripts (DEBATE, ChatEval referees, a Fennec-shaped tree, pairwise, side by side), a
screenshot; and a script planted in judged text does not run.

Needs the Debian package ``chromium`` (``.ci/run`` installs it). Without it the tests skip, except in CI
(``CI=true``) or with ``DEBATE_EVAL_REQUIRE_BROWSER=1``, where they fail.
Set ``REPORT_SCREENSHOT_DIR`` to keep the screenshots.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import report_records as rr  # this folder (see conftest.py)
from support.demo_runs import make_pairwise_runs, make_runs

from debate_eval.tasks.analysis.report import write_report

pytestmark = pytest.mark.browser
READY = "document.documentElement.getAttribute('data-report-ready') === '1'"  # the transcripts are unpacked


def keep(path: Path) -> None:
    target = os.environ.get("REPORT_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / path.name)


def count(browser, selector: str) -> int:
    return browser.evaluate(f"document.querySelectorAll({selector!r}).length")


def set_value(browser, selector: str, value: str) -> None:
    """Set a form control's value and fire its input event (as a user's choice would)."""
    browser.evaluate(
        f"(() => {{ const e = document.querySelector({selector!r}); e.value = {value!r};"
        " e.dispatchEvent(new Event('input')); })()"
    )


def visible_rows(browser) -> int:
    return count(browser, "#items-table tbody tr")


def test_scripted_run_report_in_chromium(browser, tmp_path: Path, isolated_env: Path) -> None:
    runs = make_runs(tmp_path / "runs", docs=1)
    page = write_report(runs, tmp_path / "report.html", title="Report of scripted runs (not model results)")
    browser.open(page)
    browser.wait_until(READY)
    assert visible_rows(browser) == 48 and count(browser, "svg.plot") >= 5

    # Filtering: the run selector, then a text search through the transcripts.
    set_value(browser, "#f-run", "0")
    assert visible_rows(browser) == 16
    browser.type_into("#f-search", "M11")
    browser.wait_until("document.getElementById('f-count').textContent === '1 of 48 shown'")  # after a pause
    assert visible_rows(browser) == 1

    # Opening a DEBATE transcript with a real click: every message, the untrusted prompt marked.
    browser.click("#items-table tbody tr")
    assert browser.evaluate("document.getElementById('viewer').hidden") is False
    assert count(browser, "#viewer .msg") == 10 and count(browser, "#viewer .carries-untrusted") >= 1
    boxes = browser.evaluate("Array.from(document.querySelectorAll('#viewer .untrusted b')).map(b => b.textContent)")
    assert boxes == ["Document", "Summary"]  # the judged texts, from the dataset, marked untrusted
    assert "Scorer's scores" in browser.evaluate("document.getElementById('viewer').textContent")
    shot = browser.screenshot(tmp_path / "report-transcript.png")
    keep(shot)
    link = browser.evaluate("location.hash")
    assert link.startswith("#items=")  # a link to this transcript
    browser.click("#viewer-close")
    assert browser.evaluate("document.getElementById('viewer').hidden") is True
    browser.evaluate(f"location.hash = {link!r}")  # following the link opens the same transcript
    browser.wait_until("!document.getElementById('viewer').hidden")
    browser.evaluate("document.getElementById('viewer').hidden = true")  # (the link stays)
    for event in browser.events:
        event["_seen"] = True
    browser.call("Page.reload")  # opening the page afresh at that link shows the same transcript
    browser.wait_for_event("Page.loadEventFired")
    browser.wait_until(READY)
    assert browser.evaluate("location.hash") == link and count(browser, "#viewer .msg") == 10
    assert browser.evaluate("!document.getElementById('viewer').hidden")
    browser.click("#viewer-close")

    # Sorting by |score - human|, descending; a ChatEval transcript shows its referees.
    set_value(browser, "#f-search", "")
    set_value(browser, "#f-run", "2")
    set_value(browser, "#f-rounds", "1")  # the scripted referees always talk for 2 turns
    assert visible_rows(browser) == 0
    set_value(browser, "#f-rounds", "2")
    assert visible_rows(browser) == 16
    set_value(browser, "#f-rounds", "")
    browser.click("#items-table th[data-col='err']")
    errors = browser.evaluate(
        "Array.from(document.querySelectorAll('#items-table tbody tr')).map(r => parseFloat(r.children[5].textContent))"
    )
    assert errors == sorted(errors, reverse=True) and len(errors) == 16
    browser.click("#items-table tbody tr")
    lines = (runs[2] / "results.jsonl").read_text(encoding="utf-8").splitlines()
    (panel,) = {len(json.loads(line)["details"]["referees"]) for line in lines}
    assert count(browser, "#viewer table.referees tr") == 1 + panel  # a header and one row per referee
    grid = browser.evaluate("document.querySelector('#viewer table.referees tr').textContent")
    assert "turn 1" in grid and "turn 2" in grid and "final score" in grid  # each referee's score per turn
    browser.click("#viewer-close")

    # Side by side: one row per shared item opens the three transcripts together; a plot point opens one.
    browser.click("#compare-grid tbody tr")
    assert count(browser, "#viewer .conv") == 3
    browser.click("#viewer-close")
    browser.click("svg.plot .pt")
    assert count(browser, "#viewer .conv") == 1
    browser.click("#viewer-close")
    browser.evaluate("window.scrollTo(0, 0)")
    keep(browser.screenshot(tmp_path / "report-overview.png"))
    assert browser.errors() == []


def test_pairwise_and_fennec_shapes_in_chromium(browser, tmp_path: Path, isolated_env: Path, dataset_path) -> None:
    dataset_path("faireval")  # does not ship with the package: skips with the reason outside the CI layout
    pairwise = make_pairwise_runs(tmp_path / "runs", limit=4, methods=("geval", "debate"))
    (fennec,) = make_runs(tmp_path / "runs", docs=1, methods=("fennec",))
    browser.open(write_report([*pairwise, fennec], tmp_path / "shapes.html"))
    browser.wait_until(READY)
    # per pairwise run: verdicts vs labels, position consistency; fennec's 16 rated scores: scatter, distribution and
    # the reliability diagram (10 or more items with a score and a human rating); its 16 systems: the ranking
    assert count(browser, "svg.plot") == 2 * 2 + 3 + 1
    assert "fennec: reliability and the isotonic map" in browser.evaluate(
        "document.getElementById('plots').textContent"
    )
    plots_text = browser.evaluate("document.getElementById('plots').textContent")
    assert "position consistency (--swap)" in plots_text and "verdicts vs human labels" in plots_text
    assert "4 items are in all 2 pairwise runs" in browser.evaluate("document.getElementById('compare').textContent")

    # A pairwise DEBATE transcript: both orders, each with its own messages, the two responses untrusted.
    set_value(browser, "#f-run", "1")
    browser.click("#items-table tbody tr")
    text = browser.evaluate("document.getElementById('viewer').textContent")
    assert "original order" in text and "swapped order" in text and "Both orders (--swap)" in text
    boxes = browser.evaluate("Array.from(document.querySelectorAll('#viewer .untrusted b')).map(b => b.textContent)")
    assert {"question", "output_a", "output_b"} <= set(boxes)
    browser.click("#viewer-close")

    # Two pairwise runs side by side; then the Fennec-shaped branch tree.
    browser.click("#compare-grid tbody tr")
    assert count(browser, "#viewer .conv") == 2 and count(browser, "#viewer .shared-inputs .untrusted") >= 3
    browser.click("#viewer-close")
    set_value(browser, "#f-run", "2")
    browser.click("#items-table tbody tr")
    tree = browser.evaluate("document.querySelector('#viewer .tree').textContent")
    assert "criteria writer: 3 criteria" in tree and "merge → score" in tree
    assert [f"branch {i}:" in tree for i in (1, 2, 3)] == [True] * 3
    assert count(browser, "#viewer .tree li") == 1 + 3 * 3 + 1  # criteria; per branch guideline, judgment; merge
    keep(browser.screenshot(tmp_path / "report-fennec.png"))
    assert browser.errors() == []


def test_script_in_judged_text_does_not_run(browser, tmp_path: Path) -> None:
    config = {"result_config": {"debate": {"critic": {"text": rr.PAYLOAD}}, "models": {}}}
    records = [rr.hostile_record(), rr.debate_record(2, 2.0, [2.0]), rr.odd_record()]
    run = rr.write_run(tmp_path / "hostile", records, config)
    browser.open(write_report([run], tmp_path / "hostile.html", title=rr.PAYLOAD))
    browser.wait_until(READY)
    browser.type_into("#f-search", "pwned")
    browser.wait_until("document.getElementById('f-count').textContent === '1 of 3 shown'")
    browser.click("#items-table tbody tr")  # renders the judged text, the answers and the details
    text = browser.evaluate("document.getElementById('viewer').textContent")
    assert "<script>window.__pwned = 1</script>" in text  # shown as text
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert count(browser, "img") == 0 and browser.evaluate("document.title").startswith("</script>")
    assert not [e for e in browser.events if e["method"] == "Page.javascriptDialogOpening"]
    browser.click("#viewer-close")  # a record of an unknown method with odd field types opens without an error
    set_value(browser, "#f-search", "doc1/odd")
    browser.wait_until("document.querySelector('#items-table tbody td').textContent === 'doc1/odd'")
    assert visible_rows(browser) == 1
    browser.click("#items-table tbody tr")
    assert "no transcript in this record" in browser.evaluate("document.getElementById('viewer').textContent")
    assert browser.errors() == []
