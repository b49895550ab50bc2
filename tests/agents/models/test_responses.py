"""The chat completion check of every answer (agents/models/responses.py), decided from the answer alone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest

from debate_eval.agents.models.responses import BadResponseError, EmptyAnswerError, check_chat_completion

URL = "http://127.0.0.1:9/v1/chat/completions"
COMPLETION = b'{"choices": [{"message": {"role": "assistant", "content": "Score: 3"}, "finish_reason": "stop"}]}'


def answer(body: bytes, content_type: str = "application/json", request_body: bytes = b"{}") -> httpx2.Response:
    request = httpx2.Request("POST", URL, content=request_body)
    return httpx2.Response(200, content=body, request=request, headers={"content-type": content_type})


def test_a_usable_completion_passes_and_a_page_or_an_empty_answer_does_not() -> None:
    good = answer(COMPLETION)
    check_chat_completion(good.request, good)
    page = answer(b"<html>gateway</html>", "text/html")
    with pytest.raises(BadResponseError, match="not JSON"):
        check_chat_completion(page.request, page)
    empty = answer(b'{"choices": [{"message": {"content": ""}, "finish_reason": "length"}]}')
    with pytest.raises(EmptyAnswerError, match="raise --max-tokens"):
        check_chat_completion(empty.request, empty)


def test_the_request_body_is_not_read_again() -> None:
    """Whatever the request held (here no JSON at all), the answer alone decides."""
    page = answer(b"<html>gateway</html>", "text/html", request_body=b"\xff not json")
    with pytest.raises(BadResponseError):
        check_chat_completion(page.request, page)


async def _events() -> AsyncIterator[bytes]:
    yield b"data: {}\n\n"


def test_a_streamed_answer_is_left_to_its_reader() -> None:
    request = httpx2.Request("POST", URL, content=b'{"stream": true}')
    unread = httpx2.Response(200, content=_events(), request=request, headers={"content-type": "text/event-stream"})
    check_chat_completion(request, unread)  # not read yet: nothing to check, nothing read
    assert not unread.is_stream_consumed
    read = answer(b"data: {}\n\n", "text/event-stream; charset=utf-8")
    check_chat_completion(read.request, read)  # an event stream is no chat completion body


def test_other_routes_and_statuses_are_not_checked() -> None:
    request = httpx2.Request("GET", "http://127.0.0.1:9/v1/models")
    check_chat_completion(request, httpx2.Response(200, content=b"<html>", request=request))
    error = answer(b"<html>bad gateway</html>", "text/html")
    error.status_code = 502
    check_chat_completion(error.request, error)
