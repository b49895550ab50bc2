"""Answer formats: what shape a role's answer must take, and the grammar or JSON schema that enforces it.

An ``AnswerFormat`` describes one call's answer, whatever the provider: its ``kind`` (below), the scale of a
score, the number of items of a list, and the completion cap it is sized for. It builds the two
enforceable forms a provider can send: a llama.cpp GBNF ``grammar`` and a JSON schema. How a provider asks
for either is the provider's business (``Provider.answer_request``); which kind each role gets, and the
caps, are data (``debates/prompts/answer_formats.json``, read by ``debates.answer_plan``).

==============  ==========================================================================================
``score``       a short rationale on one line, then ``Score: N`` on a line of its own, N on the scale
``score_only``  the score alone (G-Eval's "scores ONLY" form, DialEvalML's "a single score and nothing else")
``verdict``     a short rationale on one line, then ``[[A]]``, ``[[B]]`` or ``[[C]]`` (a tie) on its own line
``pair_scores`` a short rationale on one line, then ``Score A: N``, ``Score B: N`` and ``Verdict: [[X]]`` on
                lines of their own (Fennec's judge of two responses)
``critique``    ``NO ISSUE``, or one short paragraph of feedback (the Critic's own choice, read as always)
``criteria``    exactly ``items`` numbered lines ``1. <name>: <what it checks>``
``text``        free text, only capped (relays, summaries, guidelines, rewrites): no grammar, no schema
==============  ==========================================================================================

The grammar lets the model write what it likes inside the rationale and then forces the ending; it is
sized so that the answer always fits its cap: the rationale holds printable ASCII only (every token is at
least one character), at most ``max_tokens - reserve`` characters, so the ending is always reached before
the cap and no answer is cut off. With no cap the rationale may hold ``UNCAPPED_RATIONALE_CHARS``.

A constrained answer is still free text to everything downstream: the score parser, the NO ISSUE check and
the untrusted-text rules read it as they read any answer (``Score: N`` on its own last line is the
parser's "verdict" form; ``NO ISSUE`` counts only in the Critic's own text). The JSON form
(``--structured-output``) is parsed strictly first, with the free-text parser as the fallback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from debate_eval.agents.context_value import bound

KINDS = ("score", "score_only", "verdict", "pair_scores", "critique", "criteria", "text")
FREE, GRAMMAR, JSON = "free", "grammar", "json"
MODES = (FREE, GRAMMAR, JSON)  # how a role's answers are requested: as today, a GBNF grammar, a JSON schema
UNCAPPED_RATIONALE_CHARS = 1000  # the rationale's bound when a call has no completion cap
ENDING_RESERVE = 8  # tokens kept for the forced ending ("\nScore: 10", "\n[[C]]") and the end of the answer
PAIR_RESERVE = 32  # the same for "\nScore A: 10\nScore B: 10\nVerdict: [[C]]" (at most 32 characters)
MAX_ENUMERATED = 100  # a scale with more integers than this is written as digits (the parser checks the range)
SCORE_LABEL = "Score"
VERDICTS = ("A", "B", "C")  # MT-Bench's brackets: [[A]], [[B]], [[C]] (a tie)
VERDICT_CHOICES = " | ".join(f'"[[{v}]]"' for v in VERDICTS)  # the GBNF alternatives of a verdict


@dataclass(frozen=True)
class AnswerTask:
    """What the format of one item's answers depends on: the scale of its scores, and whether it is an
    A-versus-B task (a score becomes a verdict)."""

    low: float = 1.0
    high: float = 5.0
    pairwise: bool = False


@dataclass(frozen=True)
class AnswerFormat:
    """The shape one call's answer must take (see the module docstring for the kinds)."""

    kind: str
    mode: str = GRAMMAR  # how it is requested: grammar (llama.cpp's GBNF) or json (a JSON schema)
    max_tokens: int | None = None  # the completion cap the call is sent with, and the grammar sized for
    low: float = 1.0
    high: float = 5.0
    items: int = 0  # criteria: how many lines

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown answer kind {self.kind!r}; kinds are: {', '.join(KINDS)}")
        if self.mode not in (GRAMMAR, JSON):
            raise ValueError(f"an answer format is requested as {GRAMMAR} or {JSON}, not {self.mode!r}")
        if self.kind == "criteria" and self.items < 1:
            raise ValueError("a criteria answer needs its number of items")

    @property
    def constrained(self) -> bool:
        """True when the answer's shape is enforced (every kind but ``text``, which is only capped)."""
        return self.kind != "text"

    def rationale_chars(self) -> int:
        """The most characters of free text: the cap less the ending's reserve (one token is at least one
        printable ASCII character), or ``UNCAPPED_RATIONALE_CHARS`` without a cap."""
        if self.max_tokens is None:
            return UNCAPPED_RATIONALE_CHARS
        reserve = {"critique": 2, "criteria": 2, "pair_scores": PAIR_RESERVE}.get(self.kind, ENDING_RESERVE)
        return max(1, self.max_tokens - reserve)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (for transcripts: what a call was asked to write)."""
        data: dict[str, Any] = {"kind": self.kind, "mode": self.mode, "max_tokens": self.max_tokens}
        if self.kind in ("score", "score_only", "pair_scores"):
            data["scale"] = f"{self.low:g}-{self.high:g}"
        if self.kind == "criteria":
            data["items"] = self.items
        return data

    # ------------------------------------------------------------------------------------------ GBNF

    def grammar(self) -> str | None:
        """The llama.cpp GBNF grammar of this answer, or None for ``text``."""
        line = f"[ -~]{{1,{self.rationale_chars()}}}"
        if self.kind == "score":
            return f'root ::= rationale "\\n{SCORE_LABEL}: " value\nrationale ::= {line}\n{self._value_rules()}'
        if self.kind == "score_only":
            return f"root ::= value\n{self._value_rules()}"
        if self.kind == "verdict":
            return f'root ::= rationale "\\n" ({VERDICT_CHOICES})\nrationale ::= {line}'
        if self.kind == "pair_scores":
            ending = f'"\\nScore A: " value "\\nScore B: " value "\\nVerdict: " ({VERDICT_CHOICES})'
            return f"root ::= rationale {ending}\nrationale ::= {line}\n{self._value_rules()}"
        if self.kind == "critique":
            return f'root ::= "NO ISSUE" | feedback\nfeedback ::= {line}'
        if self.kind == "criteria":
            per_item = max(1, (self.rationale_chars() - 4 * self.items) // self.items)  # "N. " and "\n" each
            lines = ' "\\n" '.join(f'"{n}. " item' for n in range(1, self.items + 1))
            return f"root ::= {lines}\nitem ::= [ -~]{{1,{per_item}}}"
        return None

    def _value_rules(self) -> str:
        values = self.scale_values()
        if values is not None:
            return "value ::= " + " | ".join(f'"{v}"' for v in values)
        return 'value ::= "-"? [0-9]{1,6} ("." [0-9]{1,3})?'

    def scale_values(self) -> list[int] | None:
        """The integers of the scale when its ends are integers and there are at most ``MAX_ENUMERATED``."""
        if not (float(self.low).is_integer() and float(self.high).is_integer()):
            return None
        low, high = int(self.low), int(self.high)
        if high < low or high - low + 1 > MAX_ENUMERATED:
            return None
        return list(range(low, high + 1))

    # ------------------------------------------------------------------------------------ JSON schema

    def json_schema(self, bounded: bool = False) -> dict[str, Any] | None:
        """The JSON schema of a ``score``, ``score_only`` or ``verdict`` answer (None for the other kinds,
        which stay text; a ``pair_scores`` answer too, whose side scores are read from its lines). ``bounded``
        adds the rationale's ``maxLength`` (llama.cpp enforces it; OpenAI's strict mode does not accept it)."""
        properties: dict[str, Any] = {}
        if self.kind in ("score", "verdict"):
            rationale: dict[str, Any] = {"type": "string"}
            if bounded:
                rationale["maxLength"] = self.rationale_chars()
            properties["rationale"] = rationale
        if self.kind in ("score", "score_only"):
            properties["score"] = self._score_schema()
        elif self.kind == "verdict":
            properties["verdict"] = {"type": "string", "enum": list(VERDICTS)}
        else:
            return None
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def _score_schema(self) -> dict[str, Any]:
        values = self.scale_values()
        if values is not None:
            return {"type": "integer", "enum": values}
        return {"type": "number", "minimum": self.low, "maximum": self.high}

    def schema_name(self) -> str:
        """A name for the schema (OpenAI's ``json_schema.name``: letters, digits, ``_`` and ``-``)."""
        return f"{self.kind}_answer"


def json_schema_response_format(fmt: AnswerFormat, *, strict: bool = True, bounded: bool = False) -> dict[str, Any]:
    """The OpenAI ``response_format`` of ``fmt``'s JSON schema (``{"type": "json_schema", ...}``)."""
    schema = fmt.json_schema(bounded=bounded)
    if schema is None:
        raise ValueError(f"a {fmt.kind} answer has no JSON schema")
    return {"type": "json_schema", "json_schema": {"name": fmt.schema_name(), "strict": strict, "schema": schema}}


# --------------------------------------------------------------------------------- the item being judged

_ANSWER_TASK: ContextVar[AnswerTask | None] = ContextVar("debate_eval_answer_task", default=None)


def answering(task: AnswerTask) -> contextlib.AbstractContextManager[AnswerTask]:
    """Within this context (the evaluation of one item, AutoGen's tasks inherit it), answer formats are
    built for ``task``'s scale and task type."""
    return bound(_ANSWER_TASK, task)


def current_answer_task() -> AnswerTask | None:
    """The item being evaluated (None outside ``answering``: then no answer is constrained)."""
    return _ANSWER_TASK.get()


# ---------------------------------------------------------------------------------------- the run's plan


@dataclass(frozen=True)
class AnswerPlan:
    """Which answer format every call of a run gets: one mode per model role (roles without one of their own,
    such as G-Eval's evaluator or ChatEval's referees, use the Scorer's), the default kind of each role, and
    the completion cap of each kind on a provider that sets caps of its own (the embedded model).

    Built by ``debates.answer_plan.answer_plan``; ``format_for`` resolves one call."""

    modes: Mapping[str, str]  # settings role -> free | grammar | json
    kinds: Mapping[str, str]  # role -> its default kind
    caps: Mapping[str, int]  # kind -> completion cap (used where the provider's default cap would apply)
    requested: str = "auto"  # what the user asked for (auto: grammar on the embedded model, free elsewhere)

    def mode_for(self, settings_role: str) -> str:
        """The mode of a role; a role without model settings of its own has the Scorer's (as
        ``ModelConfig.for_role``)."""
        return self.modes.get(settings_role, self.modes.get("scorer", FREE))

    @property
    def active(self) -> bool:
        """True when at least one role's answers are constrained."""
        return any(mode != FREE for mode in self.modes.values())

    def format_for(
        self,
        role: str,
        settings_role: str,
        kind: str | None,
        configured_cap: int | None,
        provider_cap: int | None,
        task: AnswerTask | None,
        items: int = 0,
        scale: tuple[float, float] | None = None,
    ) -> AnswerFormat | None:
        """The format of one call by ``role`` (whose model settings are ``settings_role``'s), or None when its
        answers are free. ``kind``: the call site's (default: the role's); ``configured_cap``: the role's
        ``max_tokens``; ``provider_cap``: its provider's default cap, replaced by the kind's cap when the
        configured one is that default; a pairwise task turns a score into a verdict; ``items``: a criteria
        list's length; ``scale``: the call's own scale (default the task's)."""
        mode = self.mode_for(settings_role)
        if mode == FREE or task is None:
            return None
        kind = kind or self.kinds.get(role) or self.kinds.get(settings_role) or "text"
        if task.pairwise and kind in ("score", "score_only"):
            kind = "verdict"
        cap = configured_cap
        if provider_cap is not None and configured_cap == provider_cap and kind in self.caps:
            cap = self.caps[kind]
        if kind == "criteria" and items < 1:
            kind = "text"  # a list of unknown length is only capped
        low, high = scale if scale is not None else (task.low, task.high)
        return AnswerFormat(kind=kind, mode=mode, max_tokens=cap, low=low, high=high, items=items)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "requested": self.requested,
            "modes": dict(self.modes),
            "kinds": dict(self.kinds),
            "caps": dict(self.caps),
        }


def describe_answers(config: Mapping[str, Any] | None) -> str:
    """One line on a run's answer formats, from config.json's ``result_config["answers"]`` (None: free):
    e.g. ``grammar for critic, scorer (requested: auto); caps score 96, critique 96 - a change to the
    methods' free-text answers``."""
    if not config:
        return "free text (the methods' own answers, parsed as the papers parse them)"
    modes: dict[str, list[str]] = {}
    for role, mode in (config.get("modes") or {}).items():
        modes.setdefault(str(mode), []).append(str(role))
    parts = [f"{mode} for {', '.join(sorted(roles))}" for mode, roles in sorted(modes.items()) if mode != FREE]
    free = modes.get(FREE)
    if free:
        parts.append(f"free for {', '.join(sorted(free))}")
    caps = config.get("caps") or {}
    shown = ", ".join(f"{kind} {cap}" for kind, cap in caps.items())
    return (
        f"{'; '.join(parts)} (requested: {config.get('requested', '?')}); caps on the embedded model: {shown} - "
        "a change to the methods' free-text answers"
    )
