"""The ``meta-eval`` command."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from debate_eval.tasks.cli import meta_eval

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))  # the analysis tests' record factories
from analysis_factories import group, write_jsonl
from constructed_cases import copy_and_abstain, small_gain, two_documents, write_all, write_run


def _run_command(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    status, out, _err = _run_with_stderr(argv, capsys)
    return status, out


def _run_with_stderr(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    meta_eval.add_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    status = args.handler(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_command_prints_table_json_and_distribution(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5]))
    status, out = _run_command(["meta-eval", str(path)], capsys)
    assert status == 0
    assert "summeval/coherence" in out
    assert "0.610" in out
    status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    assert status == 0
    assert json.loads(out)["summeval"]["coherence"]["spearman"] == pytest.approx(1.0)
    status, out = _run_command(["meta-eval", str(tmp_path), "--distribution"], capsys)
    assert status == 0
    assert "summeval/average" in out
    assert "Score distribution" in out


def _ten_groups(**kwargs: object) -> list[dict]:
    """Ten documents (the minimum for an interval), half ranked right and half reversed."""
    return [r for d in range(10) for r in group(f"d{d}", [1, 2, 3], [1, 2, 3] if d % 2 else [3, 2, 1], **kwargs)]


def test_json_has_ci95_per_dataset_and_aspect(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", _ten_groups())
    status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    assert status == 0
    ci95 = json.loads(out)["summeval"]["coherence"]["ci95"]
    assert set(ci95) == {"spearman", "kendall", "pearson"}
    low, high = ci95["spearman"]
    assert -1.0 <= low < 0.0 < high <= 1.0  # groups at +1 and -1
    status, out = _run_command(["meta-eval", str(path), "--json", "--bootstrap", "0"], capsys)
    assert json.loads(out)["summeval"]["coherence"]["ci95"] is None
    status, out = _run_command(["meta-eval", str(path), "--json", "--ci-method", "bca"], capsys)
    assert status == 0 and isinstance(json.loads(out)["summeval"]["coherence"]["ci95"]["spearman"], list)


def test_table_shows_intervals_and_published_tables(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5]))
    status, out = _run_command(["meta-eval", str(path), "--reference"], capsys)
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("summeval/coherence "))
    assert "0.610" in row  # the DEBATE row beside a debate run
    assert "Published numbers" in out
    assert "G-Eval (Liu et al. 2023), Table 1: summeval, summary level" in out
    assert "0.582" in out
    assert "DEBATE (Kim et al. 2024), Table 1: summeval" in out
    assert "DEBATE (Kim et al. 2024), Table 3: summeval" in out and "Sophisticated" in out
    assert "ChatEval (Chan" not in out  # ChatEval's own tables are on Topical-Chat and FairEval only
    assert "0.610" in out.split("Published numbers")[1]  # printed with the paper's decimals
    status, out = _run_command(["meta-eval", str(path), "--reference", "ChatEval"], capsys)
    assert "row ChatEval (GPT-4)" in out and "0.477" in out
    assert "Published numbers" not in out
    status, out = _run_command(["meta-eval", str(path), "--reference", "none", "--bootstrap", "0"], capsys)
    row = next(line for line in out.splitlines() if line.startswith("summeval/coherence "))
    assert row.split()[-2:] == ["-", "-"] and "paper for [debate]: none (not asked" in out


@pytest.mark.parametrize(
    ("protocol", "row_name", "values"),
    [
        ("geval", "G-Eval (Liu et al. 2023) Table 1, row G-Eval-4 (GPT-4)", ["0.582", "0.457"]),
        ("chateval", "DEBATE (Kim et al. 2024) Table 1, row ChatEval (GPT-4)", ["0.477", "0.412"]),
        ("debate", "DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4)", ["0.610", "0.588"]),
    ],
)
def test_each_method_is_set_beside_its_own_paper(
    tmp_path: Path, capsys: pytest.CaptureFixture, protocol: str, row_name: str, values: list[str]
) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5], protocol=protocol))
    _status, out = _run_command(["meta-eval", str(path), "--bootstrap", "0"], capsys)
    assert f"paper for [{protocol}]: {row_name}, NOT this run" in out
    row = next(line for line in out.splitlines() if line.startswith("summeval/coherence"))
    assert row.split()[-2:] == values
    _status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    paper = json.loads(out)["summeval"]["coherence"]["paper"]["per-group"]
    assert f"{paper['paper']} {paper['table']}, row {paper['row']}" == row_name


def test_chateval_on_topical_chat_shows_chatevals_table_2_pooled(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    records = [
        r
        for c in range(10)
        for r in group(f"c{c}", [1, 2, 3, 2, 1, 3], [1, 2, 3, 3, 1, 2], dataset="topical_chat", protocol="chateval")
    ]
    path = write_jsonl(tmp_path / "results.jsonl", records)
    _status, out = _run_command(["meta-eval", str(path)], capsys)
    pooled = next(line for line in out.splitlines() if line.startswith("topical_chat/coherence (pooled)"))
    assert pooled.split()[8:10] == ["0.619", "0.561"]  # ChatEval Table 2, GPT-4(MA), coherence rho / tau
    assert "ChatEval (Chan et al. 2023) Table 2, row GPT-4(MA), NOT this run" in out
    assert pooled.count("[") == 2  # the pooled definition has its interval


def test_an_imported_run_gets_no_paper_row_unless_asked(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    records = [{**r, "imported": {"format": "geval", "file": "x.json", "row": i + 1}} for i, r in
               enumerate(group("d1", [1, 2, 3, 4], [2, 3, 4, 5], protocol="geval"))]  # fmt: skip
    path = write_jsonl(tmp_path / "results.jsonl", records)
    _status, out = _run_command(["meta-eval", str(path), "--bootstrap", "0"], capsys)
    assert "paper for [geval]: none (imported run" in out
    assert next(line for line in out.splitlines() if line.startswith("summeval/coherence")).split()[-2:] == ["-", "-"]
    _status, out = _run_command(["meta-eval", str(path), "--reference", "geval", "--bootstrap", "0"], capsys)
    assert next(line for line in out.splitlines() if line.startswith("summeval/coherence")).split()[-2:] == [
        "0.582",
        "0.457",
    ]


def test_dialevalml_on_fed_says_why_there_is_no_paper_number(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    records = [
        {**r, "group_id": r["item_id"]}
        for r in group("t", [1, 2, 3, 2], [1, 3, 3, 2], dataset="fed_turn", aspect="relevant", protocol="dialevalml")
    ]
    path = write_jsonl(tmp_path / "results.jsonl", records)
    _status, out = _run_command(["meta-eval", str(path)], capsys)
    assert "DialEvalML's paper reports no FED numbers" in out


def test_pairwise_run_table_and_reference(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    labels = ["first", "second", "tie", "first"]
    records = [
        {
            "item_id": f"q{i}",
            "dataset": "faireval",
            "aspect": "preference",
            "task_type": "pairwise",
            "verdict": "first",
            "human_label": h,
        }
        for i, h in enumerate(labels)
    ]
    path = write_jsonl(tmp_path / "results.jsonl", records)
    _status, out = _run_command(["meta-eval", str(path), "--reference"], capsys)
    row = next(line for line in out.splitlines() if line.startswith("faireval/preference"))
    assert row.split()[1:5] == ["4", "0", "0", "0.500"]  # items, missing, unlabelled, accuracy
    assert row.endswith("too few items (n=4)")
    assert "ChatEval (Chan et al. 2023), Table 1: faireval, item level, pairwise" in out
    assert "63.8" in out
    _status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    entry = json.loads(out)["faireval"]["preference"]
    assert (entry["accuracy"], entry["kappa"], entry["task_type"]) == (0.5, 0.0, "pairwise")
    assert entry["ci95"] == "too few items (n=4)"
    path = write_jsonl(tmp_path / "results.jsonl", records * 3)
    for i, record in enumerate(records * 3):
        record["item_id"] = f"q{i}"
    path = write_jsonl(tmp_path / "results.jsonl", [{**r, "item_id": f"q{i}"} for i, r in enumerate(records * 3)])
    _status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    ci95 = json.loads(out)["faireval"]["preference"]["ci95"]
    assert set(ci95) == {"accuracy", "kappa", "macro_f1", "consistency", "agreement"}


def test_compare_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    humans = [1, 2, 3, 4, 5]
    orders = ([3, 1, 4, 2, 5], [1, 4, 2, 5, 3])
    run_a = [r for d in range(12) for r in group(f"d{d}", humans, orders[d % 2])]
    run_b = [r for d in range(12) for r in group(f"d{d}", humans, humans)]
    a = write_jsonl(tmp_path / "a.jsonl", run_a)
    (tmp_path / "b").mkdir()
    b = write_jsonl(tmp_path / "b" / "results.jsonl", run_b)
    status, out = _run_command(["meta-eval", str(a), str(tmp_path / "b"), "--compare", "--bootstrap", "200"], capsys)
    assert status == 0
    assert "B - A" in out
    assert str(b) in out
    assert "60 items in both runs (only A: 0, only B: 0)" in out
    assert "used: 12 groups (60 items); left out: nothing" in out
    spearman_line = next(line for line in out.splitlines() if line.strip().startswith("spearman"))
    _, value_a, value_b, delta, _low, _high, p, p_t, p_holm = spearman_line.split()
    assert float(value_b) == 1.0
    assert float(delta) == pytest.approx(1.0 - float(value_a), abs=1e-3)
    assert p == "<=0.00995"  # no resample of 200 reached 0: p is at its bound 2/201, never 0
    # the t-test on 12 per-document differences (two values, both positive) is far below 0.001: scientific form
    assert p_t == "<1e-15" or "e-" in p_t
    assert p_holm != "-" and "p Holm: the reported p" in out and "family of all 3 printed above" in out
    status, out = _run_command(["meta-eval", str(a), str(b), "--compare", "--json"], capsys)
    (entry,) = json.loads(out)
    assert (entry["n_shared"], entry["n_used"], entry["unit"]) == (60, 12, "groups")
    assert entry["differences"]["spearman"]["ci95"][0] > 0
    assert entry["differences"]["spearman"]["p_value"] == pytest.approx(2 / 1001)


def test_compare_needs_two_runs_and_bootstrap_not_negative(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from debate_eval.agents.errors import UserError

    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3], [1, 2, 3]))
    with pytest.raises(UserError, match="exactly two"):
        _run_command(["meta-eval", str(path), "--compare"], capsys)
    with pytest.raises(UserError, match="--bootstrap"):
        _run_command(["meta-eval", str(path), "--bootstrap", "-1"], capsys)


def test_constructed_cases_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The three constructed cases of the paired-comparison audit, as files, through the command: delta 0 /
    delta 0 / the old delta."""
    write_all(tmp_path)
    compare = ["--compare", "--bootstrap", "1000"]
    _status, out = _run_command(
        ["meta-eval", *(str(tmp_path / "copy_and_abstain" / r) for r in "ab"), *compare], capsys
    )
    assert "accuracy       0.750   0.750   0.000   [0.000, 0.000]" in out
    assert "a missing verdict counts as wrong (A: 0, B: 20)" in out
    assert "McNemar (exact, paired accuracy): only A right 0, only B right 0, p 1.000" in out
    _status, out = _run_command(
        ["meta-eval", *(str(tmp_path / "identical_plus_constant" / r) for r in "ab"), *compare], capsys
    )
    assert "used: 67 groups (1072 items); left out: groups where B's correlation is undefined 33" in out
    assert "spearman       0.592   0.592   0.000   [0.000, 0.000]" in out
    _status, out = _run_command(["meta-eval", *(str(tmp_path / "small_gain" / r) for r in "ab"), *compare], capsys)
    assert "spearman       0.497   0.514   0.018   [0.004, 0.037]" in out  # as first defined


def test_a_two_document_run_prints_no_numeric_interval_or_p(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = write_run(tmp_path / "two", two_documents())
    _status, out = _run_command(["meta-eval", str(run)], capsys)
    row = next(line for line in out.splitlines() if line.startswith("summeval/coherence"))
    assert row.endswith("too few groups (n=2)") and "[" not in out.split("95% CI")[1]
    _status, out = _run_command(["meta-eval", str(run), "--json"], capsys)
    entry = json.loads(out)["summeval"]["coherence"]
    assert entry["ci95"] == "too few groups (n=2)" and entry["pooled_ci95"] is None
    _status, out = _run_command(["meta-eval", str(run), str(run), "--compare"], capsys)
    for statistic in ("spearman", "kendall", "pearson"):
        line = next(line for line in out.splitlines() if line.strip().startswith(statistic))
        assert line.split()[4:] == ["too", "few", "groups", "(n=2)"] * 4  # interval, p boot, p t, p Holm
    _status, out = _run_command(["meta-eval", str(run), str(run), "--compare", "--json"], capsys)
    for difference in json.loads(out)[0]["differences"].values():
        assert difference["ci95"] == difference["p_value"] == "too few groups (n=2)"


def test_fail_under_exits_1_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = str(write_run(tmp_path / "run", small_gain()[0]))  # 100 documents, rho 0.497
    status, out, err = _run_with_stderr(["meta-eval", run, "--fail-under", "spearman=0.40", "--bootstrap", "0"], capsys)
    assert status == 0 and "summeval/coherence" in out and err == ""
    status, _out, err = _run_with_stderr(
        ["meta-eval", run, "--fail-under", "spearman=0.50,kendall=0.3", "--bootstrap", "0"], capsys
    )
    assert status == 1
    assert err == "meta-eval: below the bar: summeval/coherence spearman 0.497 < 0.5\n"
    # the lower CI bound is below 0.45 though the figure is above it
    assert _run_with_stderr(["meta-eval", run, "--fail-under", "spearman=0.45"], capsys)[0] == 0
    status, _out, err = _run_with_stderr(["meta-eval", run, "--fail-under", "spearman=0.45", "--fail-under-ci"], capsys)
    assert status == 1 and err.startswith("meta-eval: lower CI bound below the bar: summeval/coherence spearman")
    assert len(err.splitlines()) == 1
    two = str(write_run(tmp_path / "two", two_documents()))
    status, _out, err = _run_with_stderr(["meta-eval", two, "--fail-under", "spearman=0.1", "--fail-under-ci"], capsys)
    assert status == 1 and "withheld: too few groups (n=2)" in err


def _systems_run(folder: Path, n_systems: int) -> str:
    """``n_systems`` systems on 12 documents; the judge ranks them as the humans do."""
    records = [
        {"item_id": f"d{doc:02d}/S{system}", "dataset": "mine.jsonl", "aspect": "quality", "protocol": "geval",
         "group_id": f"d{doc:02d}", "system_id": f"S{system}", "human_score": 1.0 + system * 0.5 + (doc % 3) * 0.1,
         "score": float(1 + system)}
        for doc in range(12)
        for system in range(n_systems)
    ]  # fmt: skip
    return str(write_run(folder, records))


def test_a_system_level_bar_passes_on_enough_systems_only(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    six, four = _systems_run(tmp_path / "six", 6), _systems_run(tmp_path / "four", 4)
    status, out, err = _run_with_stderr(["meta-eval", six, "--fail-under", "system_kendall=0.5"], capsys)
    assert status == 0 and "system level (6 systems' mean scores over 12 groups): tau 1.000" in out and err == ""
    assert _run_with_stderr(["meta-eval", six, "--fail-under", "system_kendall=0.5", "--fail-under-ci"], capsys)[0] == 0
    status, _out, err = _run_with_stderr(["meta-eval", four, "--fail-under", "system_kendall=0.5"], capsys)
    assert status == 1
    assert err == (
        "meta-eval: mine.jsonl/quality system_kendall stands on too little: 4 systems (a system-level bar needs at "
        "least 5)\n"
    )
    two = _systems_run(tmp_path / "two", 2)
    status, _out, err = _run_with_stderr(["meta-eval", two, "--fail-under", "system_spearman=0.5"], capsys)
    assert status == 1 and "fewer than 3 systems with rated, scored items, no system-level figure" in err


def test_a_system_level_bar_that_cannot_gate_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from debate_eval.tasks.cli.main import main

    six = _systems_run(tmp_path / "six", 6)
    assert main(["meta-eval", six, "--fail-under", "system_kendall=1.5"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "debate-eval: error: --fail-under 'system_kendall=1.5': the bar for system_kendall must be a finite number "
        "in [-1, 1], not 1.5"
    ]
    pairwise = str(write_run(tmp_path / "pairwise", copy_and_abstain()[0]))
    assert main(["meta-eval", pairwise, "--fail-under", "system_kendall=0.5"]) == 2
    assert "no dataset/aspect of these runs reports system_kendall" in capsys.readouterr().err


def test_fail_under_bad_input_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from debate_eval.agents.errors import UserError

    run = write_run(tmp_path / "run", two_documents())
    with pytest.raises(UserError, match=r"'rho=0\.4' is not STATISTIC=NUMBER"):
        _run_command(["meta-eval", str(run), "--fail-under", "rho=0.4"], capsys)
    with pytest.raises(UserError, match="'x' is not a number"):
        _run_command(["meta-eval", str(run), "--fail-under", "spearman=x"], capsys)
    with pytest.raises(UserError, match="no dataset/aspect of these runs reports kappa"):
        _run_command(["meta-eval", str(run), "--fail-under", "kappa=0.3"], capsys)
    with pytest.raises(UserError, match="--fail-under-ci needs intervals"):
        _run_command(["meta-eval", str(run), "--fail-under", "spearman=0.3", "--fail-under-ci", "--bootstrap", "0"],
                     capsys)  # fmt: skip


def test_fail_under_refuses_bars_that_cannot_gate(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A NaN, out-of-range or repeated bar, or an empty --fail-under: one line, exit 2 (never a passing gate)."""
    from debate_eval.tasks.cli.main import main

    run = str(write_run(tmp_path / "run", small_gain()[0]))
    for value, message in (
        ("spearman=nan", "the bar for spearman must be a finite number in [-1, 1], not nan"),
        ("spearman=-inf", "the bar for spearman must be a finite number in [-1, 1], not -inf"),
        ("accuracy=1.01", "the bar for accuracy must be a finite number in [0, 1], not 1.01"),
        ("spearman=0.95,spearman=0.1", "spearman is given more than once"),
        ("", "give at least one STATISTIC=NUMBER"),
    ):
        capsys.readouterr()
        assert main(["meta-eval", run, "--fail-under", value, "--bootstrap", "0"]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert main(["meta-eval", run, "--fail-under", "spearman=0.4", "--min-coverage", "2", "--bootstrap", "0"]) == 2
    assert "--min-coverage 2.0: give a share between 0 and 1" in capsys.readouterr().err


def test_fail_under_fails_a_figure_on_too_little(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """3 of 100 pairs answered (all right), rho defined on 1 of 20 documents: exit 1 naming the shortfall;
    --min-coverage 0 turns the requirement off."""
    few = []
    for item in range(100):
        label = ("first", "second", "tie")[item % 3]
        few.append({"item_id": f"q{item:03d}", "dataset": "faireval", "aspect": "preference", "protocol": "debate",
                    "task_type": "pairwise", "human_label": label, "verdict": label if item < 3 else None})  # fmt: skip
    one = [
        {"item_id": f"d{d:02d}-s{s}", "dataset": "summeval", "aspect": "coherence", "protocol": "debate",
         "group_id": f"d{d:02d}", "human_score": float(s + 1), "score": float(s + 1) if d == 0 else 3.0}
        for d in range(20) for s in range(4)
    ]  # fmt: skip
    few_run, one_run = str(write_run(tmp_path / "few", few)), str(write_run(tmp_path / "one", one))
    status, _out, err = _run_with_stderr(["meta-eval", few_run, "--fail-under", "accuracy=0.9", "--bootstrap", "0"],
                                         capsys)  # fmt: skip
    assert status == 1
    assert err == (
        "meta-eval: faireval/preference accuracy stands on too little: 3 of 100 labelled items with a verdict "
        "(3%, needs 90%); 3 items (the minimum is 10)\n"
    )
    status, _out, err = _run_with_stderr(["meta-eval", one_run, "--fail-under", "spearman=0.9", "--bootstrap", "0"],
                                         capsys)  # fmt: skip
    assert status == 1
    assert "summeval/coherence spearman stands on too little: 1 of 20 groups with a defined correlation" in err
    for run, bar in ((few_run, "accuracy=0.9"), (one_run, "spearman=0.9")):
        argv = ["meta-eval", run, "--fail-under", bar, "--bootstrap", "0", "--min-coverage", "0"]
        assert _run_with_stderr(argv, capsys)[0] == 0
    status, _out, err = _run_with_stderr(
        ["meta-eval", few_run, "--fail-under", "accuracy=0.9", "--bootstrap", "50", "--fail-under-ci"], capsys
    )
    assert status == 1 and "withheld: too few items (n=3)" in err and "3 of 100 labelled items" in err


def test_compare_prints_small_p_values_holm_and_the_pooled_rows(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from constructed_cases import topical_chat

    verdicts = ("first", "second", "tie")
    pairs_a, pairs_b = [], []
    for item in range(40):  # B right on all 40, A on the first 20: McNemar p = 2 / 2**20
        label = verdicts[item % 3]
        wrong = verdicts[(item + 1) % 3]
        common = {"item_id": f"q{item:02d}", "dataset": "faireval", "aspect": "preference", "task_type": "pairwise",
                  "human_label": label}  # fmt: skip
        pairs_a.append({**common, "protocol": "debate", "verdict": label if item < 20 else wrong})
        pairs_b.append({**common, "protocol": "geval", "verdict": label})
    a, b = write_run(tmp_path / "a", pairs_a), write_run(tmp_path / "b", pairs_b)
    _status, out = _run_command(["meta-eval", str(a), str(b), "--compare", "--bootstrap", "200"], capsys)
    assert "only A right 0, only B right 20, p 1.9e-06, Holm" in out  # was printed 0.000
    assert "0.000" not in out.split("McNemar")[1].split(",")[2]
    records = topical_chat(contexts=20)
    shifted = [{**r, "score": min(3.0, r["score"] + (r["item_id"].endswith("r0")))} for r in records]
    one, other = write_run(tmp_path / "tc_a", records), write_run(tmp_path / "tc_b", shifted)
    _status, out = _run_command(["meta-eval", str(one), str(other), "--compare", "--bootstrap", "100"], capsys)
    assert out.count("pooled over all items (as G-Eval and ChatEval report; resampling 20 groups):") == 4
    assert "family of all 24 printed above" in out  # 4 aspects x (3 per-context + 3 pooled)
    _status, out = _run_command(["meta-eval", str(one), str(other), "--compare", "--json", "--bootstrap", "100"],
                                capsys)  # fmt: skip
    entry = json.loads(out)[0]
    assert entry["family_size"] == 24
    assert set(entry["differences"]) == {"spearman", "kendall", "pearson", "pooled_spearman", "pooled_kendall",
                                         "pooled_pearson"}  # fmt: skip
    for difference in entry["differences"].values():
        assert {"p_value", "p_ttest", "p_holm"} <= set(difference)


def test_meta_eval_streams_the_records_and_keeps_none(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line is read into a record, kept as its row (no transcript) and the record dropped: when the
    statistics start, every record read is gone (weak references, no garbage collection asked for)."""
    import weakref

    from debate_eval.tasks.engine.record import Record

    records = group("d1", [1, 2, 3, 4, 5], [2, 3, 4, 5, 5]) + group("d2", [5, 4, 3, 2, 1], [4, 4, 2, 1, 1])
    for record in records:
        record["transcript"] = [{"index": 0, "agent": "scorer", "role": "scorer", "content": "words " * 200}]
    path = write_jsonl(tmp_path / "results.jsonl", records)
    read: list[weakref.ref[Record]] = []
    from_json = Record.from_json.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Record], obj: object, **options: object) -> Record:
        record = from_json(cls, obj, **options)
        read.append(weakref.ref(record))
        return record

    alive_at_start: list[int] = []
    evaluate = meta_eval.meta_evaluate

    def checked(rows: list, **options: object) -> object:
        alive_at_start.append(sum(1 for ref in read if ref() is not None))
        assert all(not hasattr(row, "transcript") for row in rows)
        return evaluate(rows, **options)

    monkeypatch.setattr(Record, "from_json", classmethod(counted))
    monkeypatch.setattr(meta_eval, "meta_evaluate", checked)
    status, out = _run_command(["meta-eval", str(path), "--bootstrap", "0"], capsys)
    assert status == 0 and "summeval/coherence" in out
    assert len(read) == len(records) and alive_at_start == [0]


def _alpaca_run(tmp_path: Path, preferences: list[float]) -> Path:
    """A constructed AlpacaEval annotations file (one system against a baseline) imported as a run."""
    from debate_eval.tasks.cli.main import main

    rows = [
        {"instruction": f"instruction {n}", "output_1": "base " * (n + 1), "output_2": "model " * (2 * n + 1),
         "generator_1": "base", "generator_2": "m", "preference": value}
        for n, value in enumerate(preferences)
    ]  # fmt: skip
    source = tmp_path / "annotations.json"
    source.write_text(json.dumps(rows), encoding="utf-8")
    out = tmp_path / "run"
    assert main(["import", "alpaca-eval", str(source), "--out", str(out)]) == 0
    return out


def test_json_with_human_labels_keeps_the_win_rates(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A run against a baseline that also has human labels: the JSON holds the win-rate block the text shows."""
    preferences = [2.0, 1.0, 1.0, 2.0, 1.5, 1.0, 2.0, 1.0, 1.0, 1.0]
    run = _alpaca_run(tmp_path, preferences)
    capsys.readouterr()
    ids = [json.loads(line)["item_id"] for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"item_id": i, "verdict": "first"}) + "\n" for i in ids), encoding="utf-8")
    status, out = _run_command(["meta-eval", str(run), "--labels", str(labels), "--json", "--bootstrap", "0"], capsys)
    payload = json.loads(out)
    assert status == 0 and "alpaca_eval" in payload
    entry = payload["win_rates"]["systems"]["m"]
    assert payload["win_rates"]["baseline"] == "base"
    assert entry["win_rate"] == pytest.approx(100 * (1 + 0 + 0 + 1 + 0.5 + 0 + 1 + 0 + 0 + 0) / 10)  # by hand
    status, text = _run_command(["meta-eval", str(run), "--labels", str(labels), "--bootstrap", "0"], capsys)
    assert "Win rates against base" in text


def test_difficulty_must_cover_the_run_and_needs_a_baseline(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A difficulty file that misses instructions (or fits no baseline) is an error, not a silently plain fit."""
    from debate_eval.agents.errors import UserError

    run = _alpaca_run(tmp_path, [2.0, 1.0, 1.2, 1.9, 1.5, 1.0])
    partial = tmp_path / "difficulty.csv"
    partial.write_text("instruction,difficulty\ninstruction 0,0.5\ninstruction 1,0.1\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"difficulty.csv: 4 of the run's 6 instructions have no difficulty"):
        _run_command(["meta-eval", str(run), "--difficulty", str(partial)], capsys)
    scored = tmp_path / "scored"
    write_run(scored, two_documents())
    with pytest.raises(UserError, match="applies to pairwise runs against a baseline"):
        _run_command(["meta-eval", str(scored), "--difficulty", str(partial)], capsys)


@pytest.mark.parametrize("command", ["meta-eval", "calibrate"])
def test_bootstrap_past_its_bound_is_one_line_before_any_work(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture
) -> None:
    """--bootstrap 10**23 ran without end; past 100,000 resamples it is refused in one line naming the flag and
    the bound, before the run is read (the run here does not exist)."""
    from debate_eval.tasks.cli.main import main

    assert main([command, str(tmp_path / "absent"), "--bootstrap", str(10**23)]) == 2
    err = capsys.readouterr().err
    assert err == f"debate-eval: error: --bootstrap {10**23}: give at most 100,000 resamples\n"
    assert main([command, str(tmp_path / "absent"), "--bootstrap", "100000"]) == 2  # the bound itself: read on
    assert "no such results file" in capsys.readouterr().err
