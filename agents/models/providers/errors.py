"""One vocabulary of errors for every provider: the OpenAI SDK's.

The run's retries (``agents/models/retry.py``), its endpoint check (``preflight.py``) and its item errors
read the OpenAI SDK's exception classes (``RateLimitError``, ``APITimeoutError``, ...). A provider whose SDK
raises its own (Anthropic's) wraps its client in ``OpenAIErrors``, which re-raises each of them as the OpenAI
class of the same meaning, with the same HTTP response (status, headers such as Retry-After, body) and the
original error as its cause. Public constructors only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import openai
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from debate_eval.agents.models.client_layers import DelegatingClient

ErrorMapper = Callable[[BaseException], "BaseException | None"]

STATUS_ERRORS: dict[int, type[openai.APIStatusError]] = {
    400: openai.BadRequestError,
    401: openai.AuthenticationError,
    403: openai.PermissionDeniedError,
    404: openai.NotFoundError,
    409: openai.ConflictError,
    422: openai.UnprocessableEntityError,
    429: openai.RateLimitError,
}


def status_error(message: str, response: Any, body: object) -> openai.APIStatusError:
    """The OpenAI SDK's error for an HTTP error ``response`` (5xx: ``InternalServerError``)."""
    status = int(getattr(response, "status_code", 0) or 0)
    kind = STATUS_ERRORS.get(status) or (openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return kind(message, response=response, body=body)


class OpenAIErrors(DelegatingClient):
    """Passes calls to ``inner``; an error that ``mapper`` translates is raised as its translation."""

    def __init__(self, inner: ChatCompletionClient, mapper: ErrorMapper) -> None:
        super().__init__(inner)
        self.mapper = mapper

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request; translate the SDK's error, if it raised one."""
        try:
            return await super().create(messages, **kwargs)
        except Exception as error:
            translated = self.mapper(error)
            if translated is None:
                raise
            if translated is error.__cause__:  # the error the SDK wrapped, given back: no cycle of causes
                raise translated from None
            raise translated from error
