"""A report of a large run (constructed records, no model calls): the page embeds a sample and stays a few MB,
opens in Chromium, and loads the full table from its sidecar when the reader picks it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import report_records as rr  # this folder (see conftest.py)

from debate_eval.tasks.analysis.report import write_report
from debate_eval.tasks.analysis.report.page import SAMPLE_ITEMS, SIDECAR_SUFFIX, unpack_records

ITEMS = 40_000
READY = "document.documentElement.getAttribute('data-report-ready') === '1'"


def big_run(folder: Path) -> Path:
    """A G-Eval-shaped run of ``ITEMS`` items over 400 documents, written line by line."""
    folder.mkdir(parents=True)
    with (folder / "results.jsonl").open("w", encoding="utf-8") as handle:
        for i in range(ITEMS):
            record = rr.debate_record(i, human=1 + i % 5, scores=[1 + (i * 7) % 5], group=f"doc{i % 400}")
            record["protocol"] = "geval"
            record["transcript"][0]["content"] = f"Judge summary {i}. " + "The article says many things. " * 20
            handle.write(json.dumps(record) + "\n")
    return folder


def test_a_large_run_gets_a_sampled_page_and_a_sidecar(tmp_path: Path, isolated_env: Path) -> None:
    page = write_report([big_run(tmp_path / "run")], tmp_path / "report.html", with_texts=False)
    sidecar = page.with_name(page.name + SIDECAR_SUFFIX)
    assert page.stat().st_size < 5_000_000, page.stat().st_size  # a few MB, whatever the run's size
    full = json.loads(gzip.decompress(sidecar.read_bytes()))
    assert len(full["rows"]) == len(full["records"]) == ITEMS
    assert sorted(r["id"] for r in full["rows"]) == sorted(r["item_id"] for r in full["records"])
    html = page.read_text(encoding="utf-8")
    packed = html.split('id="report-records"', 1)[1].split(">", 1)[1].split("<", 1)[0]
    sample = unpack_records(packed)
    assert len(sample) == SAMPLE_ITEMS and len({r["item_id"] for r in sample}) == SAMPLE_ITEMS
    assert f"This page holds {SAMPLE_ITEMS:,} of the {ITEMS:,} items" in html
    # a smaller report into the same file removes the sidecar it no longer needs
    small = rr.write_run(tmp_path / "small", [rr.debate_record(i, 3, [3]) for i in range(5)])
    write_report([small], page, with_texts=False)
    assert not sidecar.exists()


@pytest.mark.browser
def test_a_large_runs_page_opens_and_loads_every_item(browser, tmp_path: Path, isolated_env: Path) -> None:
    page = write_report([big_run(tmp_path / "run")], tmp_path / "report.html", with_texts=False)
    browser.open(page)
    browser.wait_until(READY)
    assert browser.evaluate("document.querySelectorAll('#items-table tbody tr').length") == SAMPLE_ITEMS
    document = browser.call("DOM.getDocument", depth=-1)
    node = browser.call("DOM.querySelector", nodeId=document["root"]["nodeId"], selector="#items-file")
    sidecar = page.with_name(page.name + SIDECAR_SUFFIX)
    browser.call("DOM.setFileInputFiles", files=[str(sidecar)], nodeId=node["nodeId"])
    browser.wait_until(f"document.documentElement.getAttribute('data-items-loaded') === '{ITEMS}'")
    assert browser.evaluate("document.querySelectorAll('#items-table tbody tr').length") == ITEMS
    assert browser.errors() == []
