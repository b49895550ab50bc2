"""G-Eval-style prompt templates: the built-in ones for every aspect, and user-supplied files.

A template is the prompt the Commander turns into the Scorer's task (SPEC section 3): a task description,
"Evaluation Criteria" (the aspect's definition and scale), "Evaluation Steps" (zero-shot chain of thought),
the inputs, and an "Evaluation Form (scores ONLY)" that ends with ``- <Aspect>:``. Inputs are written as
placeholders ``{{Name}}``; the names are those the datasets provide:

=================  ======================================
dataset            placeholders
=================  ======================================
``summeval``       ``{{Document}}``, ``{{Summary}}``
``topical_chat``   ``{{Dialogue}}``, ``{{Fact}}``, ``{{Response}}``
=================  ======================================

**Built-in templates** live in ``templates/<dataset>/<aspect>.txt`` (package data of
``debate_eval.tasks``). They follow G-Eval's structure in this project's own words and use the human
rating scales: SummEval 1-5 for all four aspects (G-Eval's own fluency prompt asks 1-3); Topical-Chat
naturalness, coherence and engagingness 1-3 and groundedness 0-1, defined as in USR (Mehri & Eskenazi
2020). The Topical-Chat naturalness and coherence templates do not show the fact (those aspects do not
depend on it); engagingness and groundedness do.

**File format.** A file may start with a front matter block::

    ---
    dataset: summeval
    aspect: coherence
    scale: 1-5
    inputs: Document, Summary
    note: one line of free text
    # comment lines are allowed here
    ---
    <template text>

Every key is optional. When front matter is present, the template text is what follows the closing
``---`` line, with trailing whitespace removed (so the prompt ends right after ``- Coherence:``). A file
without front matter is used byte for byte (CRLF line endings included): the original G-Eval prompt
files load and render unchanged. ``--fidelity authors-code`` reads the file as the authors' scripts did
(``open(path).read()``: universal newlines, so CRLF and CR become LF); ``--fidelity paper`` keeps the bytes.

**Scale of a user file**, first that applies: the explicit ``scale`` argument (``--scale``), the front
matter's ``scale``, the scale written in the text after the aspect name (``Coherence (1-5)``, see
:func:`infer_scale`), the built-in template's scale for the dataset and aspect; otherwise a
:class:`UserError` asks for ``--scale``. Note that the DEBATE authors' Topical-Chat prompts declare
``Coherence (1-5)`` and ``Naturalness (1-5)`` although humans rated those aspects 1-3; the inferred scale
is what the text says (1-5). That is harmless for the meta-evaluation, whose correlations are rank-based.

**Rendering** (:meth:`Template.render`) replaces every placeholder in one pass, so text inserted from the
inputs is never scanned again: a summary that contains ``{{Document}}`` stays literal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.data.placeholders import PLACEHOLDER_RE, check_placeholders, placeholders_of, template_set
from debate_eval.tasks.data.rows import decode_text, describe, read_bytes

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "Template",
    "builtin_aspects",
    "builtin_template",
    "infer_scale",
    "load_template_file",
    "parse_scale",
    "resolve_template",
]

_NUMBER = r"\d+(?:\.\d+)?"
_SCALE_RE = re.compile(rf"^\s*({_NUMBER})\s*[-\u2013\u2014]\s*({_NUMBER})\s*$")
_FRONT_MATTER_KEYS = ("dataset", "aspect", "scale", "inputs", "note")
_DELIMITER = "---"


@dataclass(frozen=True)
class Template:
    """One prompt template: its text with ``{{Name}}`` placeholders, and the scale it asks for."""

    dataset: str | None
    aspect: str
    text: str  # the template body (no front matter)
    scale: ScoreRange
    placeholders: tuple[str, ...]  # names found in the text, in order of first appearance
    source: str  # "builtin:summeval/coherence" or the file path

    def render(self, inputs: Mapping[str, str]) -> str:
        """Return the prompt with every ``{{Name}}`` replaced by ``inputs[Name]``, in a single pass.

        Inserted values are never scanned for placeholders again. Inputs the template does not use are
        ignored. Raises :class:`UserError` naming the placeholder(s) and this template's source when a
        placeholder has no value in ``inputs``.
        """
        self.check_inputs(inputs)
        for name in self.placeholders:
            if not isinstance(inputs[name], str):
                raise TypeError(f"input {name!r} must be a str, not {type(inputs[name]).__name__}")
        return PLACEHOLDER_RE.sub(lambda match: inputs[match.group(1)], self.text)

    def check_inputs(self, names: Collection[str]) -> None:
        """Raise the :class:`UserError` ``render`` would for inputs named ``names``: every placeholder needs a
        value (a run checks each shape of its items' inputs before any model call, and renders later)."""
        missing = [name for name in self.placeholders if name not in names]
        if missing:
            given = ", ".join(sorted(names)) or "none"
            raise UserError(
                f"template {self.source} uses {', '.join('{{' + name + '}}' for name in missing)} "
                f"but no value was given for it (inputs given: {given})"
            )

    def sha256(self) -> str:
        """Hex SHA-256 of the template text and scale (what a run's configuration hash depends on)."""
        payload = json.dumps({"text": self.text, "scale": str(self.scale)}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def aspect_label(self) -> str:
        """The aspect as it is written in a prompt: ``coherence`` -> ``Coherence``."""
        return _aspect_label(self.aspect)


def _aspect_label(aspect: str) -> str:
    words = [word for word in re.split(r"[_\s-]+", aspect.strip()) if word]
    return " ".join(word[:1].upper() + word[1:] for word in words)


def parse_scale(text: str) -> ScoreRange:
    """Parse a score range such as ``"1-5"``, ``"0-1"`` or ``"1 - 3"`` (an en dash works too).

    Raises :class:`UserError` unless the text is two non-negative finite numbers, the first below the second.
    """
    match = _SCALE_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise UserError(f"invalid scale {text!r}: write it as LOW-HIGH, for example 1-5 or 0-1")
    low, high = float(match.group(1)), float(match.group(2))
    if high == math.inf:  # 400 digits read as a float
        raise UserError(f"invalid scale {describe(text)}: the high end is too large for a number")
    if not low < high:
        raise UserError(f"invalid scale {text!r}: the low end must be below the high end")
    return ScoreRange(low, high)


def infer_scale(text: str, aspect: str) -> ScoreRange | None:
    """The scale a template's text declares for ``aspect``, or ``None`` when it declares none.

    Looks for the aspect's name followed by a range in parentheses, as G-Eval writes it:
    ``Coherence (1-5) - ...``, ``Fluency (1-3):``, ``Groundedness (0-1)`` (case-insensitive; ``_`` in the
    aspect may be written as a blank). The first such mention wins, as the text says it (even against the
    human scale: see the module docstring).
    """
    words = [re.escape(word) for word in re.split(r"[_\s-]+", aspect.strip()) if word]
    if not words:
        return None
    name = r"[\s_-]+".join(words)
    pattern = re.compile(rf"(?<![A-Za-z]){name}\s*\(\s*({_NUMBER})\s*[-\u2013\u2014]\s*({_NUMBER})\s*\)", re.IGNORECASE)
    for match in pattern.finditer(text):
        low, high = float(match.group(1)), float(match.group(2))
        if low < high:
            return ScoreRange(low, high)
    return None


def _split_front_matter(raw: str, source: str) -> tuple[dict[str, str] | None, str]:
    """Split ``raw`` into (front matter or None, body). Without front matter the body is ``raw`` as is."""
    lines = raw.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").strip() != _DELIMITER:
        return None, raw
    meta: dict[str, str] = {}
    for index, line in enumerate(lines[1:], start=1):
        content = line.rstrip("\r\n").strip()
        if content == _DELIMITER:
            body = "".join(lines[index + 1 :]).rstrip()
            return meta, body
        if not content or content.startswith("#"):
            continue
        key, sep, value = content.partition(":")
        key = key.strip().lower()
        if not sep or not key:
            raise UserError(f"template {source}, front matter line {index + 1}: expected 'key: value', got {content!r}")
        if key not in _FRONT_MATTER_KEYS:
            raise UserError(
                f"template {source}, front matter line {index + 1}: unknown key {key!r}; "
                f"valid keys: {', '.join(_FRONT_MATTER_KEYS)}"
            )
        if key in meta:
            raise UserError(f"template {source}, front matter line {index + 1}: {key!r} is given twice")
        meta[key] = value.strip()
    raise UserError(f"template {source}: the front matter opened by '---' on line 1 is never closed by '---'")


def _parse_template(
    raw: str,
    *,
    source: str,
    aspect: str,
    dataset: str | None,
    scale: ScoreRange | None,
    fallback_scale: bool,
) -> Template:
    """Build a Template from a file's text (front matter optional), resolving its scale."""
    if not raw.strip():
        raise UserError(f"template {source} is empty")
    meta, body = _split_front_matter(raw, source)
    meta = meta or {}
    if not body.strip():
        raise UserError(f"template {source} has front matter but no template text after it")
    for key, wanted in (("aspect", aspect), ("dataset", dataset)):
        declared = meta.get(key)
        if declared and wanted is not None and declared not in (wanted, template_set(wanted)):
            raise UserError(f"template {source} is declared for {key} {declared!r}, but {key} {wanted!r} was asked for")
    dataset = dataset if dataset is not None else (meta.get("dataset") or None)
    placeholders = placeholders_of(body)
    check_placeholders(placeholders, dataset, source)
    if meta.get("inputs"):
        declared_inputs = [name.strip() for name in meta["inputs"].split(",") if name.strip()]
        if sorted(declared_inputs) != sorted(placeholders):
            raise UserError(
                f"template {source}: front matter says inputs: {', '.join(declared_inputs)}, "
                f"but the text uses {', '.join(placeholders) or 'no placeholders'}"
            )
    if scale is None and meta.get("scale"):
        try:
            scale = parse_scale(meta["scale"])
        except UserError as exc:
            raise UserError(f"template {source}, front matter: {exc}") from None
    if scale is None:
        scale = infer_scale(body, aspect)
    if scale is None and fallback_scale and dataset is not None:
        with contextlib.suppress(UserError):
            scale = builtin_template(dataset, aspect).scale
    if scale is None:
        raise UserError(
            f"template {source}: cannot tell the score range for {aspect}; give it with --scale "
            f"(e.g. --scale 1-5) or write it in the template as '{_aspect_label(aspect)} (1-5)'"
        )
    return Template(dataset=dataset, aspect=aspect, text=body, scale=scale, placeholders=placeholders, source=source)


def _builtin_dir(dataset: str = "") -> Traversable:
    """The folder of ``dataset``'s built-in templates (all of them: the folder of the folders)."""
    return resources.files("debate_eval.tasks") / "templates" / dataset


def builtin_aspects(dataset: str) -> list[str]:
    """The aspects with a built-in template for ``dataset``, sorted.

    Raises :class:`UserError` listing the datasets that have templates when ``dataset`` has none.
    """
    folders = _builtin_dir().iterdir()
    datasets = sorted(entry.name for entry in folders if entry.is_dir() and not entry.name.startswith(("_", ".")))
    dataset = template_set(dataset)
    if dataset not in datasets:
        raise UserError(
            f"no built-in templates for dataset {dataset!r}; datasets with templates: {', '.join(datasets)}"
        )
    return sorted(
        entry.name.removesuffix(".txt")
        for entry in _builtin_dir(dataset).iterdir()
        if entry.is_file() and entry.name.endswith(".txt")
    )


@cache
def builtin_template(dataset: str, aspect: str) -> Template:
    """The project's template for ``aspect`` of ``dataset`` (source ``builtin:<dataset>/<aspect>``).

    Raises :class:`UserError` listing the valid aspects (or datasets) when there is none.
    """
    dataset = template_set(dataset)
    aspects = builtin_aspects(dataset)
    if aspect not in aspects:
        raise UserError(
            f"no built-in template for aspect {aspect!r} of dataset {dataset}; valid aspects: {', '.join(aspects)}"
        )
    source = f"builtin:{dataset}/{aspect}"
    raw = (_builtin_dir(dataset) / f"{aspect}.txt").read_bytes().decode("utf-8")
    return _parse_template(raw, source=source, aspect=aspect, dataset=dataset, scale=None, fallback_scale=False)


def load_template_file(
    path: Path,
    *,
    aspect: str,
    dataset: str | None = None,
    scale: ScoreRange | None = None,
    universal_newlines: bool = False,
) -> Template:
    """Load a user's template file (``--template FILE``) for ``aspect``: its format, its scale and
    ``universal_newlines`` (``--fidelity authors-code``) as the module docstring says. Raises :class:`UserError`
    (naming the path) for a missing, unreadable, non-UTF-8 or empty file, an unknown placeholder, a front matter
    that contradicts ``aspect``/``dataset``, or when no scale can be found."""
    path = Path(path)
    try:  # a missing, unreadable or non-UTF-8 file is one line naming it a template
        raw = decode_text(path, read_bytes(path))
    except UserError as exc:
        raise UserError(f"template {exc}") from None
    if universal_newlines:  # what reading the file in Python's text mode gives
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    return _parse_template(raw, source=str(path), aspect=aspect, dataset=dataset, scale=scale, fallback_scale=True)


def resolve_template(
    dataset: str,
    aspect: str,
    path: Path | None = None,
    scale: ScoreRange | None = None,
    *,
    universal_newlines: bool = False,
) -> Template:
    """The template a run uses: the file at ``path`` if given, else the built-in one.

    An explicit ``scale`` overrides the template's own scale in both cases; ``universal_newlines``: see
    ``load_template_file``.
    """
    if path is not None:
        return load_template_file(
            Path(path), aspect=aspect, dataset=dataset, scale=scale, universal_newlines=universal_newlines
        )
    template = builtin_template(dataset, aspect)
    if scale is not None and scale != template.scale:
        template = replace(template, scale=scale)
    return template
