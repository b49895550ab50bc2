"""What a completion's answer may be used for: a text answer, with every configured secret redacted.

``AnswerCheckClient`` sits right under the response cache (see ``wrappers``), so what it lets through is what
the cache stores and what every agent, transcript, result and report sees:

- a tool call (``content`` a list of function calls, the text null) is no answer: ``ToolCallAnswerError``, so
  the item fails in one line, nothing is cached and a rerun asks again (AutoGen would otherwise store its
  own "tool not found" text as the agent's answer and forward it);
- an answer the provider's content filter stopped (``finish_reason: content_filter``) is no answer either,
  even when its partial text holds "Score: 5": ``ContentFilterError``, the same way;
- every configured secret in the text (and in a reasoning model's thought) is redacted
  (``agents.redaction``), so an endpoint that echoes its key in a 200 answer leaks it nowhere.

Both errors carry the call's result, so ``ObservedClient`` still records its tokens (usage and cost count
every call). An answer cut at the token limit (``finish_reason: length``) is kept: its finish reason is
recorded per call and the run flags it when the deciding answer has no score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_core.models import CreateResult, LLMMessage

from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.redaction import redact, redact_counted


class UnusableAnswerError(RuntimeError):
    """A completion that is no text answer; ``result`` is the completion (its usage is counted)."""

    def __init__(self, message: str, result: CreateResult) -> None:
        super().__init__(redact(message))
        self.result = result


class ToolCallAnswerError(UnusableAnswerError):
    """The model answered with tool calls instead of text."""


class ContentFilterError(UnusableAnswerError):
    """The provider's content filter stopped the answer."""


def checked_answer(result: CreateResult) -> CreateResult:
    """``result`` with its secrets redacted, or an ``UnusableAnswerError`` when it is no text answer."""
    if not isinstance(result.content, str):
        names = ", ".join(sorted({str(getattr(call, "name", "?")) for call in result.content})) or "none named"
        raise ToolCallAnswerError(
            f"the model answered with a tool call ({names}) and no text "
            "(finish_reason=tool_calls); an answer must be text; a rerun asks again",
            result,
        )
    if result.finish_reason == "content_filter":
        raise ContentFilterError(
            "the provider's content filter stopped the answer "
            f"(finish_reason=content_filter, {len(result.content)} characters of partial text not used); "
            "a rerun asks again",
            result,
        )
    return redacted_result(result)


def redacted_result(result: CreateResult) -> CreateResult:
    """``result`` with every configured secret masked in its text and thought (the same object when none)."""
    assert isinstance(result.content, str)
    content, found = redact_counted(result.content)
    thought, found_in_thought = redact_counted(result.thought) if result.thought else (result.thought, 0)
    if not found and not found_in_thought:
        return result
    return result.model_copy(update={"content": content, "thought": thought})


class AnswerCheckClient(DelegatingClient):
    """Passes a completion on only when it is a text answer, with its secrets redacted (see module doc)."""

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request; check and redact its answer."""
        return checked_answer(await self.inner.create(messages, **kwargs))
