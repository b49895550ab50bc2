"""The self-preference facet's statistic: a planted self-preferring judge shows it, a neutral one does not;
the interval and p are scipy's Welch t-test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.audit.self_preference import read_families, self_preference

FAMILIES = {"gpt-a": "openai", "gpt-b": "openai", "llama-a": "meta", "mistral-a": "mistral"}


def _rows(bonus: float, seed: int = 0, n: int = 80) -> list[tuple[str, float, float]]:
    """Humans rate every system alike; the judge is lenient by 0.3 everywhere, plus ``bonus`` on openai's."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, family in FAMILIES.items():
        human = rng.uniform(1, 5, n)
        score = human + 0.3 + (bonus if family == "openai" else 0.0) + rng.normal(0, 0.6, n)
        rows += [(system, float(s), float(h)) for s, h in zip(score, human, strict=True)]
    return rows


def test_a_planted_self_preferring_judge_is_seen() -> None:
    result = self_preference(_rows(0.8), FAMILIES, "openai")
    assert (result.n_own, result.n_other) == (160, 160)
    assert result.ci95[0] > 0.5 and result.p < 1e-6
    assert result.difference == pytest.approx(0.8, abs=0.2)


def test_a_neutral_judge_is_not_and_the_figures_are_welchs() -> None:
    rows = _rows(0.0, seed=3)
    result = self_preference(rows, FAMILIES, "openai")
    assert result.ci95[0] < 0 < result.ci95[1]  # the common leniency (0.3) cancels
    own = [s - h for system, s, h in rows if FAMILIES[system] == "openai"]
    other = [s - h for system, s, h in rows if FAMILIES[system] != "openai"]
    test = stats.ttest_ind(own, other, equal_var=False)
    assert result.p == pytest.approx(test.pvalue)
    assert result.ci95 == pytest.approx(list(test.confidence_interval(0.95)))


def test_too_few_items_and_unknown_systems() -> None:
    rows = [("gpt-a", 3.0, 2.0)] * 5 + [("llama-a", 2.0, 2.0)] * 20 + [("unknown", 5.0, 1.0)]
    result = self_preference(rows, FAMILIES, "openai")
    assert (result.n_own, result.n_other) == (5, 20) and result.ci95 == "too few rated items per side (n=5)"


def test_family_maps(tmp_path: Path) -> None:
    assert read_families("a=x, b = y") == {"a": "x", "b": "y"}
    (tmp_path / "f.csv").write_text("system,family\na,x\nb,y\n")
    assert read_families(str(tmp_path / "f.csv")) == {"a": "x", "b": "y"}
    (tmp_path / "f.json").write_text('{"a": "x"}')
    assert read_families(str(tmp_path / "f.json")) == {"a": "x"}
    with pytest.raises(UserError, match="system=family pairs"):
        read_families("a")
    (tmp_path / "g.csv").write_text("system,family\na,\n")
    with pytest.raises(UserError, match=r"row 1 .*empty system or family"):
        read_families(str(tmp_path / "g.csv"))
    (tmp_path / "bad.json").write_text('{"a": "x",}')
    with pytest.raises(UserError, match=r"bad.json: not valid JSON \(line 1, column 11"):
        read_families(str(tmp_path / "bad.json"))
    (tmp_path / "bin.csv").write_bytes(b"system,family\n\xff\xfe\n")
    with pytest.raises(UserError, match=r"bin.csv: not UTF-8 text \(byte 14\)"):
        read_families(str(tmp_path / "bin.csv"))
    with pytest.raises(UserError, match=r"missing\.json: no such file"):
        read_families(str(tmp_path / "missing.json"))
