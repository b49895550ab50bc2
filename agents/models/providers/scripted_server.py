"""A scripted OpenAI-compatible server on 127.0.0.1, for offline tests and benchmarks.

It answers ``POST /v1/chat/completions`` (and ``GET /v1/models``) with replies chosen by the role the
request reveals, after a fixed latency. The roles and their replies are the methods' (``ScriptedReplies``,
registered with each method): the server itself knows only the Scorer. Faults can be injected: HTTP errors
(with Retry-After), hangs longer than a client's timeout, and permanent errors for requests that contain a
given text. It counts every request, so tests can check that a rerun made no model call.

It is a test aid shipped with the package (like inspect_ai's mock model): ``debate-eval`` never starts it
by itself.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from debate_eval.agents.models.providers.local_server import LocalServer, QuietHandler

Request = Mapping[str, Any]
STATS_PATH = "/scripted/stats"  # GET: {"requests": count}, for a server running in another process


@dataclass
class Fault:
    """What to do instead of answering one request."""

    status: int | None = None  # answer with this HTTP status
    retry_after: float | None = None  # Retry-After header (seconds) for a 429
    hang_s: float | None = None  # wait this long before answering normally (past a client's timeout)
    message: str = "injected fault"


# ------------------------------------------------------------------------------------ the reply tables
# The server knows no method: each method registers its table (``debates/<method>/scripted.py``, through the
# method registry), which says how its requests reveal their role and what each role answers. A request
# whose role no table recognises is the Scorer's.

SCORER = "scorer"
DEFAULT_REPLIES: dict[str, str] = {  # role -> reply to a single request (the registered tables add theirs)
    SCORER: "Step by step: the text is mostly clear but has some gaps.\nScore: 3",
}
PAIRWISE_REPLIES: dict[str, str] = {  # role -> reply to a pairwise request (two responses to compare)
    SCORER: "Step by step: Response A answers more of the question, Response B misses a part.\nVerdict: [[A]]",
}


@dataclass(frozen=True)
class ScriptedRole:
    """How a request reveals one role: its system message contains one of ``system_has`` or starts with one of
    ``system_starts``; or, with ``no_system``, it has no system message (and, when ``first_has`` is given, its
    first message contains one of them)."""

    role: str
    system_has: tuple[str, ...] = ()
    system_starts: tuple[str, ...] = ()
    no_system: bool = False
    first_has: tuple[str, ...] = ()

    def matches(self, system: str, first: str) -> bool:
        """Whether a request with this system message (``""``: none) and first message is this role's."""
        if self.no_system:
            return not system and (not self.first_has or any(mark in first for mark in self.first_has))
        return bool(system) and (
            any(mark in system for mark in self.system_has) or any(system.startswith(s) for s in self.system_starts)
        )


@dataclass(frozen=True)
class ScriptedReplies:
    """One method's canned replies for the scripted server: its roles (``roles``, tried in order), the reply
    of each to a single request (``replies``) and to a pairwise one (``pairwise_replies``: a request containing
    one of ``pairwise_marks``), and replies computed from the request (``computed``: role -> function giving
    the reply, or None for the table's). Tables of a higher ``precedence`` are tried first."""

    name: str
    roles: tuple[ScriptedRole, ...] = ()
    replies: Mapping[str, str] = field(default_factory=dict)
    pairwise_replies: Mapping[str, str] = field(default_factory=dict)
    pairwise_marks: tuple[str, ...] = ()
    computed: Mapping[str, Callable[[Request], str | None]] = field(default_factory=dict)
    precedence: int = 0


_TABLES: list[ScriptedReplies] = []


def register_replies(*tables: ScriptedReplies) -> None:
    """Add reply tables (a table already registered is skipped); a role's reply given differently by two
    tables is a ``ValueError``."""
    for table in tables:
        if table in _TABLES:
            continue
        for replies, known in ((table.replies, DEFAULT_REPLIES), (table.pairwise_replies, PAIRWISE_REPLIES)):
            for role, text in replies.items():
                if known.get(role, text) != text:
                    raise ValueError(f"scripted replies {table.name!r}: role {role!r} already has another reply")
        _TABLES.append(table)
        _TABLES.sort(key=lambda t: -t.precedence)  # stable: registration order within a precedence
        DEFAULT_REPLIES.update(table.replies)
        PAIRWISE_REPLIES.update(table.pairwise_replies)


def role_of_request(request: Request) -> str:
    """The role a request reveals, by the registered tables (``scorer`` when none recognises it)."""
    messages = request.get("messages") or []
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    first = str(messages[0].get("content", "")) if messages else ""
    # a rule for "no system message and nothing else" comes after the ones that also read the first message
    rules = sorted((rule for table in _TABLES for rule in table.roles), key=lambda r: r.no_system and not r.first_has)
    return next((rule.role for rule in rules if rule.matches(system, first)), SCORER)


def _is_pairwise(request: Request) -> bool:
    marks = [mark for table in _TABLES for mark in table.pairwise_marks]
    return any(mark in str(m.get("content", "")) for m in request.get("messages") or [] for mark in marks)


def default_reply(request: Request) -> str:
    """The reply for the request's role: a computed one where its table has one, else the role's pairwise reply
    for a pairwise request, else its single reply (the Scorer's for a role without one)."""
    role = role_of_request(request)
    for table in _TABLES:
        compute = table.computed.get(role)
        text = compute(request) if compute is not None else None
        if text is not None:
            return text
    if role in PAIRWISE_REPLIES and _is_pairwise(request):
        return PAIRWISE_REPLIES[role]
    return DEFAULT_REPLIES.get(role, DEFAULT_REPLIES[SCORER])


def structured_reply(text: str, request: Request) -> str:
    """``text`` as the JSON object the request's schema (OpenAI's ``response_format`` or llama.cpp's
    ``json_schema``) asks for (``rationale`` and ``score`` or ``verdict``, read from the scripted text: its last
    number on the scale, its last [[X]]), or ``text`` itself when the request asks for none."""
    response_format = request.get("response_format")
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    else:
        schema = request.get("json_schema")
    if not isinstance(schema, Mapping):
        return text
    properties = schema.get("properties") or {}
    answer: dict[str, Any] = {}
    if "rationale" in properties:
        answer["rationale"] = text.splitlines()[0] if text else ""
    if "score" in properties:
        allowed = properties["score"].get("enum") or list(range(int(properties["score"].get("minimum", 1)), 6))
        numbers = [int(n) for n in re.findall(r"\d+", text) if int(n) in allowed]
        answer["score"] = numbers[-1] if numbers else allowed[0]
    if "verdict" in properties:
        sides = re.findall(r"\[\[([ABC])\]\]", text)
        answer["verdict"] = sides[-1] if sides else "C"
    return json.dumps(answer)


@dataclass
class ScriptedOpenAIServer:
    """Use as a context manager; ``base_url`` is ``http://127.0.0.1:PORT/v1``."""

    latency_s: float = 0.0
    reply: Callable[[Request], str] = default_reply
    faults: list[Fault] = field(default_factory=list)  # applied to the next requests, in order
    fail_if_contains: dict[str, int] = field(default_factory=dict)  # text in a message -> permanent status
    top_logprobs: dict[str, float] | None = None  # logprobs offered for a numeric answer token
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # each request's headers (names lower-cased)
    # False: ``requests`` and ``headers`` stay empty (only counted), as for the in-process ``--provider
    # scripted`` of a long run, which would otherwise hold every request (about 5 kB a call)
    keep_requests: bool = True
    # GET /v1/models entries (None: one entry, "scripted"), e.g. with vLLM's "root" or llama.cpp's "meta"
    model_entries: list[dict[str, Any]] | None = None
    serve_models: bool = True  # False: GET /v1/models is a 404, as on a server without the route

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: LocalServer | None = None
        self._received = 0
        self.base_url = ""

    @property
    def count(self) -> int:
        """Requests received so far (faulty ones included)."""
        with self._lock:
            return len(self.requests) if self.keep_requests else self._received

    def start(self) -> ScriptedOpenAIServer:
        """Start serving in a background thread."""
        self._server = LocalServer(self.handler_class())
        self.base_url = f"{self._server.root}/v1"
        return self

    def handler_class(self) -> type[QuietHandler]:
        """The request handler (a subclass's server adds its routes)."""
        return _make_handler(self)

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_fault(self, request: Request) -> Fault | None:
        text = json.dumps(request.get("messages", []), ensure_ascii=False)
        for needle, status in self.fail_if_contains.items():
            if needle in text:
                return Fault(status=status, message=f"permanent error for requests containing {needle!r}")
        with self._lock:
            return self.faults.pop(0) if self.faults else None

    def completion(self, request: Request) -> dict[str, Any]:
        """The JSON body of a successful answer (a JSON object when the request asks for a JSON schema)."""
        content = structured_reply(self.reply(request), request)
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
        choice: dict[str, Any] = {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": content},
        }
        if request.get("logprobs"):
            choice["logprobs"] = {"content": self._logprobs(content)}
        return {
            "id": f"chatcmpl-scripted-{self.count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_words,
                "completion_tokens": len(content.split()),
                "total_tokens": prompt_words + len(content.split()),
            },
        }

    def _logprobs(self, content: str) -> list[dict[str, Any]]:
        entries = []
        for token in content.split():
            offered = self.top_logprobs if token.isdigit() and self.top_logprobs else {token: -0.01}
            tops = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in offered.items()]
            entries.append(
                {"token": token, "logprob": tops[0]["logprob"], "bytes": list(token.encode()), "top_logprobs": tops}
            )
        return entries


def _make_handler(server: ScriptedOpenAIServer) -> type[QuietHandler]:
    class Handler(QuietHandler):
        disable_nagle_algorithm = True  # headers and body go out at once (no delayed-ACK stall)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models") and server.serve_models:
                entries = server.model_entries
                data = [{"id": "scripted", "object": "model"}] if entries is None else entries
                self.send_json(200, {"object": "list", "data": data})
            elif self.path.rstrip("/").endswith(STATS_PATH):
                self.send_json(200, {"requests": server.count})
            else:
                self.send_json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            request = self.read_json()
            if request is None:
                return
            with server._lock:
                server._received += 1
                if server.keep_requests:
                    server.requests.append(request)
                    server.headers.append({key.lower(): value for key, value in self.headers.items()})
            fault = server._next_fault(request)
            if fault is not None and fault.hang_s:
                time.sleep(fault.hang_s)
            elif server.latency_s:
                time.sleep(server.latency_s)
            if fault is not None and fault.status:
                headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
                body = {"error": {"message": fault.message, "type": "injected", "code": fault.status}}
                self.send_json(fault.status, body, headers)
                return
            self.send_json(200, server.completion(request))

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Serve in this process until standard input closes: prints the base URL as the first line.

    A benchmark runs the server this way, in a process of its own as a real endpoint would be, so that the
    server's work does not compete with the client's event loop for the interpreter lock.
    """
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible server on 127.0.0.1.")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="delay before every answer")
    args = parser.parse_args(argv)
    with ScriptedOpenAIServer(latency_s=args.latency_ms / 1000) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the parent closes the pipe (or exits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
