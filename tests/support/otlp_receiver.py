"""An OTLP/HTTP trace receiver on 127.0.0.1, for tests: what the OpenTelemetry SDK's OTLP exporter sends to
``OTEL_EXPORTER_OTLP_ENDPOINT`` (``POST /v1/traces``, protobuf), kept as plain ``ReceivedSpan``s.

Bounded and self-stopping: it serves until its context ends or ``lifetime_s`` has passed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from debate_eval.agents.models.providers.local_server import LocalServer, QuietHandler

TRACES_PATH = "/v1/traces"


@dataclass(frozen=True)
class ReceivedSpan:
    """One exported span: ids as lowercase hex (``parent_id`` empty for a root), its scope's name."""

    name: str
    trace_id: str
    span_id: str
    parent_id: str
    scope: str
    attributes: dict[str, Any] = field(default_factory=dict)
    resource: dict[str, Any] = field(default_factory=dict)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attributes(values: Any) -> dict[str, Any]:
    pairs: list[KeyValue] = list(values)
    return {pair.key: _value(pair.value) for pair in pairs}


class OtlpReceiver:
    """Use as a context manager; ``endpoint`` is ``http://127.0.0.1:PORT`` (the value of
    ``OTEL_EXPORTER_OTLP_ENDPOINT``); ``spans`` holds what was exported so far, ``exports`` the requests."""

    def __init__(self, lifetime_s: float = 300.0) -> None:
        self.lifetime_s = lifetime_s
        self.spans: list[ReceivedSpan] = []
        self.exports = 0
        self._lock = threading.Lock()
        self._server: LocalServer | None = None
        self.endpoint = ""

    def __enter__(self) -> OtlpReceiver:
        self._server = LocalServer(_make_handler(self), lifetime_s=self.lifetime_s)
        self.endpoint = self._server.root
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.stop()

    def receive(self, body: bytes) -> None:
        """Keep the spans of one export request."""
        request = ExportTraceServiceRequest.FromString(body)
        found = []
        for resource_spans in request.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    found.append(
                        ReceivedSpan(
                            name=span.name,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_id=span.parent_span_id.hex(),
                            scope=scope_spans.scope.name,
                            attributes=_attributes(span.attributes),
                            resource=resource,
                        )
                    )
        with self._lock:
            self.exports += 1
            self.spans.extend(found)


def _make_handler(receiver: OtlpReceiver) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def do_POST(self) -> None:
            body = self.read_body()
            if self.path.rstrip("/") != TRACES_PATH:
                self.send_json(404, {"error": "not found"})
                return
            try:
                receiver.receive(body)
            except Exception:  # not an OTLP trace export
                self.send_json(400, {"error": "not an ExportTraceServiceRequest"})
                return
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_bytes(200, answer, "application/x-protobuf")

    return Handler
