"""An audit's report page in headless Chromium (marker ``browser``): the judge card's table and plots, a link
under a figure filtering the items table to the records behind it, a plot point opening its item, no console
error. Skips without Chromium except in CI or with DEBATE_EVAL_REQUIRE_BROWSER=1 (as the report's own test)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import audit_data  # tests/tasks (see tests/tasks/conftest.py)
import pytest

from debate_eval.tasks.cli.main import main

pytestmark = pytest.mark.browser
READY = "document.documentElement.getAttribute('data-report-ready') === '1'"


def rows(browser: Any) -> int:
    return browser.evaluate("document.querySelectorAll('#items-table tbody tr').length")


def test_audit_page_links_each_figure_to_its_items(browser: Any, isolated_env: Path) -> None:
    out = isolated_env / "first"
    args = audit_data.pairwise_args(isolated_env, "planted-first", out, "--method", "geval", "--repeats", "2")
    assert main(args) == 0
    browser.resize(1400, 1800)
    browser.open(out / "report.html")
    browser.wait_until(READY)
    assert browser.errors() == []
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    runs = card["judges"][0]["runs"]
    assert set(runs) == {"base", "position", "injected", "control", "repeat-2"}
    total = rows(browser)
    assert total == 20 * len(runs)  # every sub-run's records are the page's items (5 sub-runs)
    text = browser.evaluate("document.getElementById('audit').textContent")
    assert "Judge card" in text and "Scripted run" in text and "first-position win rate (both orders)" in text
    assert browser.evaluate("document.querySelectorAll('#audit svg.plot').length") >= 5

    # the consistency figure's link: the 20 items whose two verdicts disagree, in the position run
    link = "a.items-link[data-what*='two verdicts disagree']"
    assert browser.evaluate(f"document.querySelector({link!r}).textContent") == "20 items"
    browser.click(link)
    assert rows(browser) == 20
    assert not browser.evaluate("document.getElementById('f-selection').hidden")
    shown = browser.evaluate(
        "Array.from(document.querySelectorAll('#items-table tbody tr')).map(r => r.children[0].textContent)"
    )
    assert set(shown) == {"geval_planted-first · position"}
    browser.click("#items-table tbody tr")  # a row opens both orders' transcript
    assert "Both orders" in browser.evaluate("document.getElementById('viewer').textContent")
    browser.click("#viewer-close")
    browser.click("#f-selection-clear")
    assert rows(browser) == total and browser.evaluate("document.getElementById('f-selection').hidden")

    # a point of the agreement scatter opens its item
    browser.evaluate("document.getElementById('facet-agreement').scrollIntoView()")
    browser.click("#facet-agreement svg.plot .pt")
    assert not browser.evaluate("document.getElementById('viewer').hidden")
    assert browser.errors() == []
    keep = os.environ.get("REPORT_SCREENSHOT_DIR")
    if keep:
        browser.click("#viewer-close")
        browser.evaluate("window.scrollTo(0, 0)")
        browser.screenshot(Path(keep) / "audit-pairwise.png")
