"""The report's Systems section: a run whose records name several systems shows, per dataset/aspect, the figures
``meta-eval --bootstrap`` computes for them (``tasks.analysis.systems``: per-system means with intervals, paired
differences with p, Holm p and wins/ties/losses, PPI rows, the system-level correlation; win rates of pairwise
runs); a run of one system has no such section. The browser test opens both pages in headless Chromium."""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path

import numpy as np
import pytest
import report_records as rr  # this folder (see conftest.py)

from debate_eval.tasks.analysis.meta_eval import load_results, meta_evaluate
from debate_eval.tasks.analysis.report import gather, plots, write_report
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


def labelled_systems_run(folder: Path, rated: int = 12) -> Path:
    """Three systems on 30 documents, the first ``rated`` documents carrying a human rating. Humans: A 4 or 5,
    B 2 or 3 and C 3 or 2 (B − C alternates −1, +1 document by document: no difference); the judge reads A and
    B right and over-rates C by one point (so the judge alone ranks C above B)."""
    records = []
    for doc in range(30):
        humans = {"A": 4.0 + (doc % 3 == 0), "B": 2.0 + doc % 2, "C": 3.0 - doc % 2}
        for index, system in enumerate(("A", "B", "C")):
            score = humans[system] + (system == "C")
            record = rr.debate_record(doc * 3 + index, humans[system], [score], group=f"doc{doc}")
            record.update(system_id=system, item_id=f"doc{doc}/{system}")
            record["human_score"] = humans[system] if doc < rated else None
            records.append(record)
    return rr.write_run(folder, records)


def test_enough_labels_draw_the_corrected_ranking_beside_the_judges(tmp_path: Path) -> None:
    ppi_py = pytest.importorskip("ppi_py", reason="the [ppi] extra")
    shown = html_lib.unescape(section(render(gather.load_runs([labelled_systems_run(tmp_path / "labelled")]))))
    judge = shown.index("judge only: systems by mean judge score: 95% CI and ranks</title>")
    corrected = shown.index("corrected with 36 human labels (PPI): systems by PPI mean, 95% CI and ranks</title>")
    judge_figure, ppi_figure = shown[judge:corrected], shown[corrected : shown.index("</svg>", corrected)]
    # ppi-python directly on system A's arrays: humans of the 12 rated documents, the judge on all 30
    humans = np.array([4.0 + (doc % 3 == 0) for doc in range(30)])
    mean = float(ppi_py.ppi_mean_pointestimate(humans[:12], humans[:12], humans[12:])[0])
    low, high = (
        float(np.ravel(bound)[0]) for bound in ppi_py.ppi_mean_ci(humans[:12], humans[:12], humans[12:], alpha=0.05)
    )
    assert f"A: {mean:.3f} [{low:.3f}, {high:.3f}]; ranks 1</title>" in ppi_figure
    # by hand: A is 1 to 3 points above B and C on every document (A ranks 1 on either scale); on the human
    # scale B − C is 0 (−1, +1 alternating): they share ranks 2–3; the judge, one point high on C, splits them
    assert re.findall(r"<title>(\w): [^<]*; ranks ([\d–]+)</title>", ppi_figure) == [
        ("A", "1"),
        ("B", "2–3"),
        ("C", "2–3"),
    ]
    assert re.findall(r"<title>(\w): [^<]*; ranks ([\d–]+)</title>", judge_figure) == [
        ("A", "1"),
        ("C", "2"),
        ("B", "3"),
    ]
    assert f'fill="{plots.HUMAN_COLOUR}" class="pt system"' in ppi_figure
    assert f'fill="{plots.PALETTE[0]}" class="pt system"' in judge_figure


def test_labels_given_with_the_report_draw_the_same_corrected_ranking(tmp_path: Path) -> None:
    pytest.importorskip("ppi_py", reason="the [ppi] extra")
    in_records = render(gather.load_runs([labelled_systems_run(tmp_path / "rated")]))
    run = labelled_systems_run(tmp_path / "unrated", rated=0)  # no rating in the records; the same 36 as labels
    ratings = {"A": lambda doc: 4 + (doc % 3 == 0), "B": lambda doc: 2 + doc % 2, "C": lambda doc: 3 - doc % 2}
    lines = [json.dumps({"item_id": f"doc{doc}/{name}", "rating": rate(doc)}) for doc in range(12)
             for name, rate in ratings.items()]  # fmt: skip
    (tmp_path / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = write_report([run], tmp_path / "r.html", labels=tmp_path / "labels.jsonl", with_texts=False)
    figure = re.compile(r"<svg[^>]*><title>corrected with 36 human labels \(PPI\).*?</svg>")
    assert figure.search(page.read_text(encoding="utf-8")).group() == figure.search(in_records).group()


def test_too_few_labels_draw_no_corrected_ranking_and_say_why(tmp_path: Path) -> None:
    pytest.importorskip("ppi_py", reason="the [ppi] extra")
    shown = section(render(gather.load_runs([labelled_systems_run(tmp_path / "few", rated=6)])))
    assert "PPI rank (ranks it can hold)" in shown  # the table keeps the PPI rank sets
    assert "corrected with" not in shown and "judge only:" not in shown
    assert "systems by mean judge score: 95% CI and ranks</title>" in shown
    assert "No corrected (PPI) ranking figure: it needs a PPI interval from at least 10 rated outputs" in shown
    assert "rated outputs here: A 6 (too few" in shown


def test_without_labels_no_corrected_ranking(tmp_path: Path) -> None:
    shown = section(render(gather.load_runs([labelled_systems_run(tmp_path / "none", rated=0)])))
    assert "ranks</title>" in shown and "PPI" not in shown and "judge only" not in shown


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
