"""Local fakes of each provider's wire protocol, on 127.0.0.1, for the provider tests.

Each fake records every request (method, path, query, headers, JSON body) and answers in its provider's own
shape, with the scripted server's reply for the role the request reveals (``scripted_server.default_reply``),
so a whole debate or G-Eval run goes through it. Each enforces what its real service is documented to
enforce and a client could get wrong:

- ``AnthropicFake`` (``POST /v1/messages``; a forced tool call is answered with a ``tool_use`` block): the key
  (``x-api-key``, or ``Authorization: Bearer`` as the ``anthropic`` SDK >= 2 sends it) and an
  ``anthropic-version`` header, a ``max_tokens``, only ``user``/``assistant`` turns (the system prompt in
  ``system``), no field that ``messages.create`` of the ``anthropic`` SDK >= 1.0 lacks (seed, penalties,
  temperature, top_p, top_k); errors in Anthropic's shape (``{"type": "error", "error": ...}``). Its
  answers may report prompt-cache counts (``cache_read``, ``cache_creation``) and carry other content blocks
  or stop reason (``content``, ``stop_reason``: an empty answer).
- ``AzureFake`` (``POST /openai/deployments/DEPLOYMENT/chat/completions?api-version=V``): the ``api-key``
  header (or an Entra ``Authorization: Bearer``), a known deployment (404 ``DeploymentNotFound`` otherwise),
  an ``api-version``; the answer names the model version behind the deployment.
- ``GeminiFake`` (``POST /v1beta/openai/chat/completions``): ``Authorization: Bearer KEY``; penalties refused
  (400, as Gemini 2.x models do).
- ``OllamaFake`` (``POST /v1/chat/completions``, ``GET /api/tags``): a model that was pulled (404 otherwise).

Bounded: at most ``max_requests`` requests and ``lifetime_s`` seconds, then they stop by themselves.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from debate_eval.agents.models.providers.local_server import FAKE_SERVING, LocalServer, QuietHandler
from debate_eval.agents.models.providers.scripted_server import default_reply, structured_reply

# fields the Messages API does not take (the OpenAI ones, and the sampling fields the anthropic SDK >= 1.0 dropped)
NOT_MESSAGES_FIELDS = ("seed", "frequency_penalty", "presence_penalty", "logprobs", "top_logprobs", "n", "temperature")


@dataclass
class Seen:
    """One request as the fake received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: dict[str, Any]


@dataclass
class Answer:
    """What the fake sends back."""

    status: int
    body: dict[str, Any]


@dataclass
class WireFake:
    """The bounded HTTP server; subclasses answer in their provider's shape (``answer``)."""

    max_requests: int = 400
    lifetime_s: float = 600.0  # a bound on a hang only: a slow test on a loaded machine is no hang
    requests: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.root = ""
        self._server: LocalServer | None = None

    def __enter__(self) -> WireFake:
        self._server = LocalServer(_handler(self), lifetime_s=self.lifetime_s, **FAKE_SERVING)
        self.root = self._server.root
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    def posts(self) -> list[Seen]:
        with self.lock:
            return [seen for seen in self.requests if seen.method == "POST"]

    def answer(self, seen: Seen) -> Answer:
        raise NotImplementedError


def openai_completion(request: dict[str, Any], text: str, model: str) -> dict[str, Any]:
    """A chat-completion body in OpenAI's shape, with word counts as token usage (a JSON answer when the
    request's ``response_format`` asks for a schema, as the scripted server gives)."""
    text = structured_reply(text, request)
    prompt = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": len(text.split()), "total_tokens": 0},
    }


def openai_error(status: int, message: str, code: str | None = None) -> Answer:
    return Answer(status, {"error": {"message": message, "type": "invalid_request_error", "code": code}})


def _text(content: Any) -> str:
    """The text of a message's content: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return ""


@dataclass
class AnthropicFake(WireFake):
    """Anthropic's Messages API. ``base_url`` is the root (the SDK adds ``/v1``)."""

    key: str = "sk-ant-fake"
    served_model: str = "claude-sonnet-4-6"  # what the answers name (an alias resolves to a snapshot)
    cache_read: int | None = None  # usage.cache_read_input_tokens to report (left out when None)
    cache_creation: int | None = None  # usage.cache_creation_input_tokens to report (left out when None)
    content: list[dict[str, Any]] | None = None  # the content blocks of every answer (e.g. [] for an empty one)
    stop_reason: str | None = None  # the stop_reason of every answer (default: end_turn, or tool_use)

    @property
    def base_url(self) -> str:
        return self.root

    def answer(self, seen: Seen) -> Answer:
        if seen.method == "GET" and seen.path.startswith("/v1/models/"):
            return Answer(200, {"type": "model", "id": self.served_model, "display_name": "Claude (fake)"})
        if seen.method != "POST" or seen.path != "/v1/messages":
            return self.error(404, "not_found_error", f"no route {seen.method} {seen.path}")
        if self.key not in (
            seen.headers.get("x-api-key"),
            seen.headers.get("authorization", "").removeprefix("Bearer "),
        ):
            return self.error(401, "authentication_error", "invalid x-api-key")
        if not seen.headers.get("anthropic-version"):
            return self.error(400, "invalid_request_error", "anthropic-version header is required")
        body = seen.body
        problem = self.problem(body)
        if problem:
            return self.error(400, "invalid_request_error", problem)
        system = _text(body.get("system"))
        messages = [{"role": "system", "content": system}] if system else []
        messages += [{"role": m["role"], "content": _text(m["content"])} for m in body["messages"]]
        text = default_reply({"messages": messages})
        words = sum(len(m["content"].split()) for m in messages)
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        stop = "end_turn"
        tools = body.get("tools") or []
        if tools and (body.get("tool_choice") or {}).get("type") in ("any", "tool"):  # a forced tool call
            schema = {"type": "json_schema", "json_schema": {"schema": tools[0]["input_schema"]}}
            answer = json.loads(structured_reply(text, {"response_format": schema}))
            content = [{"type": "tool_use", "id": "toolu_fake", "name": tools[0]["name"], "input": answer}]
            stop = "tool_use"
        usage: dict[str, Any] = {"input_tokens": words, "output_tokens": len(text.split())}
        if self.cache_read is not None:
            usage["cache_read_input_tokens"] = self.cache_read
        if self.cache_creation is not None:
            usage["cache_creation_input_tokens"] = self.cache_creation
        return Answer(
            200,
            {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": self.served_model,
                "content": content if self.content is None else self.content,
                "stop_reason": self.stop_reason or stop,
                "stop_sequence": None,
                "usage": usage,
            },
        )

    @staticmethod
    def problem(body: dict[str, Any]) -> str | None:
        """What the Messages API would refuse in ``body`` (None: nothing)."""
        if not isinstance(body.get("max_tokens"), int):
            return "max_tokens: Field required"
        if not isinstance(body.get("model"), str):
            return "model: Field required"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "messages: at least one message is required"
        if any(m.get("role") not in ("user", "assistant") for m in messages):
            return "messages: roles must be user or assistant (the system prompt goes in 'system')"
        extra = [name for name in (*NOT_MESSAGES_FIELDS, "top_p", "top_k") if name in body]
        if extra:
            return f"{extra[0]}: Extra inputs are not permitted"
        return None

    @staticmethod
    def error(status: int, kind: str, message: str) -> Answer:
        return Answer(status, {"type": "error", "error": {"type": kind, "message": message}})


@dataclass
class AzureFake(WireFake):
    """An Azure OpenAI resource. ``base_url`` is the resource endpoint."""

    key: str = "azure-fake-key"
    token: str = "entra-fake-token"  # an Entra ID bearer token it also accepts
    deployments: dict[str, str] = field(default_factory=lambda: {"judge": "gpt-4o-2024-08-06"})

    @property
    def base_url(self) -> str:
        return self.root

    def answer(self, seen: Seen) -> Answer:
        parts = seen.path.strip("/").split("/")
        if (
            seen.method != "POST"
            or len(parts) != 5
            or parts[:2] != ["openai", "deployments"]
            or parts[3:]
            != [
                "chat",
                "completions",
            ]
        ):
            return openai_error(404, f"no route {seen.method} {seen.path}", "404")
        if seen.headers.get("api-key") != self.key and seen.headers.get("authorization") != f"Bearer {self.token}":
            return openai_error(401, "Access denied due to invalid subscription key or wrong API endpoint.", "401")
        if not seen.query.get("api-version"):
            return openai_error(404, "Resource not found", "404")
        model = self.deployments.get(parts[2])
        if model is None:
            return openai_error(404, "The API deployment for this resource does not exist.", "DeploymentNotFound")
        return Answer(200, openai_completion(seen.body, default_reply(seen.body), model))


@dataclass
class GeminiFake(WireFake):
    """Gemini's OpenAI-compatible endpoint. ``base_url`` ends in ``/v1beta/openai/``."""

    key: str = "gemini-fake-key"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1beta/openai/"

    def answer(self, seen: Seen) -> Answer:
        if seen.method != "POST" or seen.path != "/v1beta/openai/chat/completions":
            return openai_error(404, f"no route {seen.method} {seen.path}")
        if seen.headers.get("authorization") != f"Bearer {self.key}":
            return openai_error(400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID")
        model = str(seen.body.get("model", ""))
        for penalty in ("frequency_penalty", "presence_penalty"):
            if penalty in seen.body:
                return openai_error(400, f"Penalty is not enabled for models/{model}", "INVALID_ARGUMENT")
        return Answer(200, openai_completion(seen.body, default_reply(seen.body), model))


@dataclass
class OllamaFake(WireFake):
    """An Ollama server. ``base_url`` is its root (as ``OLLAMA_HOST``)."""

    models: dict[str, str] = field(default_factory=lambda: {"llama3.1:8b": "sha256:" + "ab" * 32})

    @property
    def base_url(self) -> str:
        return self.root

    def answer(self, seen: Seen) -> Answer:
        if seen.method == "GET" and seen.path == "/api/tags":
            return Answer(200, {"models": [{"name": n, "model": n, "digest": d} for n, d in self.models.items()]})
        if seen.method != "POST" or seen.path != "/v1/chat/completions":
            return Answer(404, {"error": f"no route {seen.method} {seen.path}"})
        model = str(seen.body.get("model", ""))
        if model not in self.models:
            return openai_error(404, f'model "{model}" not found, try pulling it first', "model_not_found")
        completion = openai_completion(seen.body, default_reply(seen.body), model)
        completion["system_fingerprint"] = "fp_ollama"
        return Answer(200, completion)


def _handler(fake: WireFake) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def _serve(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            raw = self.read_body()
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_unparsable": raw.decode("utf-8", "replace")}
            seen = Seen(
                self.command,
                url.path,
                urllib.parse.parse_qs(url.query),
                {k.lower(): v for k, v in self.headers.items()},
                body,
            )
            with fake.lock:
                over = len(fake.requests) >= fake.max_requests
                fake.requests.append(seen)
            answer = Answer(503, {"error": {"message": "fake: request budget spent"}}) if over else fake.answer(seen)
            self.send_json(answer.status, answer.body)

        do_GET = _serve
        do_POST = _serve

    return Handler
