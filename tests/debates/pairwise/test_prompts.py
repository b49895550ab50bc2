"""The project's pairwise prompts (``debates/pairwise/prompts.py``): the task prompt, its rendering, the
pairwise personas, and an echo of the format line that says nothing."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from debate_eval.agents.personas import get_persona
from debate_eval.debates.geval.pairwise import run_geval_pairwise
from debate_eval.debates.pairwise.prompts import pairwise_persona, render_task


def test_task_prompt_shows_both_responses_and_the_verdict_format(pw: SimpleNamespace) -> None:
    prompt = render_task(pw.inputs)
    assert pw.inputs["output_a"] in prompt and pw.inputs["output_b"] in prompt
    assert prompt.index(pw.inputs["output_a"]) < prompt.index(pw.inputs["output_b"])
    assert "[Additional input]\n(none)" in prompt  # an empty input is shown as such
    assert "[[A]]" in prompt and "[[B]]" in prompt and "[[C]]" in prompt


def test_rendering_does_not_rescan_inserted_text(pw: SimpleNamespace) -> None:
    inputs = {**pw.inputs, "output_a": "see {{output_b}}"}
    assert "see {{output_b}}" in render_task(inputs)


def test_pairwise_personas_speak_of_verdicts_and_keep_files() -> None:
    critic = pairwise_persona(get_persona("devils-advocate", "critic"))
    assert "verdict" in critic.text and "score" not in critic.text
    assert critic.name == "devils-advocate" and "pairwise" in critic.source
    referee = get_persona("general-public", "referee")
    assert pairwise_persona(referee) is referee  # ChatEval's roles already compare two responses


def test_an_echo_of_the_format_line_is_no_verdict(pw: SimpleNamespace) -> None:
    """A small model that copies the instructions ("[C] when they are equally good") has said nothing."""
    echo = "[A] when Response A is better, [B] when Response B is better,\n[C] when they are equally good,"
    pool, clients = pw.pool(scorer=[echo, "[[B]]"])
    outcome = asyncio.run(run_geval_pairwise(pw.task(), 1, pool))
    assert outcome.transcript[1]["verdict"]["value"] is None
    assert outcome.reasked and outcome.verdict == "second" and pw.served(clients["scorer"]) == 2
