"""``OpenAIChatClient``: the default path's model client for OpenAI-compatible endpoints.

It posts the body AutoGen's ``BaseOpenAIChatCompletionClient`` posts, through the same ``PlainBodyClient``
(``sdk_body_passthrough.py``: the run's ``openai.AsyncOpenAI``, its HTTP client and observers), and returns
the same ``CreateResult``, without AutoGen's per-call work that a text chat does not need: the create-argument
processing, the message conversion through its transformer registry (rebuilt for every message of the
growing history on every call) and ``LLMCallEvent``'s ``model_dump`` of the response, made also while AutoGen's
event log is off (here only when that log takes INFO records).

It is a plain ``ChatCompletionClient`` (autogen_core's public interface). A call it does not write itself
goes to AutoGen's client over the same SDK client, unchanged: tools, structured or JSON output, images,
function calls and results in the history, an invalid message source, create arguments AutoGen refuses, and
every call of a client whose model AutoGen converts in its own way (Claude, Gemini, Mistral and R1 families,
``claude-*`` names). The written bodies equal AutoGen's byte for byte (tests/agents/models/test_chat_client.py
compares them on the scripted server for every model family). Unlike AutoGen's client it does not warn when
the answering model's name differs from the requested one (AutoGen's "Resolved model mismatch", about its own
model table, which every run filters out).
"""

from __future__ import annotations

import asyncio
import logging
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, get_args

from autogen_core import EVENT_LOGGER_NAME, CancellationToken
from autogen_core.logging import LLMCallEvent
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionTokenLogprob,
    CreateResult,
    LLMMessage,
    ModelFamily,
    ModelInfo,
    RequestUsage,
    SystemMessage,
    TopLogprob,
    UserMessage,
)
from autogen_ext.models.openai import BaseOpenAIChatCompletionClient
from openai.types.chat import completion_create_params

from debate_eval.agents.models.client_layers import DelegatingClient

_EVENTS = logging.getLogger(EVENT_LOGGER_NAME)  # the logger AutoGen's client writes its LLMCallEvent to
# the create arguments AutoGen's client accepts in extra_create_args (the SDK's, plus three of its own)
CREATE_KEYS = frozenset(completion_create_params.CompletionCreateParamsBase.__annotations__) | {
    "timeout",
    "stream",
    "extra_body",
}
PLAIN_CALL = frozenset({"tools", "tool_choice", "json_output", "extra_create_args", "cancellation_token"})
_VALID_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")  # a message source AutoGen sends (else it raises)
_FINISH = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "function_calls": "function_calls",
    "end_turn": "stop",
    "tool_calls": "function_calls",
}  # AutoGen's normalisation of a finish reason (anything else: "unknown")


def token_logprobs(choice_logprobs: Any) -> list[ChatCompletionTokenLogprob] | None:
    """An OpenAI-shaped answer's ``choices[0].logprobs`` (``content`` entries with ``token``, ``logprob``,
    ``bytes``, ``top_logprobs``) as AutoGen's ``CreateResult.logprobs``, mapped as AutoGen's OpenAI client maps
    them; None when the answer has none (or has them in another shape, as a provider's own dict)."""
    if not getattr(choice_logprobs, "content", None):
        return None
    return [
        ChatCompletionTokenLogprob(
            token=entry.token,
            logprob=entry.logprob,
            top_logprobs=[TopLogprob(logprob=top.logprob, bytes=top.bytes) for top in entry.top_logprobs],
            bytes=entry.bytes,
        )
        for entry in choice_logprobs.content
    ]


def converts_like_gpt(model: str, model_info: ModelInfo) -> bool:
    """Whether AutoGen's client converts text messages for ``model`` the way it does for GPT models (its base
    transformer map: no name, the content as it is): the family it picks (``model_info``'s, else the longest
    family name the model's name starts with) is none of Claude, Gemini or Mistral, nor R1 (whose answers it
    splits into thought and content), and the name does not start with ``claude-`` (whose last assistant
    message it strips)."""
    families = get_args(ModelFamily.ANY)
    family = model_info["family"]
    if family not in families or family == ModelFamily.UNKNOWN:
        prefixes = [name for name in families if model.startswith(name)]
        family = max(prefixes, key=len) if prefixes else ModelFamily.UNKNOWN
    special = ModelFamily.is_claude(family) or ModelFamily.is_gemini(family) or ModelFamily.is_mistral(family)
    return not special and model_info["family"] != ModelFamily.R1 and not model.startswith("claude-")


class OpenAIChatClient(DelegatingClient):
    """AutoGen's OpenAI chat client's requests and results for text chats, at less CPU per call (see the module
    docstring); ``inner`` is AutoGen's client over the same SDK client, which takes every other call."""

    def __init__(self, client: Any, create_args: Mapping[str, Any], model_info: ModelInfo | None = None) -> None:
        """``client``: the SDK client to post through (``PlainBodyClient``); ``create_args``: ``model`` and the
        decoding settings sent with every request; ``model_info``: required for a model AutoGen does not know
        (AutoGen's "model_info is required" ``ValueError`` otherwise)."""
        super().__init__(
            BaseOpenAIChatCompletionClient(
                client=client, create_args=dict(create_args), model_info=model_info, include_name_in_message=False
            )
        )
        self._client = client
        self._create_args = dict(create_args)
        info = self.inner.model_info
        self._writes_text = converts_like_gpt(str(create_args.get("model", "unknown")), info)
        self._one_system = not info.get("multiple_system_messages", False)
        self._total = RequestUsage(prompt_tokens=0, completion_tokens=0)

    def wire_messages(self, messages: Sequence[LLMMessage]) -> list[dict[str, Any]] | None:
        """The request's ``messages`` as AutoGen's client writes them, or None for a history it converts
        otherwise (anything but text from valid sources) or refuses (non-adjacent system messages)."""
        wire: list[dict[str, Any]] = []
        system: list[str] = []  # adjacent system messages, merged into one where the first was
        first_system = last_system = -1
        for index, message in enumerate(messages):
            kind = type(message)
            if kind is SystemMessage and self._one_system:
                if first_system == -1:
                    first_system = len(wire)
                elif index != last_system + 1:  # AutoGen refuses it
                    return None
                system.append(message.content)
                last_system = index
            elif kind is SystemMessage:
                wire.append({"content": message.content, "role": "system"})
            elif kind is UserMessage or kind is AssistantMessage:
                source = message.source  # AutoGen checks it even though it does not send it
                if not isinstance(message.content, str) or not _VALID_NAME.match(source) or len(source) > 64:
                    return None
                wire.append({"role": "user" if kind is UserMessage else "assistant", "content": message.content})
            else:  # function results, or a subclass AutoGen may treat otherwise
                return None
        if system:
            merged = "".join(text + "\n" for text in system).rstrip()
            if merged:
                wire.insert(first_system, {"content": merged, "role": "system"})
        return wire

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """One chat completion (the keyword arguments of ``ChatCompletionClient.create``): written here for a text
        chat, else by AutoGen's client (the same body and result either way)."""
        extra = kwargs.get("extra_create_args") or {}
        create_args = {**self._create_args, **extra}
        wire = None
        if (
            self._writes_text
            and PLAIN_CALL.issuperset(kwargs)
            and not kwargs.get("tools")
            and kwargs.get("json_output") is None
            and isinstance(kwargs.get("tool_choice", "auto"), str)
            and CREATE_KEYS.issuperset(extra)
            and "tools" not in create_args  # AutoGen passes its own ``tools`` too: a TypeError
            and not isinstance(create_args.get("response_format"), type)
        ):
            wire = self.wire_messages(messages)
        if wire is None:
            result = await self.inner.create(messages, **kwargs)
            self._add_usage(result.usage)
            return result
        request = self._client.chat.completions.create(messages=wire, stream=False, **create_args)
        token: CancellationToken | None = kwargs.get("cancellation_token")
        if token is None:
            completion = await request
        else:
            future = asyncio.ensure_future(request)
            token.link_future(future)
            completion = await future
        return self._result(wire, completion)

    def _result(self, wire: list[dict[str, Any]], completion: Any) -> CreateResult:
        """``CreateResult`` of a chat completion, as AutoGen's client makes it (and its event, when logged)."""
        usage = completion.usage
        usage = RequestUsage(
            prompt_tokens=getattr(usage, "prompt_tokens", 0) if usage is not None else 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) if usage is not None else 0,
        )
        if _EVENTS.isEnabledFor(logging.INFO):
            event = LLMCallEvent(
                messages=wire,
                response=completion.model_dump(),
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                tools=[],
            )
            _EVENTS.info(event)
        choice = completion.choices[0]
        message = choice.message
        thought: str | None = None
        content: Any
        if message.function_call is not None:
            raise ValueError("function_call is deprecated and is not supported by this model client.")
        if message.tool_calls:
            content, thought, finish = self._tool_calls(choice), message.content or None, "tool_calls"
        else:
            content, finish = message.content or "", choice.finish_reason
            if message.model_extra is not None and message.model_extra.get("reasoning_content") is not None:
                thought = message.model_extra["reasoning_content"]
        logprobs = token_logprobs(choice.logprobs)
        self._add_usage(usage)
        return CreateResult(
            finish_reason=_FINISH.get(finish.lower(), "unknown") if finish is not None else "unknown",  # type: ignore[arg-type]
            content=content,
            usage=usage,
            cached=False,
            logprobs=logprobs,
            thought=thought,
        )

    @staticmethod
    def _tool_calls(choice: Any) -> list[Any]:
        """The answer's tool calls as AutoGen's ``FunctionCall`` list (with its warnings)."""
        import json

        from autogen_core import FunctionCall

        if choice.finish_reason != "tool_calls":
            warnings.warn(
                f"Finish reason mismatch: {choice.finish_reason} != tool_calls "
                "when tool_calls are present. Finish reason may not be accurate. "
                "This may be due to the API used that is not returning the correct finish reason.",
                stacklevel=3,
            )
        calls = []
        for call in choice.message.tool_calls:
            if not isinstance(call.function.arguments, str):
                warnings.warn(
                    f"Tool call function arguments field is not a string: {call.function.arguments}."
                    "This is unexpected and may due to the API used not returning the correct type. "
                    "Attempting to convert it to string.",
                    stacklevel=3,
                )
                if isinstance(call.function.arguments, dict):
                    call.function.arguments = json.dumps(call.function.arguments)
            name = re.sub(r"[^a-zA-Z0-9_-]", "_", call.function.name)[:64]
            calls.append(FunctionCall(id=call.id, arguments=call.function.arguments, name=name))
        return calls

    def _add_usage(self, usage: RequestUsage) -> None:
        self._total = RequestUsage(
            prompt_tokens=self._total.prompt_tokens + usage.prompt_tokens,
            completion_tokens=self._total.completion_tokens + usage.completion_tokens,
        )

    def total_usage(self) -> RequestUsage:
        """Usage of every call so far (``actual_usage`` too: AutoGen's client adds every call to both)."""
        return self._total

    actual_usage = total_usage
