"""The registries and the parsers, as the public module shows them: ``methods()``, ``datasets()``,
``parse_score``, ``parse_verdict``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from debate_eval.debates.base import Method
    from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange
    from debate_eval.debates.scoring.verdicts import ParsedVerdict
    from debate_eval.tasks.data.registry import DatasetSpec


def methods() -> dict[str, Method]:
    """Every registered method by name (built-ins, then installed plugins): ``.description``,
    ``.task_types``, ``.config_type``; its options: ``debate-eval methods`` or ``debates.base.declared_options``."""
    from debate_eval.debates.base import all_methods

    return all_methods()


def datasets() -> dict[str, DatasetSpec]:
    """Every registered dataset by name: ``.aspects`` (aspect -> human scale), ``.inputs``, ``.task_type``,
    ``.level``, ``.licence``."""
    from debate_eval.tasks.data.registry import all_datasets

    return all_datasets()


def parse_score(text: str, scale: str | Sequence[float] | ScoreRange = "1-5", aspect: str | None = None) -> ParsedScore:
    """Parse one judge answer as a run does (``debate-eval parse``): ``.value``, ``.status``, ``.method`` (the
    rule), ``.reason``; ``scale`` as ``"1-5"``, ``(1, 5)`` or a ``ScoreRange``."""
    from debate_eval.debates.scoring.scores import ScoreRange
    from debate_eval.debates.scoring.scores import parse_score as parse
    from debate_eval.tasks.data.templates import parse_scale

    if isinstance(scale, str):
        scale = parse_scale(scale)
    elif not isinstance(scale, ScoreRange):
        low, high = scale
        scale = ScoreRange(float(low), float(high))
    return parse(text, scale, aspect)


def parse_verdict(text: str) -> ParsedVerdict:
    """Parse one pairwise answer as a run does (``debate-eval parse --verdict``): ``.value`` is ``first``,
    ``second``, ``tie`` or None, with the rule and reason."""
    from debate_eval.debates.scoring.verdicts import parse_verdict as parse

    return parse(text)
