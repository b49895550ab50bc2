"""A scripted OpenAI-compatible server on 127.0.0.1, for offline tests and benchmarks.

It answers ``POST /v1/chat/completions`` (and ``GET /v1/models``) with replies chosen by the role the
request's system message reveals (Scorer, Critic, Tie-breaker, Commander, ChatEval referee or summarizer,
or a G-Eval evaluator with no system message), after a fixed latency. Faults can be injected: HTTP errors
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


FENNEC_OPENINGS = {
    "You design evaluation criteria.": "criteria_writer",
    "You write scoring guidelines.": "guideline_writer",
    "You grade responses strictly by one given criterion": "judge",
    "You revise responses.": "corrector",
}


# The paper's Commander, the authors' code's, and the pairwise one (debates/pairwise/prompts/personas.json).
COMMANDER_MARKS = ("Help me calculate the score", "initiate and lead the debate", "Help me decide which")


def role_of_request(request: Request) -> str:
    """``scorer``, ``critic``, ``tiebreaker``, ``commander``, ``evaluator``, ChatEval's ``referee`` and
    ``summarizer``, or Fennec's four roles, from the system message."""
    messages = request.get("messages") or []
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    if not system:
        first = str(messages[0].get("content", "")) if messages else ""
        return "referee" if FAIREVAL_MARK in first else "evaluator"  # ChatEval's released flow: no system
    if "On this panel your name is" in system:  # debates.chateval.NAME_LINE, after every referee persona
        return "referee"
    if "You keep the record of a panel of referees" in system:  # debates.chateval.SUMMARIZER_SYSTEM_MESSAGE
        return "summarizer"
    if "Tiebreaker" in system:
        return "tiebreaker"
    if "Devil" in system or "NO_ISSUES" in system or "score is really accurate" in system:
        return "critic"
    if any(mark in system for mark in COMMANDER_MARKS):
        return "commander"
    for opening, role in FENNEC_OPENINGS.items():  # debates/fennec/prompts/system.json
        if system.startswith(opening):
            return role
    return "scorer"


DEFAULT_REPLIES: dict[str, str] = {
    "scorer": "Step by step: the text is mostly clear but has some gaps.\nScore: 3",
    "critic": "The score ignores several problems; it should be lower. I disagree with the rationale.",
    "tiebreaker": "Having read the debate, the final score is 2.",
    "commander": "Please think step by step.",
    "evaluator": "3",
    "referee": "The text holds together well, with one weak transition.\nScore: 4",
    "summarizer": "The referees found the text mostly coherent; their scores were close.",
    "criteria_writer": "1. Accuracy: the facts agree with the source\n2. Clarity: easy to follow\n"
    "3. Relevance: keeps to what matters\n4. Completeness: nothing important missing\n5. Concision: no padding",
    "guideline_writer": "1: fails the criterion\n2: mostly fails\n3: meets it in part\n4: mostly meets it\n"
    "5: fully meets it",
    "judge": "Under this criterion the text is adequate, with gaps.\nScore: 3",
    "judge_pairwise": "Under this criterion Response A is somewhat better.\nScore A: 4\nScore B: 3\nVerdict: [[A]]",
    "corrector": "A revised text that fixes the problems the graders found.",
}

# Replies to a pairwise request (two responses to compare): a verdict instead of a score.
PAIRWISE_REPLIES: dict[str, str] = {
    "scorer": "Step by step: Response A answers more of the question, Response B misses a part.\nVerdict: [[A]]",
    "critic": "The verdict overlooks the weaknesses of the preferred response; I disagree with the rationale.",
    "tiebreaker": "Having read the debate, Response A is better.\nVerdict: [[A]]",
    "evaluator": "Response A is more complete.\n[[A]]",
    "referee": "Response A covers the question better, with one weak point.\n[[A]]",
}
# The verdict instruction of the project's pairwise prompts (debates/pairwise/prompts/task.txt, panel.txt),
# which judged text alone does not bring into a single-score request.
PAIRWISE_MARK = "[[A]] when Response A is better"


# ChatEval's released FairEval flow (debates/chateval/prompts.py): its template, and its final prompts'
# score formats (pairwise: two lines for Assistant 1 and 2; single-score: one line).
FAIREVAL_MARK = "There are a few other referee assigned the same task"
FAIREVAL_PAIR_FORMAT = "The score of Assistant 1: [score only]"
FAIREVAL_ONE_FORMAT = "The score: [score only]"


def faireval_reply(request: Request) -> str:
    """A referee of ChatEval's released flow: a remark, or in the last turn the scores in their format (the
    longer answer gets 8 and the other 6, whatever the order they are shown in)."""
    messages = request.get("messages") or []
    final = str(messages[-1].get("content", "")) if messages else ""
    if FAIREVAL_PAIR_FORMAT in final:
        prompt = str(messages[0].get("content", ""))
        answers = [part.split("[The End of Assistant")[0] for part in prompt.split("\u2019s Answer]\n")[1::2]]
        one, two = (len(answers[0]), len(answers[1])) if len(answers) == 2 else (0, 0)
        first, second = (8, 6) if one > two else (6, 8) if one < two else (7, 7)
        return (
            "Evaluation evidence: the more complete answer is the better one here.\n"
            f"The score of Assistant 1: {first}\nThe score of Assistant 2: {second}"
        )
    if FAIREVAL_ONE_FORMAT in final:
        return "Evaluation evidence: it holds together, with one weak transition.\nThe score: 4"
    return "I read both and will weigh them carefully before the final judgement."


def _is_pairwise(request: Request) -> bool:
    return any(PAIRWISE_MARK in str(m.get("content", "")) for m in request.get("messages") or [])


def default_reply(request: Request) -> str:
    """The fixed reply for the request's role (a Fennec judge of two responses answers for both; the roles
    of the other methods answer a pairwise prompt with a verdict for Response A)."""
    role = role_of_request(request)
    if role == "referee" and not any(m.get("role") == "system" for m in request.get("messages") or []):
        return faireval_reply(request)
    last = str(((request.get("messages") or [{}])[-1]).get("content", ""))
    if role == "judge" and "Score A:" in last:
        return DEFAULT_REPLIES["judge_pairwise"]
    if role in PAIRWISE_REPLIES and _is_pairwise(request):
        return PAIRWISE_REPLIES[role]
    return DEFAULT_REPLIES[role]


def requested_schema(request: Request) -> Mapping[str, Any] | None:
    """The JSON schema a request asks for: OpenAI's ``response_format`` or llama.cpp's ``json_schema``."""
    response_format = request.get("response_format")
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, Mapping) else None
    schema = request.get("json_schema")
    return schema if isinstance(schema, Mapping) else None


def structured_reply(text: str, request: Request) -> str:
    """``text`` as the JSON object the request's schema asks for (``rationale`` and ``score`` or ``verdict``,
    read from the scripted text: its last number on the scale, its last [[X]]), or ``text`` itself when the
    request asks for none."""
    schema = requested_schema(request)
    if schema is None:
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
    # GET /v1/models entries (None: one entry, "scripted"), e.g. with vLLM's "root" or llama.cpp's "meta"
    model_entries: list[dict[str, Any]] | None = None
    serve_models: bool = True  # False: GET /v1/models is a 404, as on a server without the route

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: LocalServer | None = None
        self.base_url = ""

    @property
    def count(self) -> int:
        """Requests received so far (faulty ones included)."""
        with self._lock:
            return len(self.requests)

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
            tops = [{"token": token, "logprob": -0.01, "bytes": list(token.encode())}]
            if token.isdigit() and self.top_logprobs:
                tops = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in self.top_logprobs.items()]
            entries.append(
                {
                    "token": token,
                    "logprob": tops[0]["logprob"],
                    "bytes": list(token.encode()),
                    "top_logprobs": tops,
                }
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
