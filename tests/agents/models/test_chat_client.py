"""The default path's chat client posts what AutoGen's OpenAI client posts, byte for byte, and returns the same.

The reference is AutoGen's own client (``BaseOpenAIChatCompletionClient``) over the same SDK client: both
send to the scripted server (bodies) or to a mock transport (answers AutoGen's client maps in some way).
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, get_args

import httpx2
import openai
import pytest
from autogen_core import EVENT_LOGGER_NAME, FunctionCall
from autogen_core.logging import LLMCallEvent
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    ModelFamily,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import FunctionTool
from autogen_ext.models.openai import BaseOpenAIChatCompletionClient

from debate_eval.agents.models.chat_client import OpenAIChatClient, converts_like_gpt, token_logprobs
from debate_eval.agents.models.providers.openai import GENERIC_MODEL_INFO
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.sdk_body_passthrough import PlainBodyClient

HISTORIES: dict[str, list[LLMMessage]] = {
    "system and user": [SystemMessage(content="You are a Scorer.  \n"), UserMessage(content='Rate: ü "q"', source="u")],
    "a debate's history": [
        SystemMessage(content="You are the Critic."),
        UserMessage(content="The text.", source="Commander"),
        AssistantMessage(content="Issue: it rambles. ", source="Critic", thought="not sent"),
        UserMessage(content="", source="Commander"),
        AssistantMessage(content="", source="Critic"),
    ],
    "adjacent system messages": [
        SystemMessage(content="One."),
        SystemMessage(content="  Two.\n"),
        UserMessage(content="hi", source="user"),
    ],
    "an empty system message": [SystemMessage(content=" \n"), UserMessage(content="hi", source="user")],
    "user first": [UserMessage(content="hi", source="user"), SystemMessage(content="late system")],
    "no messages of the system": [UserMessage(content="hi", source="user")],
}
FAILING: dict[str, list[LLMMessage]] = {  # AutoGen refuses these: the same error, nothing sent
    "system messages apart": [
        SystemMessage(content="One."),
        UserMessage(content="hi", source="user"),
        SystemMessage(content="Two."),
    ],
    "a source with a space": [UserMessage(content="hi", source="the user")],
    "a source too long": [UserMessage(content="hi", source="x" * 65)],
}
MODELS = ["scripted", "gpt-4o-mini", "claude-3-haiku", "gemini-1.5-flash", "mistral-large", "llama-3.3-70b"]


def with_capture(sent: list[bytes]) -> httpx2.AsyncClient:
    """An HTTP client that keeps every request's body bytes."""

    async def keep(request: httpx2.Request) -> None:
        sent.append(request.content)

    return httpx2.AsyncClient(event_hooks={"request": [keep]})


def both_clients(
    base_url: str, http: httpx2.AsyncClient, model: str, family: str, multiple_system: bool = False, **create_args: Any
) -> tuple[Any, Any]:
    """AutoGen's client and ours, each over its own ``PlainBodyClient`` of an SDK client over ``http``."""
    info = {**GENERIC_MODEL_INFO, "family": family}
    if multiple_system:  # the model takes several system messages: AutoGen does not merge them
        info["multiple_system_messages"] = True
    args = {"model": model, **create_args}

    def sdk() -> PlainBodyClient:
        return PlainBodyClient(openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0, http_client=http))

    reference = BaseOpenAIChatCompletionClient(
        client=sdk(),  # type: ignore[arg-type]
        create_args=dict(args),
        model_info=info,  # type: ignore[arg-type]
        include_name_in_message=False,
    )
    return reference, OpenAIChatClient(sdk(), args, info)  # type: ignore[arg-type]


async def outcome(call: Callable[[], Any]) -> Any:
    """The call's result, or its error's type and message."""
    try:
        return await call()
    except Exception as error:  # compared between the clients
        return (type(error), str(error))


def test_every_family_and_model_name_gets_autogens_bytes_and_result() -> None:
    # the model's family (or, for an unknown family, its name) picks how AutoGen converts messages
    combos = [("scripted", family, False) for family in sorted(set(get_args(ModelFamily.ANY)))]
    combos += [(model, "unknown", False) for model in MODELS[1:]] + [("scripted", "unknown", True)]
    extras: list[dict[str, Any]] = [{}, {"max_tokens": 7, "logprobs": True, "top_logprobs": 2, "extra_body": {"g": 1}}]
    refused: list[dict[str, Any]] = [{"tools": []}, {"stream": True}, {"not_a_create_argument": 1}]  # by AutoGen
    with ScriptedOpenAIServer(top_logprobs={"3": -0.1, "4": -2.3}) as server:

        async def run() -> list[tuple[list[bytes], Any, Any]]:
            found = []
            sent: list[bytes] = []
            http = with_capture(sent)  # one connection pool for every call
            for model, family, multiple_system in combos:
                reference, ours = both_clients(server.base_url, http, model, family, multiple_system, temperature=0)
                for index, messages in enumerate((*HISTORIES.values(), *FAILING.values())):
                    extra = extras[index % 2]
                    expected = await outcome(partial(reference.create, list(messages), extra_create_args=extra))
                    got = await outcome(partial(ours.create, list(messages), extra_create_args=extra))
                    found.append((list(sent), expected, got))
                    sent.clear()
                for extra in refused:
                    messages = HISTORIES["system and user"]
                    expected = await outcome(partial(reference.create, list(messages), extra_create_args=extra))
                    got = await outcome(partial(ours.create, list(messages), extra_create_args=extra))
                    assert isinstance(expected, tuple) and got == expected and not sent
            await http.aclose()
            return found

        results = asyncio.run(run())
    assert len(results) == len(combos) * (len(HISTORIES) + len(FAILING))
    for sent, expected, got in results:
        assert len(sent) in (0, 2)  # both sent, or neither (refused before sending)
        assert sent[1:] == sent[:1]  # byte for byte
        assert got == expected  # the same CreateResult (content, usage, finish reason, logprobs), or error
    assert sum(len(sent) == 2 for sent, _, _ in results) >= len(combos) * len(HISTORIES)


def test_text_chats_of_gpt_like_models_are_written_here_others_go_to_autogen() -> None:
    assert converts_like_gpt("scripted", GENERIC_MODEL_INFO)
    assert converts_like_gpt("gpt-4o-mini", GENERIC_MODEL_INFO)
    assert not converts_like_gpt("claude-3-haiku", GENERIC_MODEL_INFO)  # Claude's own conversion
    assert not converts_like_gpt("gemini-1.5-flash", GENERIC_MODEL_INFO)
    assert not converts_like_gpt("scripted", {**GENERIC_MODEL_INFO, "family": ModelFamily.R1})  # its <think> split
    assert not converts_like_gpt("scripted", {**GENERIC_MODEL_INFO, "family": ModelFamily.MISTRAL})

    delegated: list[str] = []

    class Spy(BaseOpenAIChatCompletionClient):
        async def create(self, messages: Any, **kwargs: Any) -> Any:
            delegated.append(type(messages[-1]).__name__)
            return await super().create(messages, **kwargs)

    def tool(x: int) -> int:
        """A tool."""
        return x

    with ScriptedOpenAIServer() as server:

        async def run() -> None:
            _, ours = both_clients(server.base_url, httpx2.AsyncClient(), "scripted", "unknown")
            ours.inner.__class__ = Spy
            await ours.create(HISTORIES["a debate's history"])
            assert delegated == []  # a text chat: written here
            result = FunctionExecutionResultMessage(
                content=[FunctionExecutionResult(content="1", call_id="c", is_error=False, name="tool")]
            )
            call = AssistantMessage(content=[FunctionCall(id="c", arguments="{}", name="tool")], source="a")
            with pytest.raises(ValueError, match="function calling"):  # AutoGen's own refusal
                await ours.create([UserMessage(content="x", source="u")], tools=[FunctionTool(tool, "A tool.")])
            await ours.create([UserMessage(content="x", source="u"), call, result])
            await ours.create([UserMessage(content="x", source="u")], json_output=False)
            assert delegated == ["UserMessage", "FunctionExecutionResultMessage", "UserMessage"]
            assert ours.total_usage().prompt_tokens > 0
            await ours.close()

        asyncio.run(run())


ANSWERS: dict[str, dict[str, Any]] = {  # message and finish reason of an answer, as an endpoint may send them
    "reasoning content": {"message": {"role": "assistant", "content": "4", "reasoning_content": "why"}},
    "no usage, no finish reason": {"message": {"role": "assistant", "content": "4"}, "finish_reason": None},
    "a capitalised finish reason": {"message": {"role": "assistant", "content": "4"}, "finish_reason": "END_TURN"},
    "a cut answer": {"message": {"role": "assistant", "content": "4 be"}, "finish_reason": "length"},
    "tool calls": {
        "message": {
            "role": "assistant",
            "content": "thinking",
            "tool_calls": [
                {"id": "t", "type": "function", "function": {"name": "a.b c", "arguments": {"x": 1}}},
                {"id": "u", "type": "function", "function": {"name": "ok", "arguments": "{}"}},
            ],
        },
        "finish_reason": "stop",
    },
    "a function call": {
        "message": {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}
    },
}


@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_answers_map_to_the_same_result_warnings_and_errors(answer: str) -> None:
    choice = {"index": 0, "finish_reason": "stop", **ANSWERS[answer]}
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [choice]}
    if answer != "no usage, no finish reason":
        body["usage"] = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}

    def respond(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=body)

    def client(kind: Any) -> Any:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
        sdk = PlainBodyClient(openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", http_client=http))
        if kind is OpenAIChatClient:
            return OpenAIChatClient(sdk, {"model": "m"}, GENERIC_MODEL_INFO)
        return kind(
            client=sdk, create_args={"model": "m"}, model_info=GENERIC_MODEL_INFO, include_name_in_message=False
        )

    async def run(kind: Any) -> tuple[Any, list[str], Any]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made = client(kind)
            got = await outcome(lambda: made.create([UserMessage(content="hi", source="u")]))
        # AutoGen's client also warns while dumping the answer for its event log, built here only when that log
        # is on (the last test)
        warned = [str(w.message) for w in caught if not str(w.message).startswith("Pydantic serializer")]
        return got, warned, made.total_usage()

    expected, ours = asyncio.run(run(BaseOpenAIChatCompletionClient)), asyncio.run(run(OpenAIChatClient))
    assert ours == expected
    assert bool(ours[1]) == (answer == "tool calls")  # AutoGen's two warnings about such an answer
    if answer == "tool calls":  # the names AutoGen normalises, the arguments it turns into a string
        assert [(c.name, c.arguments) for c in ours[0].content] == [("a_b_c", '{"x": 1}'), ("ok", "{}")]
        assert ours[0].thought == "thinking" and ours[0].finish_reason == "function_calls"


def test_the_llm_call_event_is_written_when_autogens_event_log_takes_it() -> None:
    events: list[LLMCallEvent] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if isinstance(record.msg, LLMCallEvent):
                events.append(record.msg)

    logger = logging.getLogger(EVENT_LOGGER_NAME)
    handler, level = Keep(), logger.level
    with ScriptedOpenAIServer() as server:

        async def run() -> None:
            reference, ours = both_clients(server.base_url, httpx2.AsyncClient(), "scripted", "unknown")
            messages = HISTORIES["a debate's history"]
            await ours.create(messages)  # the log is off: no event made
            assert events == []
            logger.addHandler(handler)
            logger.setLevel(logging.INFO)
            try:
                await reference.create(messages)
                await ours.create(messages)
            finally:
                logger.removeHandler(handler)
                logger.setLevel(level)
            await ours.close()

        asyncio.run(run())
    assert len(events) == 2
    reference_event, our_event = (json.loads(str(event)) for event in events)
    for event in (reference_event, our_event):
        event["response"].pop("created")
        event["response"].pop("id")
    assert our_event == reference_event


def test_log_probabilities_in_another_shape_read_as_none() -> None:
    # a provider's own shape (a dict, as LiteLLM passes on one that is not OpenAI's) and no answer's: none
    assert token_logprobs({"content": [{"token": "3", "logprob": -0.1}]}) is None
    assert token_logprobs(None) is None and token_logprobs(openai.types.chat.chat_completion.ChoiceLogprobs()) is None
