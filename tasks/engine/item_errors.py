"""How a failed item's error reads: one line, secrets masked, and what the user can do about it."""

from __future__ import annotations

from collections.abc import Mapping

from debate_eval.agents.models.responses import BadResponseError, EmptyAnswerError
from debate_eval.agents.redaction import redact

CONTEXT_LENGTH = "ContextLengthError"
_CONTEXT_LENGTH_SIGNS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "exceeds the available context size",
    "exceed_context_size",
    "too many tokens",
)


def describe_error(error: BaseException) -> str:
    """One line naming the error, with secrets masked (AutoGen wraps agent errors with a traceback).

    An endpoint's 200 that was no completion and an empty answer say so in their own words; a request
    longer than the model's context window becomes ``ContextLengthError`` (a rerun cannot fix it).
    """
    if isinstance(error, BadResponseError | EmptyAnswerError):
        return redact(f"{type(error).__name__}: {error.message}"[:500])
    text = str(error).strip() or type(error).__name__
    first = text.splitlines()[0]
    if any(sign in text.lower() for sign in _CONTEXT_LENGTH_SIGNS):
        return redact(f"{CONTEXT_LENGTH}: the request is longer than the model's context window ({first[:300]})")
    if not first.startswith(type(error).__name__) and type(error).__name__ != "RuntimeError":
        first = f"{type(error).__name__}: {first}"
    return redact(first[:500])


def failed_items_note(errors: Mapping[str, int]) -> str:
    """The summary line about failed items: which kinds a rerun retries, and what to do about the others."""
    kinds = ", ".join(f"{kind} x{count}" for kind, count in sorted(errors.items()))
    note = f"failed items: {kinds} (see the 'error' field"
    if CONTEXT_LENGTH in errors:
        note += (
            f"; {CONTEXT_LENGTH}: a rerun with the same settings fails again: use a model with a longer context "
            "window, fewer --max-rounds, a lower --max-tokens, or shorter inputs (--limit/--docs to skip them)"
        )
        if len(errors) > 1:
            note += "; a rerun retries the other failed items"
        return note + ")"
    return note + "; a rerun retries them)"
