"""How a failed item's error reads: one line, secrets masked, and what the user can do about it."""

from __future__ import annotations

from collections.abc import Mapping

import openai

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
    if first.startswith(_CONNECTION_ERRORS):  # "Connection error." says nothing: add what caused it
        cause = _cause_line(error, text)
        if cause:
            first += f" ({cause})"
    return redact(first[:500])


_CONNECTION_ERRORS = ("APIConnectionError:", "APITimeoutError:")
_DIRECT_CAUSE = "The above exception was the direct cause of the following exception:"


def _cause_line(error: BaseException, text: str) -> str | None:
    """The direct cause of an SDK connection or timeout error on one line ("ConnectError: [Errno 24] Too many
    open files"): from the exception's ``__cause__``, or from the traceback text AutoGen's team puts in the
    ``RuntimeError`` it raises instead."""
    cause = error.__cause__ if isinstance(error, openai.APIConnectionError) else None
    if cause is not None and str(cause).strip():
        return f"{type(cause).__name__}: {str(cause).strip().splitlines()[0]}"
    if _DIRECT_CAUSE not in text:
        return None
    lines = [line.strip() for line in text.rsplit(_DIRECT_CAUSE, 1)[0].splitlines() if line.strip()]
    if not lines:
        return None
    name, colon, message = lines[-1].partition(": ")
    return f"{name.rsplit('.', 1)[-1]}: {message}" if colon else name.rsplit(".", 1)[-1]


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
