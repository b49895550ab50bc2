"""``--criteria "Is the summary faithful to the article?"``: a G-Eval-style template built from one sentence
and the scale, so a first run on your own data needs no template file.

The frame is a prompt file (``templates/_criteria/single.txt``); the inputs it shows are the dataset's
(your own file's mapped fields: ``{{context}}``, ``{{source}}``, ``{{reference}}``, ``{{output}}``, the last
one being the text judged). The template's source is ``criteria: <the sentence>`` (in ``config.json``; the
whole text is hashed like any template's).
"""

from __future__ import annotations

import string
from importlib import resources

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.data.registry import get_dataset
from debate_eval.tasks.data.templates import Template, _aspect_label

FRAME = ("templates", "_criteria", "single.txt")


def _label(name: str) -> str:
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _listing(names: list[str]) -> str:
    named = [f"the {name.replace('_', ' ').lower()}" for name in names]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def criteria_template(dataset: str, aspect: str, criteria: str, scale: ScoreRange | None) -> Template:
    """The template for rating ``aspect`` of ``dataset``'s items by ``criteria`` on ``scale`` (default: the
    aspect's human scale when the dataset declares one)."""
    sentence = " ".join(criteria.split())
    if not sentence:
        raise UserError("--criteria: give one sentence saying what a good answer is, e.g. 'Is the summary faithful?'")
    spec = get_dataset(dataset)
    if spec.task_type != "single":
        raise UserError("--criteria builds a single-score template; a pairwise dataset has its own prompt")
    if scale is None:
        declared = spec.aspects.get(aspect)
        if declared is None or spec.options.get("scale", declared) is None:
            raise UserError("--criteria needs the score range: add --scale LO-HI (e.g. --scale 1-5)")
        scale = ScoreRange(float(declared[0]), float(declared[1]))
    inputs = list(spec.inputs)
    if not inputs:
        raise UserError(f"--criteria: dataset {dataset} declares no inputs to show the judge")
    frame = resources.files("debate_eval.tasks").joinpath(*FRAME).read_text(encoding="utf-8")
    judged = inputs[-1].replace("_", " ").lower()
    sections = "\n\n".join(f"{_label(name)}:\n\n{{{{{name}}}}}" for name in inputs)
    text = string.Template(frame).substitute(
        given=_listing(inputs),
        judged=judged,
        inputs=_listing(inputs),
        Aspect=_aspect_label(aspect),
        aspect=aspect.replace("_", " "),
        low=f"{scale.low:g}",
        high=f"{scale.high:g}",
        criteria=sentence,
        sections=sections,
    )
    return Template(
        dataset=dataset,
        aspect=aspect,
        text=text,
        scale=scale,
        placeholders=tuple(inputs),
        source=f"criteria: {sentence}",
    )
