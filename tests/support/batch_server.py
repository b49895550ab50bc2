"""A scripted OpenAI-compatible endpoint with the Batch API routes, on 127.0.0.1, for tests and benchmarks.

``ScriptedBatchServer`` is a ``ScriptedOpenAIServer`` (same scripted replies, same chat route) that also
answers ``POST /v1/files`` (multipart upload), ``GET /v1/files/{id}/content``, ``POST /v1/batches``,
``GET /v1/batches/{id}`` and ``GET /v1/batches``. A batch is ``in_progress`` until ``batch_delay_s`` after its
creation, then ``completed`` with an output file (and an error file when some lines failed). Faults: every
``fail_every``-th line fails the first time its request is seen (alternately as a 500 in the output file
and as an error-file line), and the next ``drop_polls`` status polls lose the connection without an answer.
With ``prompt_cache`` it reports ``usage.prompt_tokens_details.cached_tokens``: the words of the longest
message-list prefix it has seen before. It counts requests, uploads, batches and polls (``GET
/scripted/stats``) and stops by itself after ``lifetime_s``.
"""

from __future__ import annotations

import argparse
import email.parser
import email.policy
import hashlib
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from debate_eval.agents.models.providers.local_server import QuietHandler
from debate_eval.agents.models.providers.scripted_server import STATS_PATH, Request, ScriptedOpenAIServer, _make_handler
from debate_eval.debates.base import all_methods

# the scripted server knows only the Scorer: every method registers its agents' canned replies (and the
# wording that tells its roles apart) when it is registered, which this endpoint's replies need
all_methods()


@dataclass
class _Batch:
    id: str
    input_file_id: str
    created: float
    metadata: dict[str, Any]
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None


@dataclass
class ScriptedBatchServer(ScriptedOpenAIServer):
    """Use as a context manager; ``base_url`` is ``http://127.0.0.1:PORT/v1``."""

    batch_delay_s: float = 0.2
    fail_every: int = 0  # 0: no line fails
    drop_polls: int = 0  # the next N status polls close the connection without answering
    prompt_cache: bool = False
    lifetime_s: float = 600.0  # stops serving after this long whatever happens
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, _Batch] = field(default_factory=dict)
    polls: dict[str, int] = field(default_factory=dict)  # batch id -> status polls answered
    lines_answered: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        self._seen_prefixes: set[str] = set()
        self._seen_lines: set[str] = set()
        self._line_number = 0
        self._stopper: threading.Timer | None = None

    def start(self) -> ScriptedBatchServer:
        """Start serving; a timer stops the server after ``lifetime_s``."""
        super().start()
        self._stopper = threading.Timer(self.lifetime_s, self.stop)
        self._stopper.daemon = True
        self._stopper.start()
        return self

    def handler_class(self) -> type[QuietHandler]:
        """The scripted server's handler with the Batch API's routes."""
        return _make_batch_handler(self)

    def stop(self) -> None:
        """Stop serving."""
        if self._stopper is not None:
            self._stopper.cancel()
        super().stop()

    def stats(self) -> dict[str, Any]:
        """Counters for tests and benchmarks."""
        with self._lock:
            return {
                "requests": len(self.requests),
                "files": len(self.files),
                "batches": len(self.batches),
                "polls": dict(self.polls),
                "lines": self.lines_answered,
            }

    def completion(self, request: Request) -> dict[str, Any]:
        """The scripted answer, with simulated prompt-cache usage when ``prompt_cache`` is on."""
        body = super().completion(request)
        if self.prompt_cache:
            messages = list(request.get("messages") or [])
            cached = 0
            with self._lock:
                for end in range(1, len(messages) + 1):
                    digest = hashlib.sha256(json.dumps(messages[:end], sort_keys=True).encode()).hexdigest()
                    if digest in self._seen_prefixes:
                        cached = sum(len(str(m.get("content", "")).split()) for m in messages[:end])
                    self._seen_prefixes.add(digest)
            body["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
        return body

    # ------------------------------------------------------------------------------- batch routes

    def upload(self, data: bytes) -> dict[str, Any]:
        """Store an input file."""
        with self._lock:
            file_id = f"file-scripted-{len(self.files) + 1}"
            self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                "filename": "input.jsonl", "purpose": "batch", "status": "processed"}  # fmt: skip

    def create_batch(self, request: Request) -> dict[str, Any]:
        """Create a batch over an uploaded file."""
        with self._lock:
            if request.get("input_file_id") not in self.files:
                raise KeyError(request.get("input_file_id"))
            batch = _Batch(f"batch_scripted_{len(self.batches) + 1}", str(request["input_file_id"]), time.time(),
                           dict(request.get("metadata") or {}))  # fmt: skip
            self.batches[batch.id] = batch
        return self.batch_object(batch)

    def retrieve(self, batch_id: str) -> dict[str, Any]:
        """A batch's status, completing it once its delay has passed."""
        batch = self.batches[batch_id]
        with self._lock:
            self.polls[batch_id] = self.polls.get(batch_id, 0) + 1
        if batch.status == "in_progress" and time.time() - batch.created >= self.batch_delay_s:
            self._complete(batch)
        return self.batch_object(batch)

    def _complete(self, batch: _Batch) -> None:
        output, errors = [], []
        for number, line in enumerate(self.files[batch.input_file_id].decode().splitlines(), start=1):
            request = json.loads(line)
            custom_id = request["custom_id"]
            with self._lock:
                self._line_number += 1
                fails = self.fail_every and self._line_number % self.fail_every == 0
                fails = fails and custom_id not in self._seen_lines
                self._seen_lines.add(custom_id)
                self.lines_answered += 1
            entry = {"id": f"batch_req_{batch.id}_{number}", "custom_id": custom_id}
            if fails and self._line_number % (2 * self.fail_every) == 0:
                errors.append({**entry, "response": None, "error": {"code": "server_error", "message": "injected"}})
            elif fails:
                error = {"error": {"message": "injected line failure", "type": "server_error"}}
                output.append({**entry, "response": {"status_code": 500, "body": error}, "error": None})
            else:
                answer = self.completion(request["body"])
                output.append({**entry, "response": {"status_code": 200, "body": answer}, "error": None})
        with self._lock:
            batch.output_file_id = self._store(output)
            batch.error_file_id = self._store(errors) if errors else None
            batch.status = "completed"

    def _store(self, lines: list[dict[str, Any]]) -> str:
        file_id = f"file-scripted-{len(self.files) + 1}"
        self.files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return file_id

    def batch_object(self, batch: _Batch) -> dict[str, Any]:
        """The JSON of a batch as the Batch API gives it."""
        return {
            "id": batch.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": None,
            "input_file_id": batch.input_file_id, "completion_window": "24h", "status": batch.status,
            "output_file_id": batch.output_file_id, "error_file_id": batch.error_file_id,
            "created_at": int(batch.created), "metadata": batch.metadata,
        }  # fmt: skip


def _make_batch_handler(server: ScriptedBatchServer) -> type[QuietHandler]:
    base = _make_handler(server)

    class Handler(base):  # type: ignore[misc, valid-type]
        def do_GET(self) -> None:
            path = urlparse(self.path).path.rstrip("/")
            one = re.search(r"/batches/([^/]+)$", path)
            content = re.search(r"/files/([^/]+)/content$", path)
            if path.endswith(STATS_PATH):
                self.send_json(200, server.stats())
            elif one and one.group(1) in server.batches:
                with server._lock:
                    drop = server.drop_polls > 0
                    server.drop_polls -= int(drop)
                if drop:  # lose the connection while polling
                    self.close_connection = True
                    return
                self.send_json(200, server.retrieve(one.group(1)))
            elif path.endswith("/batches"):
                data = [server.batch_object(b) for b in reversed(list(server.batches.values()))]
                self.send_json(200, {"object": "list", "data": data, "has_more": False})
            elif content and content.group(1) in server.files:
                self.send_bytes(200, server.files[content.group(1)], "application/octet-stream")
            elif one or content:
                self.send_json(404, {"error": {"message": "no such batch or file"}})
            else:
                super().do_GET()

        def do_POST(self) -> None:
            path = urlparse(self.path).path.rstrip("/")
            if not (path.endswith("/files") or path.endswith("/batches")):
                super().do_POST()
                return
            data = self.read_body()
            try:
                if path.endswith("/files"):
                    self.send_json(200, server.upload(_multipart_file(self.headers.get("Content-Type", ""), data)))
                else:
                    self.send_json(200, server.create_batch(json.loads(data)))
            except (KeyError, ValueError) as exc:
                self.send_json(400, {"error": {"message": f"bad request: {exc}", "type": "invalid_request_error"}})

    return Handler


def _multipart_file(content_type: str, data: bytes) -> bytes:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + data
    )
    for part in message.iter_parts():  # type: ignore[attr-defined]
        if part.get_param("name", header="content-disposition") == "file":
            return bytes(part.get_payload(decode=True))
    raise ValueError("no file part")


def main(argv: list[str] | None = None) -> int:
    """Serve until standard input closes (or ``--lifetime-s``): prints the base URL as the first line."""
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible endpoint with Batch API routes.")
    parser.add_argument("--batch-delay-ms", type=float, default=200.0)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="delay of synchronous chat completions")
    parser.add_argument("--lifetime-s", type=float, default=600.0)
    args = parser.parse_args(argv)
    server = ScriptedBatchServer(
        latency_s=args.latency_ms / 1000, batch_delay_s=args.batch_delay_ms / 1000, lifetime_s=args.lifetime_s
    )
    with server:
        print(server.base_url, flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
