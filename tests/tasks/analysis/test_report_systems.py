"""The report's Systems section: a run whose records name several systems shows, per dataset/aspect, the figures
``meta-eval --bootstrap`` computes for them (``tasks.analysis.systems``: per-system means with intervals, paired
differences with p, Holm p and wins/ties/losses, PPI rows, the system-level correlation; win rates of pairwise
runs); a run of one system has no such section. The browser test opens both pages in headless Chromium."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest
import report_records as rr  # this folder (see conftest.py)

from debate_eval.tasks.analysis.meta_eval import load_results, meta_evaluate
from debate_eval.tasks.analysis.report import gather, write_report
from debate_eval.tasks.analysis.report.page import render
from debate_eval.tasks.analysis.report.run_card import fmt

SYSTEMS = ("alpha", "beta", "gamma")
READY = "document.documentElement.getAttribute('data-report-ready') === '1'"


def systems_run(folder: Path, rated_every: int = 1) -> Path:
    """Three systems judged on the same 12 documents (beta a point above alpha on most; gamma between)."""
    records = []
    for doc in range(12):
        for index, system in enumerate(SYSTEMS):
            score = float(1 + (doc + 2 * index + (doc % 3 == 0)) % 5)
            record = rr.debate_record(doc * 3 + index, float(1 + (doc + index) % 5), [score], group=f"doc{doc}")
            record.update(system_id=system, item_id=f"doc{doc}/{system}")
            if (doc * 3 + index) % rated_every:
                record["human_score"] = None
            records.append(record)
    return rr.write_run(folder, records)


def one_system_run(folder: Path) -> Path:
    records = [rr.debate_record(i, float(1 + i % 5), [float(1 + i % 3)], group=f"doc{i // 3}") for i in range(12)]
    for record in records:
        record["system_id"] = "only"
    return rr.write_run(folder, records)


def section(page: str) -> str:
    start = page.index("<section id='systems'")
    return page[start : page.index("</section>", start)]


def test_the_systems_section_shows_meta_evals_figures(tmp_path: Path) -> None:
    folder = systems_run(tmp_path / "systems")
    page = render(gather.load_runs([folder]))
    shown = html_lib.unescape(section(page))
    (entry,) = meta_evaluate(load_results([folder / "results.jsonl"]), bootstrap=1000)["summeval"].values()
    block = entry.systems
    assert [p["first"] + " − " + p["second"] for p in block["pairs"]] == [
        "alpha − beta",
        "alpha − gamma",
        "beta − gamma",
    ]
    for name, figures in block["systems"].items():
        low, high = figures["ci95"]
        assert f"<th>{name}</th><td>12</td><td>12</td><td>{fmt(figures['mean'])} [{fmt(low)}, {fmt(high)}]" in (
            re.sub(r" <span class='ci sys'>", " ", shown).replace("</span>", "")
        )
    for pair in block["pairs"]:
        row = shown[shown.index(f"<th>{pair['first']} − {pair['second']}</th>") :].split("</tr>", 1)[0]
        assert f"{pair['difference']:+.3f}" in row and f"{pair['p_holm']:.3g}" in row
        assert f"{pair['wins']}/{pair['ties']}/{pair['losses']}" in row
    level = entry.system_level
    assert f"over {level['n_groups']} groups" in shown and f"τ {fmt(level['kendall'])}" in shown
    assert '<a href="#systems">Systems</a>' in page
    for name, rank in block["ranks"].items():  # the rank column and the figure's rank sets
        low, high = rank["rank_set"]
        held = f"{low}" if low == high else f"{low}–{high}"
        row = shown[shown.index(f"<th>{name}</th><td>12</td>") :].split("</tr>", 1)[0]
        assert f"<td>{rank['rank']} ({held})</td>" in row
        assert f"{name}: {fmt(rank['mean'])}" in shown and f"ranks {held}</title>" in shown
    assert "systems by mean judge score: 95% CI and ranks" in shown and block["family"] in shown


def test_partly_rated_systems_get_ppi_rows(tmp_path: Path) -> None:
    page = render(gather.load_runs([systems_run(tmp_path / "partly", rated_every=2)]))
    shown = section(page)
    assert "human scale: PPI" in shown and "prediction-powered inference" in shown
    assert "PPI rank (ranks it can hold)" in shown and "human scale: PPI difference (95% CI), Holm p" in shown


def test_pairwise_systems_get_win_rates(tmp_path: Path) -> None:
    records = []
    for i, verdict in enumerate(["first", "second", "first", "tie", "first", "second"]):
        record = rr.pairwise_record(i, "first", verdict, None)
        record.update(system_a="alpha" if i % 2 else "beta", system_b="beta" if i % 2 else "alpha")
        records.append(record)
    shown = html_lib.unescape(section(render(gather.load_runs([rr.write_run(tmp_path / "pw", records)]))))
    (entry,) = meta_evaluate(load_results([tmp_path / "pw" / "results.jsonl"]), bootstrap=1000)["faireval"].values()
    for name, figures in entry.systems["systems"].items():
        assert f"<th>{name}</th><td>{figures['comparisons']}</td><td>{fmt(figures['win_rate'])}" in shown


def test_one_system_has_no_systems_section(tmp_path: Path) -> None:
    page = render(gather.load_runs([one_system_run(tmp_path / "one")]))
    assert "id='systems'" not in page and "#systems" not in page


@pytest.mark.browser
def test_the_systems_section_in_chromium(browser, tmp_path: Path, isolated_env: Path) -> None:
    several = write_report([systems_run(tmp_path / "systems")], tmp_path / "systems.html", with_texts=False)
    browser.open(several)
    browser.wait_until(READY)
    assert browser.evaluate("document.getElementById('systems') !== null")
    text = browser.evaluate("document.getElementById('systems').textContent")
    assert all(name in text for name in SYSTEMS) and "Holm p" in text and "System level" in text
    assert browser.evaluate("document.querySelectorAll('#systems table.pairs tr').length") == 1 + 3
    assert browser.evaluate("document.querySelectorAll('#systems svg circle.system').length") == 3
    assert browser.evaluate("document.querySelectorAll('#systems svg .rank-set').length") == 3
    assert browser.evaluate("document.querySelector('nav a[href=\"#systems\"]') !== null")
    assert browser.errors() == []
    single = write_report([one_system_run(tmp_path / "one")], tmp_path / "one.html", with_texts=False)
    browser.open(single)
    browser.wait_until(READY)
    assert browser.evaluate("document.getElementById('systems') === null")
    assert browser.evaluate("document.querySelector('nav a[href=\"#systems\"]') === null")
    assert browser.errors() == []
