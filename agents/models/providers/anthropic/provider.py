"""``anthropic``: Anthropic's native Messages API (``POST /v1/messages``) through AutoGen's Anthropic client
(``BaseAnthropicChatCompletionClient``) over the ``anthropic`` SDK (``pip install 'debate-eval[anthropic]'``).

- Key: ``ANTHROPIC_API_KEY`` (or the role's ``DEBATE_EVAL_<ROLE>_API_KEY``), sent as ``x-api-key``; URL:
  ``ANTHROPIC_BASE_URL`` or ``--base-url``, default ``https://api.anthropic.com`` (the SDK adds ``/v1``).
- The system message goes into the request's ``system`` field (AutoGen's client merges consecutive ones).
- ``max_tokens`` is required by this API: 4096 unless ``--max-tokens`` says otherwise (every current Claude
  model allows at least that many output tokens; a judge's answer is far shorter).
- No sampling options are sent. The ``anthropic`` SDK from 1.0 on (the versions that share ``httpx2`` with the
  OpenAI SDK, so the run's HTTP client serves both) has no ``temperature``, ``top_p`` or ``top_k`` in
  ``messages.create``, and the Messages API never had a seed or penalties; AutoGen 0.7.5's client passes a
  temperature on every call, so its SDK client is handed over through ``SamplingFreeClient``, which leaves
  those three out. The paper's temperature 0 is therefore not sent: each role's ``config.json`` entry shows
  what it sends (``request_options``).
- Usage: ``output_tokens`` become completion tokens; prompt tokens are ``input_tokens`` plus the prompt
  cache's reads and writes (``cache_read_input_tokens``, ``cache_creation_input_tokens``), which Anthropic's
  ``input_tokens`` leaves out, and the cache reads are the call's cached prompt tokens (read by the HTTP layer,
  ``messages_response.py``; added by ``CacheCountedClient``, ``clients.py``). No cache is
  requested (no ``cache_control``), but the API may report cached tokens on its own.
- An empty answer (no content block, or only empty text blocks) is ``EmptyAnswerError``, as for chat
  completions (``messages_response.py``).
- Errors are raised as the OpenAI SDK's classes of the same meaning (``providers/errors.py``), so retries
  (429, 529 and other 5xx, timeouts), the endpoint check and item errors work as for every provider.
- ``--batch`` is refused: Anthropic's Message Batches API (requests inline, results as JSONL by batch) does
  not fit the OpenAI file-and-batch flow of ``agents/models/batch.py``.
- ``--structured-output`` (answer formats, ``agents/models/answer_format.py``): the Messages API has no
  response schema, so a scoring answer is asked for through a tool whose input schema is the answer's
  (``{"rationale", "score"}`` or ``{"rationale", "verdict"}``), forced with ``tool_choice`` ``any`` (the one
  tool); ``ToolAnswerClient`` (``clients.py``) turns the tool call back into the answer's text (its input
  as JSON), so agents, transcripts and the strict JSON parse see a plain JSON answer. A grammar cannot be
  sent to this API.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from debate_eval.agents.models.answer_format import JSON, AnswerFormat
from debate_eval.agents.models.providers import Provider, register_provider
from debate_eval.agents.models.providers.openai import GENERIC_MODEL_INFO, with_model_info
from debate_eval.agents.models.settings import ModelSettings

ANTHROPIC_API_URL = "https://api.anthropic.com"
NO_TOOL_MODELS = ("claude-instant", "claude-2")  # the retired models that took no tools
DEFAULT_MAX_TOKENS = 4096
ANSWER_TOOL = "answer_tool"  # an answer format's tool, in extra_create_args: taken out by ToolAnswerClient


def openai_error(error: BaseException) -> BaseException | None:
    """The OpenAI SDK's error for an Anthropic SDK error (None for anything else). An OpenAI SDK error that the
    run's own HTTP layer raised (``EmptyAnswerError``, ``BadResponseError``: its observers speak the OpenAI
    SDK's classes), which the Anthropic SDK wrapped as a connection error, is given back as it was raised."""
    import anthropic
    import openai

    if isinstance(error, anthropic.APIConnectionError) and isinstance(error.__cause__, openai.OpenAIError):
        return error.__cause__
    if isinstance(error, anthropic.APITimeoutError):
        return openai.APITimeoutError(request=error.request)
    if isinstance(error, anthropic.APIConnectionError):
        return openai.APIConnectionError(message=error.message, request=error.request)
    if isinstance(error, anthropic.APIStatusError):
        from debate_eval.agents.models.providers.errors import status_error  # OpenAI SDK: loaded when used

        return status_error(error.message, error.response, error.body)
    return None


class SamplingFreeClient:
    """An ``anthropic.AsyncAnthropic`` as AutoGen's Anthropic client uses it (``messages.create``, ``close``),
    its ``messages.create`` called without the sampling fields the SDK no longer has."""

    DROPPED = ("temperature", "top_p", "top_k")

    def __init__(self, sdk: Any) -> None:
        self.sdk = sdk
        self.messages = SimpleNamespace(create=self.create_message)

    async def create_message(self, **kwargs: Any) -> Any:
        """``messages.create`` without ``temperature``, ``top_p`` and ``top_k``."""
        for name in self.DROPPED:
            kwargs.pop(name, None)
        return await self.sdk.messages.create(**kwargs)

    async def close(self) -> None:
        """Close the SDK client."""
        await self.sdk.close()


@register_provider
class AnthropicProvider(Provider):
    """Claude through the native Messages API."""

    name = "anthropic"
    description = "Anthropic's Messages API (ANTHROPIC_API_KEY; pip install 'debate-eval[anthropic]')"
    user_endpoint = True
    key_variables = ("ANTHROPIC_API_KEY",)
    url_variables = ("ANTHROPIC_BASE_URL",)
    default_base_url = ANTHROPIC_API_URL
    default_max_tokens = DEFAULT_MAX_TOKENS
    extra = "anthropic"
    sdk_module = "anthropic"
    answer_modes = (JSON,)  # through a tool (ToolAnswerClient); the API takes no grammar

    def answer_modes_of(self, model: str | None) -> tuple[str, ...]:
        """No answer format for the retired models that took no tools (``NO_TOOL_MODELS``): a JSON answer is
        asked for through a tool."""
        return () if (model or "").startswith(NO_TOOL_MODELS) else self.answer_modes

    def create_args(self, settings: ModelSettings) -> dict[str, Any]:
        """``max_tokens`` alone (see the module doc for why no sampling option is sent)."""
        return {"max_tokens": settings.sampling.max_tokens or DEFAULT_MAX_TOKENS}

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """AutoGen's Anthropic client over the SDK (its retries off), its errors in the OpenAI SDK's terms."""
        import anthropic
        from autogen_ext.models.anthropic import BaseAnthropicChatCompletionClient

        options: dict[str, Any] = {"http_client": http_client} if http_client is not None else {}
        sdk = anthropic.AsyncAnthropic(
            api_key=settings.api_key(),
            base_url=base_url or ANTHROPIC_API_URL,
            timeout=settings.timeout_s,
            max_retries=0,
            **options,
        )
        kwargs = {
            "client": SamplingFreeClient(sdk),
            "create_args": {"model": settings.model, **self.create_args(settings)},
        }
        # a model name AutoGen does not know: a text model that takes tools, as any Claude (--structured-output)
        client = with_model_info(
            BaseAnthropicChatCompletionClient, kwargs, {**GENERIC_MODEL_INFO, "function_calling": True}
        )
        if not client.model_info.get("function_calling") and not settings.model.startswith(NO_TOOL_MODELS):
            # AutoGen matches an unknown name by its prefix ("claude-house-judge" as claude-2.0, no tools): every
            # Claude of the Messages API takes tools, which --structured-output asks its answers through
            info = {**client.model_info, "function_calling": True}
            client = BaseAnthropicChatCompletionClient(**kwargs, model_info=info)
        from debate_eval.agents.models.providers.anthropic.clients import CacheCountedClient, ToolAnswerClient
        from debate_eval.agents.models.providers.errors import OpenAIErrors

        return ToolAnswerClient(OpenAIErrors(CacheCountedClient(client), openai_error), ANSWER_TOOL)

    def answer_request(self, fmt: AnswerFormat) -> dict[str, Any]:
        """The cap as ``max_tokens``; a JSON answer as a tool with the answer's schema (``ToolAnswerClient``)."""
        args: dict[str, Any] = {} if fmt.max_tokens is None else {"max_tokens": fmt.max_tokens}
        schema = fmt.json_schema() if fmt.mode == JSON else None
        if schema is not None:
            args[ANSWER_TOOL] = {
                "name": fmt.schema_name(),
                "description": "Give your answer: every field of this tool's input, nothing else.",
                "parameters": schema,
            }
        return args
