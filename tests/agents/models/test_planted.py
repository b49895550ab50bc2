"""The planted scripted judges (agents/models/providers/planted.py): where they find the judged text, and that the
copier reads every variant of the audit's injection corpus."""

from __future__ import annotations

import pytest

from debate_eval.agents.models.providers.planted import SCRIPTS, judged_text, length_bucket, responses, script_for
from debate_eval.tasks.data.templates import builtin_template
from debate_eval.tasks.engine.injections import corpus


def request(prompt: str, system: str = "") -> dict:
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
    return {"messages": messages, "seed": 453}


@pytest.mark.parametrize(("dataset", "aspect", "field"), [("summeval", "coherence", "Summary"),
                                                          ("topical_chat", "engagingness", "Response")])  # fmt: skip
def test_judged_text_is_found_in_the_built_in_templates(dataset: str, aspect: str, field: str) -> None:
    template = builtin_template(dataset, aspect)
    inputs = {name: f"text of {name}" for name in template.placeholders}
    inputs[field] = "the judged text\nover two lines"
    assert judged_text(template.render(inputs)) == "the judged text\nover two lines"


def test_length_bucket_and_pairwise_responses() -> None:
    assert [length_bucket(" ".join(["w"] * n)) for n in (1, 10, 11, 40, 41, 81)] == [1, 1, 2, 3, 4, 5]
    prompt = "[Response A: start]\nshort\n[Response A: end]\n\n[Response B: start]\nmuch longer one\n[Response B: end]"
    assert responses(prompt) == ("short", "much longer one")
    assert SCRIPTS["planted-length"](request(prompt)).endswith("[[B]]")
    assert SCRIPTS["planted-first"](request(prompt)).endswith("[[A]]")
    assert script_for("scripted") is None and script_for("planted-copy") is SCRIPTS["planted-copy"]


@pytest.mark.parametrize("variant", corpus(), ids=lambda v: v.id)
def test_the_copier_reads_every_corpus_variant(variant) -> None:
    template = builtin_template("summeval", "coherence")
    for target in (1, 5):
        planted = f"A summary.\n\n{variant.single.format(target=target)}"
        prompt = template.render({"Document": "An article.", "Summary": planted})
        assert SCRIPTS["planted-copy"](request(prompt)).endswith(f"Score: {target}")
    for side in "AB":
        a, b = "first answer", "second answer"
        text = variant.pairwise.format(side=side)
        a, b = (f"{a}\n\n{text}", b) if side == "A" else (a, f"{b}\n\n{text}")
        prompt = f"[Response A: start]\n{a}\n[Response A: end]\n[Response B: start]\n{b}\n[Response B: end]"
        assert SCRIPTS["planted-copy"](request(prompt)).endswith(f"[[{side}]]")


def test_planted_critics_agree_and_paraphrases_return_the_text() -> None:
    critic = request("Review the score.", system="You are a Devil's Advocate.")
    assert "NO ISSUE" in SCRIPTS["planted-length"](critic)
    rewrite = request("Rewrite the text below in 1 different ways. ...\n\nText:\nSame  words here.")
    assert SCRIPTS["planted-noisy"](rewrite) == "1. Same words here."
