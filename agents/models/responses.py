"""A 200 answer that is no chat completion is an endpoint fault, not a result.

Gateways and proxies sometimes answer ``200 OK`` with an HTML page, garbled bytes or an empty body. The
OpenAI SDK then raises ``JSONDecodeError`` / ``UnicodeDecodeError`` deep inside AutoGen, or hands AutoGen a
string (``'str' object has no attribute 'usage'``).

``check_chat_completion``, a response observer of the run's HTTP client (``http_client.py``), looks at the body
of every ``POST .../chat/completions`` that answered 200 before the SDK does and raises one of:

- ``BadResponseError`` (an ``openai.APIConnectionError``): not JSON, not an object, or no ``choices``. It is
  transient: ``RetryingClient`` retries it like a dropped connection, with the run's ``--max-retries``; its
  message names the endpoint and what came back, on one line.
- ``EmptyAnswerError`` (an ``openai.APIError``): a well-formed completion whose answer is empty. Not
  retried (a deterministic model would answer the same) and, being an error, never cached: the item fails
  with one line and a rerun asks again.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai

from debate_eval.agents.models.http_client import HttpOptions, build_http_client
from debate_eval.agents.models.http_usage import CHAT_PATH, answer_body, note_chat_usage
from debate_eval.agents.models.settings import public_url
from debate_eval.agents.redaction import redact

SNIPPET_CHARS = 80


class BadResponseError(openai.APIConnectionError):
    """The endpoint answered 200 with a body that is not a chat completion (retried as transient)."""

    def __init__(self, message: str, request: httpx2.Request) -> None:
        super().__init__(message=redact(message), request=request)


class EmptyAnswerError(openai.APIError):
    """The endpoint returned a chat completion with an empty answer (final; never cached)."""

    def __init__(self, message: str, request: httpx2.Request, finish_reason: str | None) -> None:
        super().__init__(redact(message), request, body=None)
        self.finish_reason = finish_reason


def snippet(content: bytes) -> str:
    """The start of a body, decoded leniently, on one line (for an error message)."""
    text = " ".join(content[: SNIPPET_CHARS * 4].decode("utf-8", errors="replace").split())
    return repr(text[:SNIPPET_CHARS] + ("..." if len(text) > SNIPPET_CHARS else ""))


def check_chat_completion(request: httpx2.Request, response: httpx2.Response) -> None:
    """Response observer (``http_client.ResponseObserver``): on a 200 to a non-streamed chat completion, raise
    ``BadResponseError`` / ``EmptyAnswerError`` unless its body is a usable chat completion."""
    content = answer_body(request, response, CHAT_PATH)
    if content is None:
        return
    if not content.strip():
        raise BadResponseError(f"{_answered(request)} an empty body ({_kind(response)})", request)
    try:
        body: Any = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        raise BadResponseError(
            f"{_answered(request)} a body that is not JSON ({_kind(response)}, {len(content)} bytes: "
            f"{snippet(content)})",
            request,
        ) from None
    if not isinstance(body, dict):
        raise BadResponseError(f"{_answered(request)} JSON that is not an object: {snippet(content)}", request)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = body.get("error")
        detail = f"an error: {snippet(json.dumps(error).encode())}" if error else f"no choices: {snippet(content)}"
        raise BadResponseError(f"{_answered(request)} JSON without a completion ({detail})", request)
    message = choices[0].get("message")
    if not isinstance(message, dict):
        message = {}
    text = message.get("content")
    if (isinstance(text, str) and text.strip()) or message.get("tool_calls"):
        return
    finish = choices[0].get("finish_reason")
    hint = "; raise --max-tokens" if finish == "length" else "; a rerun asks again"
    raise EmptyAnswerError(
        f"the model at {public_url(str(request.url))} returned an empty answer (finish_reason={finish}){hint}",
        request,
        finish,
    )


def _answered(request: httpx2.Request) -> str:
    """The start of a ``BadResponseError`` message (formatted only when the check fails)."""
    return f"the endpoint {public_url(str(request.url))} answered HTTP 200 with"


def _kind(response: httpx2.Response) -> str:
    return response.headers.get("content-type", "").split(";")[0].strip() or "no content type"


CHAT_OBSERVERS = (check_chat_completion, note_chat_usage)  # what an OpenAI-style chat endpoint's answers pass


def chat_http_client(options: HttpOptions | None = None) -> httpx2.AsyncClient:
    """The HTTP client of an OpenAI-style chat endpoint: ``build_http_client`` with ``CHAT_OBSERVERS``."""
    return build_http_client(options, CHAT_OBSERVERS)
