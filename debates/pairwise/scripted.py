"""What marks a request built from the project's pairwise prompts, for the scripted server: the verdict
instruction of ``prompts/task.txt`` and ``prompts/panel.txt``, which judged text alone does not bring into a
single-score request. A method with a pairwise form lists ``PAIRWISE_PROMPTS`` among its scripted replies."""

from __future__ import annotations

from debate_eval.agents.models.providers.scripted_server import ScriptedReplies

PAIRWISE_MARK = "[[A]] when Response A is better"

PAIRWISE_PROMPTS = ScriptedReplies("pairwise prompts", pairwise_marks=(PAIRWISE_MARK,))
