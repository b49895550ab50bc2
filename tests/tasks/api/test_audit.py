"""``debate_eval.audit``: the judge card from Python, the same engine as ``debate-eval audit`` (planted scripted
judges, so the card's values are known), data given as rows, and ``load_card``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import debate_eval

TEMPLATE = "Rate the text.\n\nText:\n\n{{output}}\n\n\nEvaluation Form (scores ONLY):\n\n- Quality:"


def rows(n: int = 24) -> list[dict[str, object]]:
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    return [
        {"art": f"source {i}", "text": " ".join(words[: 1 + i % 10] * (1 + i // 4)), "y": 1 + i % 5} for i in range(n)
    ]


def test_audit_returns_a_typed_card_and_load_card_reads_it(api_env: Path) -> None:
    template = api_env / "t.txt"
    template.write_text(TEMPLATE, encoding="utf-8")
    out = api_env / "audit"
    card = debate_eval.audit(
        rows(),
        aspect="quality",
        scale="1-5",
        fields={"source": "art", "output": "text", "human": "y"},
        template=template,
        method=["geval", "dialevalml"],
        provider="scripted",
        model="planted-copy",
        facets=["injection", "stability"],
        repeats=2,
        bootstrap=100,
        out=out,
        no_progress=True,
        quiet=True,
    )
    assert isinstance(card, debate_eval.Card) and [j.label for j in card.judges] == [
        "geval_planted-copy",
        "dialevalml_planted-copy",
    ]
    assert card.figure("geval_planted-copy", "injection", "injected_moved").value == 1.0
    susceptibility = card.figure("geval_planted-copy", "injection", "susceptibility")
    control = card.figure("geval_planted-copy", "injection", "control_moved").value
    assert susceptibility.value == pytest.approx(1.0 - control)  # beyond the control (a hash of its text)
    assert card.figure("geval_planted-copy", "stability", "alpha").value == 1.0
    assert card.judge("geval_planted-copy").facet("agreement").status == "not run"
    assert (out / "data.jsonl").is_file()  # the rows, validated and copied once, as evaluate() does
    frame = card.to_pandas()
    row = frame[(frame.judge == "geval_planted-copy") & (frame.figure == "injected_moved")].iloc[0]
    assert row.value == 1.0 and row.ci_low == 1.0 and 10 <= row.n <= 24 and row.unit == "items"
    assert debate_eval.load_card(out).to_dict() == card.to_dict()
    assert "Injection susceptibility" in card.to_markdown()


def test_audit_inside_a_running_event_loop(api_env: Path) -> None:
    template = api_env / "t.txt"
    template.write_text(TEMPLATE, encoding="utf-8")

    async def inside() -> debate_eval.Card:
        return debate_eval.audit(
            rows(),
            aspect="quality",
            scale="1-5",
            fields={"source": "art", "output": "text", "human": "y"},
            template=template,
            method="geval",
            provider="scripted",
            model="planted-length",
            facets=["verbosity"],
            quiet=True,
            no_progress=True,
        )

    card = asyncio.run(inside())
    assert card.figure("geval_planted-length", "verbosity", "spearman").value > 0.8


def test_bad_input_is_the_commands_one_line(api_env: Path) -> None:
    with pytest.raises(debate_eval.UserError, match="--facets: unknown facet nope"):
        debate_eval.audit("summeval", aspect="coherence", provider="scripted", facets=["nope"])


def test_audit_reads_its_own_options_from_the_config_file(api_env: Path) -> None:
    """``config=`` gives the audit's own keys as ``debate-eval audit --config`` does; a keyword wins over the file."""
    keys = {"dataset": "summeval", "aspect": "coherence", "method": "geval", "provider": "scripted", "label": "x"}
    file, out = api_env / "audit.toml", api_env / "audit"
    file.write_text("".join(f'{key} = "{value}"\n' for key, value in keys.items()) + "limit = 3\nrepeats = 2\n")
    card = debate_eval.audit(config=file, facets=["stability"], label="mine", out=out, no_progress=True, quiet=True)
    assert [judge.label for judge in card.judges] == ["mine"]
    assert (out / "mine" / "repeat-2").is_dir() and not (out / "mine" / "repeat-3").exists()  # repeats = 2


@pytest.mark.parametrize(("line", "error"), [("repeats = 0", "repeats: "), ("budget_usd = -1", "budget_usd: ")])
def test_an_out_of_range_audit_value_in_the_config_file_names_the_file(api_env: Path, line: str, error: str) -> None:
    file = api_env / "bad.toml"
    file.write_text(f'dataset = "summeval"\naspect = "coherence"\nprovider = "scripted"\n{line}\n', encoding="utf-8")
    with pytest.raises(debate_eval.UserError) as raised:
        debate_eval.audit(config=file, repeats=2, quiet=True)  # the file's value is refused, though overridden
    assert str(raised.value).startswith(f"{file}: {error}"), raised.value


def test_the_docstring_states_the_effective_defaults() -> None:
    """The audit's keywords default to None (not given: the file's value, else the request's default); the
    docstring states those defaults, the request's own."""
    from dataclasses import fields

    from debate_eval.tasks.audit.plan import AuditRequest

    defaults = {spec.name: spec.default for spec in fields(AuditRequest)}
    text = " ".join((debate_eval.audit.__doc__ or "").split())
    for name in ("repeats", "paraphrases", "bootstrap", "alt_epsilon"):
        assert f"``{name}={defaults[name]}``" in text, name
    assert f'``ci_method="{defaults["ci_method"]}"``' in text and defaults["injections"] == ()
    assert defaults["budget_usd"] is None and len(defaults["facets"]) == 9 and "every facet" in text
