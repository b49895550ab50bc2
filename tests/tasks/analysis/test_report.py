"""The report's numbers, page assembly and escaping, on hand-made records (no model, no browser)."""

from __future__ import annotations

import html as html_lib
import json
import random
import re
from pathlib import Path

import pytest
import report_records as rr  # this folder (see conftest.py)

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import CI_METHODS
from debate_eval.tasks.analysis.meta_eval import load_results, meta_evaluate
from debate_eval.tasks.analysis.report import gather, numbers, write_report
from debate_eval.tasks.analysis.report.page import page_data, render, safe_json, unpack_records
from debate_eval.tasks.engine.record import Record


def embedded_records(html: str) -> list[dict]:
    match = re.search(r'<script type="application/octet-stream" id="report-records">(.*?)</script>', html, re.S)
    assert match
    return unpack_records(match.group(1))


def test_safe_json_cannot_end_its_script_and_round_trips() -> None:
    value = {"text": "</script><!-- <script>alert(1)</script> & \u2028 \u2029"}
    text = safe_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_hostile_text_is_escaped_everywhere(tmp_path: Path) -> None:
    config = {"result_config": {"debate": {"critic": {"text": rr.PAYLOAD}}, "models": {}}}
    run = rr.write_run(tmp_path / "run", [rr.hostile_record(), rr.debate_record(2, 2.0, [2.0])], config)
    html = render(gather.load_runs([run]))
    # Only the page's own three script elements: the table data, the packed records and the code.
    assert html.count("<script") == 3 and html.count("</script") == 3
    outside_data = re.sub(r'<script type="application/json" id="report-data">.*?</script>', "", html, flags=re.S)
    assert "<img" not in outside_data and "window.__pwned" in outside_data  # present, but only as text
    assert "&lt;script&gt;window.__pwned" in html  # the settings and the scatter's hover text, escaped
    assert embedded_records(html)[0]["inputs"]["output"] == f"Summary {rr.PAYLOAD}"  # the data itself is intact
    csp = html_lib.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1))
    assert "script-src 'sha256-" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp


def test_placeholders_in_run_text_stay_literal(tmp_path: Path) -> None:
    config = {"result_config": {"debate": {"note": "{{data}} {{script}}"}, "models": {}}}
    run = rr.write_run(tmp_path / "run", [rr.debate_record(1, 2.0, [3.0])], config)
    html = render(gather.load_runs([run]))
    assert "{{data}} {{script}}" in html and html.count('id="report-data"') == 1


def test_scorer_moves_towards_and_away_from_the_human_score() -> None:
    records = [
        rr.debate_record(1, 2.0, [4.0, 3.0, 3.0]),  # towards, then unchanged
        rr.debate_record(2, 2.0, [2.0, 4.0, None]),  # away, then no score
        rr.debate_record(3, 3.0, [2.0, 4.0]),  # same distance
    ]
    assert numbers.scorer_moves([Record.from_json(r) for r in records]) == [
        {"towards": 1, "away": 1, "same distance": 1},
        {"unchanged": 1, "no score": 1},
    ]


def test_a_reasked_answer_is_the_same_round() -> None:
    record = rr.debate_record(1, 2.0, [4.0, None])
    record["transcript"] += [
        rr.message("Commander", "commander", "Your score alone?", "Scorer", "reask"),
        rr.scorer(3.0),
    ]
    assert numbers.scorer_scores(Record.from_json(record)) == [4.0, 3.0]
    assert numbers.scorer_moves([Record.from_json(record)]) == [{"towards": 1}]


def _grouped(protocol: str, groups: int, **fields: object) -> list[dict]:
    records = [
        rr.debate_record(i, float(1 + i % 5), [float(1 + (i * 3) % 5)], group=f"d{i // 4}") for i in range(4 * groups)
    ]
    return [{**r, "protocol": protocol, **fields} for r in records]


def test_meta_eval_rows_use_statistics_with_intervals_and_label_the_paper(tmp_path: Path) -> None:
    run = gather.load_runs([rr.write_run(tmp_path / "run", _grouped("debate", 12))])[0]
    (row,) = numbers.meta_eval_rows(run, resamples=200)
    assert row["paper_label"] == "DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4)"
    assert row["n_items"] == 48 and row["n_groups"] + row["n_skipped"] == 12
    rho = row["cells"][0]
    assert rho["statistic"] == "spearman" and rho["paper"] == 0.610
    assert rho["value"] is not None and rho["ci"][0] <= rho["value"] <= rho["ci"][1]
    html = render([run])
    assert "DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4), not this run" in html


@pytest.mark.parametrize(
    ("protocol", "label", "rho"),
    [
        ("geval", "G-Eval (Liu et al. 2023) Table 1, row G-Eval-4 (GPT-4)", 0.582),
        ("chateval", "DEBATE (Kim et al. 2024) Table 1, row ChatEval (GPT-4)", 0.477),
        ("multiagent", "DEBATE (Kim et al. 2024) Table 1, row MultiAgent (GPT-4)", 0.486),
    ],
)
def test_the_report_sets_each_method_beside_its_own_paper_row(
    tmp_path: Path, protocol: str, label: str, rho: float
) -> None:
    run = gather.load_runs([rr.write_run(tmp_path / "run", _grouped(protocol, 3))])[0]
    (row,) = numbers.meta_eval_rows(run, resamples=0)
    assert row["paper_label"] == label and row["cells"][0]["paper"] == rho
    assert f"{label}, not this run" in render([run])


def test_an_imported_run_has_no_paper_row_in_the_report(tmp_path: Path) -> None:
    run = gather.load_runs([rr.write_run(tmp_path / "run", _grouped("geval", 3, imported={"format": "geval"}))])[0]
    (row,) = numbers.meta_eval_rows(run, resamples=0)
    assert row["paper_label"] is None and all(cell["paper"] is None for cell in row["cells"])
    assert "no paper number: imported run" in render([run])


def test_two_documents_show_no_numeric_interval_in_the_report(tmp_path: Path) -> None:
    run = gather.load_runs([rr.write_run(tmp_path / "run", _grouped("debate", 2))])[0]
    (row,) = numbers.meta_eval_rows(run)
    assert [cell["ci"] for cell in row["cells"]] == ["too few groups (n=2)"] * 2
    html = render([run])
    card = html[html.index("class='meta'") : html.index("</table>", html.index("class='meta'"))]
    assert card.count("too few groups (n=2)") == 2 and "class='ci'>[" not in card


def test_pairwise_confusion_metrics_and_rows(tmp_path: Path) -> None:
    records = [
        rr.pairwise_record(1, "first", "first", True),
        rr.pairwise_record(2, "first", "second", False),
        rr.pairwise_record(3, "second", "second", True),
        rr.pairwise_record(4, "tie", None, None),
    ]
    run = gather.load_runs([rr.write_run(tmp_path / "pw", records)])[0]
    assert run.task_type == "pairwise"
    assert numbers.confusion(run.records) == {"first": {"first": 1, "second": 1}, "second": {"second": 1},
                                              "tie": {"none": 1}}  # fmt: skip
    assert numbers.order_agreement(run.records) == {"first": {"first": 1}, "second": {"second": 1, "first": 1},
                                                     "tie": {}, "none": {"none": 1}}  # fmt: skip
    (metrics,) = numbers.pairwise_rows(run, resamples=0)
    assert metrics["accuracy"] == pytest.approx(2 / 3) and metrics["consistency"] == pytest.approx(2 / 3)
    rows = page_data([run])["rows"]
    assert [r["agreed"] for r in rows] == [True, False, True, None] and rows[1]["err"] == 1.0
    html = render([run])
    assert (
        "verdicts vs human labels" in html
        and "consistency (95% CI)" in html
        and "ChatEval (Chan et al. 2023), Table 1" in html
    )


def test_two_runs_side_by_side_count_the_closer_run(tmp_path: Path) -> None:
    a = rr.write_run(tmp_path / "a", [rr.debate_record(1, 2.0, [2.0]), rr.debate_record(2, 4.0, [1.0])])
    b = rr.write_run(tmp_path / "b", [rr.debate_record(1, 2.0, [3.0]), rr.debate_record(2, 4.0, [4.0]),
                                      rr.debate_record(3, 4.0, [4.0])])  # fmt: skip
    runs = gather.load_runs([a, b])
    assert [run.label for run in runs] == ["debate (a)", "debate (b)"]
    html = render(runs)
    section = html[html.index("id='compare'") :]
    assert "2 items are in all 2 single-score runs" in section
    counts = re.search(r"<tr><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>", section).groups()
    assert counts == ("1", "1", "0", "0")  # a closer on item 1, b on item 2, no tie, none without a score


def test_chateval_and_fennec_details_reach_the_page(tmp_path: Path) -> None:
    chat = rr.write_run(tmp_path / "chat", [rr.chateval_record(1, 3.0)])
    fennec = rr.write_run(tmp_path / "fennec", [rr.fennec_record(1, 3.0)])
    data = page_data(gather.load_runs([chat, fennec]))
    assert data["records"][0]["details"]["referees"]["Critic"] == "critic"
    assert len(data["records"][1]["details"]["branches"]) == 3
    assert [run["method"] for run in data["runs"]] == ["chateval", "fennec"]


def test_bad_input_gives_one_line_naming_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "results.jsonl").write_text('{"item_id": "a", "dataset": "d", "aspect": "x"}\nnot json\n{}\n')
    with pytest.raises(UserError, match=r"results.jsonl: line 2 is not valid JSON"):
        gather.load_runs([folder])
    (folder / "results.jsonl").write_text('{"item_id": "a", "dataset": "d", "aspect": "x"}\n{"score": 3}\n')
    with pytest.raises(UserError, match=r"line 2 \(counted from 1\) has no item_id"):
        gather.load_runs([folder])
    (folder / "results.jsonl").write_text('{"item_id": "a", "dataset": "d", "aspect": "x", "score": "high"}\n')
    with pytest.raises(UserError, match=r"line 1 \(counted from 1\): score must be a number or null, not 'high'"):
        gather.load_runs([folder])  # the one record validator (as resume and meta-eval), not a traceback
    with pytest.raises(UserError, match="no such run directory"):
        write_report([tmp_path / "missing"], tmp_path / "r.html")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match=r"no results\.jsonl"):
        gather.load_runs([tmp_path / "empty"])


def test_a_failed_item_is_a_row_with_its_error(tmp_path: Path) -> None:
    failed = rr.debate_record(2, 3.0, [4.0])
    failed.update(score=None, parse_status=None, error="RateLimitError: 429 after 5 retries", transcript=[])
    run = gather.load_runs([rr.write_run(tmp_path / "run", [rr.debate_record(1, 2.0, [2.0]), failed])])[0]
    rows = page_data([run])["rows"]
    assert [row["parse"] for row in rows] == ["parsed", "failed"] and rows[1]["err"] is None
    assert numbers.totals(run)["failed"] == 1 and "1 failed" in render([run])


def test_each_aspect_gets_its_own_plots_and_item_level_sets_say_so(tmp_path: Path) -> None:
    coherence = [rr.debate_record(i, float(1 + i % 5), [float(1 + (i * 2) % 5)]) for i in range(6)]
    grounded = [{**rr.debate_record(i, float(i % 2), [float((i + 1) % 2)]), "aspect": "groundedness"} for i in range(6)]
    fed = [{**rr.debate_record(i, float(i % 3), [float(i % 2)]), "dataset": "fed_turn", "aspect": "overall",
            "group_id": f"t{i}"} for i in range(6)]  # fmt: skip
    run = gather.load_runs([rr.write_run(tmp_path / "run", coherence + grounded + fed)])[0]
    html = render([run])
    for part in ("summeval/coherence", "summeval/groundedness", "fed_turn/overall"):
        assert f"debate: predicted vs human · {part}" in html and f"score distribution (% of scores) · {part}" in html
    assert "<td>item level</td>" in html


def test_judged_texts_come_from_the_dataset_only_when_the_prompts_hold_them(tmp_path: Path) -> None:
    from debate_eval.tasks.data.datasets import load_items

    item = load_items("summeval")[0]
    record = rr.debate_record(1, 3.0, [3.0])
    record["item_id"] = item.item_id
    record["transcript"][0]["content"] = "Judge: " + " ".join(str(v) for v in item.inputs.values())
    other = {**rr.debate_record(2, 3.0, [3.0]), "item_id": item.item_id, "aspect": "fluency"}  # prompt lacks them
    runs = gather.load_runs([rr.write_run(tmp_path / "run", [record, other])])
    assert gather.attach_inputs(runs) == []
    first, second = runs[0].records
    assert first.inputs == dict(item.inputs) and first.extra["inputs_source"] == "dataset"
    assert second.inputs is None


def test_odd_records_of_unknown_methods_still_render(tmp_path: Path) -> None:
    run = gather.load_runs([rr.write_run(tmp_path / "odd", [rr.odd_record(), rr.debate_record(1, 2.0, [3.0])])])
    html = render(run)
    assert "newmethod+debate" in html or "debate+newmethod" in html
    row = page_data(run)["rows"][0]
    assert row["score"] is None and row["rounds"] is None and row["agreed"] is None and row["tokens"] == 0


def test_the_same_items_in_two_languages_line_up_side_by_side(tmp_path: Path) -> None:
    def fed(language: str, score: float) -> dict:
        return {**rr.debate_record(1, 3.0, [score]), "dataset": f"xdial_fed_turn-{language}", "aspect": "overall"}

    english = rr.write_run(tmp_path / "english", [fed("english", 3.0)])
    chinese = rr.write_run(tmp_path / "chinese", [fed("chinese", 1.0)])
    own = rr.write_run(tmp_path / "own", [{**fed("x", 2.0), "dataset": "my-file.csv"}])
    html = render(gather.load_runs([english, chinese, own]))
    assert "1 items are in all 3 single-score runs" not in html  # an own file with a dash is not a variant
    html = render(gather.load_runs([english, chinese]))
    assert "1 items are in all 2 single-score runs" in html


def test_report_rows_equal_meta_eval_for_each_ci_method(tmp_path: Path) -> None:
    rng = random.Random(7)
    records = [
        rr.debate_record(i, float(rng.randint(1, 5)), [float(rng.randint(1, 5))], group=f"d{i // 4}") for i in range(56)
    ]
    folder = rr.write_run(tmp_path / "run", records)
    run = gather.load_runs([folder])[0]
    intervals = {}
    for method in CI_METHODS:
        report = meta_evaluate(load_results([folder / "results.jsonl"]), 300, ci_method=method)
        (expected,) = report["summeval"].values()
        ci95 = expected.ci95
        (row,) = numbers.meta_eval_rows(run, resamples=300, ci_method=method)
        intervals[method] = [cell["ci"] for cell in row["cells"]]
        assert intervals[method] == [list(ci95[cell["statistic"]]) for cell in row["cells"]]
    assert intervals["bca"] != intervals["percentile"]
