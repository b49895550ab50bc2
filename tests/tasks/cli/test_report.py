"""``debate-eval report`` end to end: scripted runs (DEBATE, G-Eval, ChatEval) written by ``run``, then the
page, for one run and for several side by side."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.demo_runs import make_runs

from debate_eval.tasks.analysis.report.page import unpack_records
from debate_eval.tasks.cli.main import main


def page_records(html: str) -> list[dict]:
    match = re.search(r'<script type="application/octet-stream" id="report-records">(.*?)</script>', html, re.S)
    assert match
    return unpack_records(match.group(1))


@pytest.fixture(scope="module")
def scripted_runs(tmp_path_factory: pytest.TempPathFactory, shared_data_dir: Path) -> list[Path]:
    folder = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))
        patch.setenv("DEBATE_EVAL_CACHE_DIR", str(folder / "cache"))
        return make_runs(folder, docs=1)


def test_report_of_one_scripted_debate_run(scripted_runs: list[Path], tmp_path: Path, capsys) -> None:
    debate = scripted_runs[0]
    out = tmp_path / "r.html"
    assert main(["report", str(debate), "--out", str(out)]) == 0
    assert "report:" in capsys.readouterr().out
    html = out.read_text(encoding="utf-8")
    records = page_records(html)
    on_disk = [json.loads(line) for line in (debate / "results.jsonl").read_text().splitlines()]
    assert len(records) == len(on_disk) == 16
    assert records[0]["transcript"] == on_disk[0]["transcript"]  # transcripts travel whole
    assert "summeval/coherence" in html and "DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4), not this run" in html
    assert "Scorer after each Critic round" in html and "predicted vs human" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)|url\(|@import""", html)  # nothing to fetch


def test_scorer_moves_plot_only_for_runs_with_a_critic(scripted_runs: list[Path], tmp_path: Path) -> None:
    """The Scorer-moves plot follows the transcripts (a Critic's turns), not a list of method names."""
    for run, expected in zip(scripted_runs, (True, False, False), strict=True):  # debate, geval, chateval
        out = tmp_path / f"{run.name}.html"
        assert main(["report", str(run), "--out", str(out)]) == 0
        assert ("Scorer after each Critic round" in out.read_text(encoding="utf-8")) is expected, run.name


def test_report_of_three_runs_side_by_side(scripted_runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "sub" / "cmp.html"
    assert main(["report", *map(str, scripted_runs), "--out", str(out), "--title", "three <b>runs</b>"]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<title>three &lt;b&gt;runs&lt;/b&gt;</title>" in html
    assert "16 items are in all 3 single-score runs" in html and "Side by side" in html
    assert {r["method"] for r in page_records(html)} == {"debate", "geval", "chateval"}
    assert "ChatEval" in html and "G-Eval-4" in html


def test_report_refuses_a_missing_run_in_one_line(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such run directory" in err[0]
    assert not (tmp_path / "r.html").exists()


def _varied_run(folder: Path, groups: int = 14) -> Path:
    """A DEBATE-shaped run over ``groups`` documents of 4 summaries with seeded scores (enough groups for
    intervals under the minimum-units rule, scores that vary so the two interval methods differ)."""
    import random

    rng = random.Random(7)
    records = []
    for i in range(4 * groups):
        record = {"item_id": f"d{i // 4}/S{i}", "dataset": "summeval", "aspect": "coherence", "protocol": "debate",
                  "group_id": f"d{i // 4}", "system_id": f"S{i}", "score": float(rng.randint(1, 5)),
                  "human_score": float(rng.randint(1, 5)), "parse_status": "parsed", "transcript": []}  # fmt: skip
        records.append(record)
    folder.mkdir(parents=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def _interval(values: list[float]) -> str:
    return f"[{values[0]:.3f}, {values[1]:.3f}]"


def test_report_ci_method_gives_meta_evals_intervals_and_names_the_method(tmp_path: Path, capsys) -> None:
    run = _varied_run(tmp_path / "run")
    printed = {}
    for method in ("percentile", "bca"):
        capsys.readouterr()
        assert main(["meta-eval", str(run), "--json", "--ci-method", method]) == 0
        printed[method] = json.loads(capsys.readouterr().out)["summeval"]["coherence"]["ci95"]
    wanted = {method: [_interval(printed[method][s]) for s in ("spearman", "kendall")] for method in printed}
    assert wanted["bca"] != wanted["percentile"]  # else the test could not tell the methods apart
    for method in ("percentile", "bca"):
        out = tmp_path / f"{method}.html"
        assert main(["report", str(run), "--out", str(out), "--ci-method", method]) == 0
        html = out.read_text(encoding="utf-8")
        shown = re.findall(r"<span class='ci'>(\[[^<]*\])</span>", html)
        other = "bca" if method == "percentile" else "percentile"
        assert shown == wanted[method] and shown != wanted[other]
        assert f"Intervals: {method} bootstrap over groups" in html


def test_report_refuses_an_unknown_ci_method(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["report", str(tmp_path), "--ci-method", "basic"])
    assert raised.value.code == 2 and "invalid choice: 'basic'" in capsys.readouterr().err


def test_report_out_replaces_only_a_report_page(tmp_path: Path, capsys) -> None:
    """An existing --out that is not a report page (a data file, a folder) is kept and refused in one line; an
    earlier report page is replaced."""
    run = _varied_run(tmp_path / "run", groups=3)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"item_id": "x", "score": 1}\n', encoding="utf-8")
    folder = tmp_path / "folder.html"
    folder.mkdir()
    for target in (rows, folder):
        assert main(["report", str(run), "--out", str(target), "--no-texts"]) == 2
        err = capsys.readouterr().err
        assert err == (
            f"debate-eval: error: --out {target}: already exists and is not a report page written by debate-eval "
            "report; give another --out (or move that file away)\n"
        )
    assert rows.read_text(encoding="utf-8") == '{"item_id": "x", "score": 1}\n' and folder.is_dir()
    page = tmp_path / "page.html"
    assert main(["report", str(run), "--out", str(page), "--no-texts", "--title", "first"]) == 0
    assert main(["report", str(run), "--out", str(page), "--no-texts", "--title", "second"]) == 0
    html = page.read_text(encoding="utf-8")
    assert "<title>second</title>" in html and "<title>first</title>" not in html
