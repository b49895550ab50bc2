"""The OpenAI Batch API routes, through the ``openai`` SDK: upload an input file (``/v1/files``), create a
batch (``/v1/batches``), poll it, read its output and error files. Any endpoint with the same routes works
(Azure OpenAI and several gateways). The SDK retries connection errors, 429 and 5xx of these calls."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import openai

FINAL_STATUSES = ("completed", "failed", "expired", "cancelled")
CHAT_ENDPOINT = "/v1/chat/completions"
METADATA_KEY = "debate_eval_submission"


@dataclass
class LineOutcome:
    """The answer to one request line: an HTTP status and a JSON body."""

    status: int
    body: dict[str, Any]

    @classmethod
    def failed(cls, status: int, message: str, code: Any = None) -> LineOutcome:
        """A line without an answer: ``status`` and a batch error body (its ``code``: by default the status)."""
        return cls(status, {"error": {"message": message, "type": "batch", "code": status if code is None else code}})


class BatchEndpoint:
    """One endpoint and key: files and batches."""

    def __init__(self, identity: str, client: openai.AsyncOpenAI, completion_window: str = "24h") -> None:
        self.identity = identity  # public URL (no credentials): what submissions.json records
        self.client = client
        self.completion_window = completion_window

    async def upload(self, data: bytes, name: str) -> str:
        """Upload a JSONL input file; its id."""
        uploaded = await self.client.files.create(file=(name, data, "application/jsonl"), purpose="batch")
        return uploaded.id

    async def create(self, file_id: str, submission_id: str) -> str:
        """Create a batch over an uploaded file; its id."""
        batch = await self.client.batches.create(
            input_file_id=file_id,
            endpoint=CHAT_ENDPOINT,
            completion_window=self.completion_window,  # type: ignore[arg-type]
            metadata={METADATA_KEY: submission_id},
        )
        return batch.id

    async def find(self, submission_id: str) -> str | None:
        """The id of a batch created for ``submission_id`` (metadata), if the endpoint lists one."""
        try:
            async for batch in self.client.batches.list(limit=100):
                if (batch.metadata or {}).get(METADATA_KEY) == submission_id:
                    return batch.id
        except openai.NotFoundError:  # an endpoint without the list route
            return None
        return None

    async def retrieve(self, batch_id: str) -> Any:
        """The batch object (status, output_file_id, error_file_id, errors)."""
        return await self.client.batches.retrieve(batch_id)

    async def outcomes(self, batch: Any) -> dict[str, LineOutcome]:
        """custom_id -> outcome, from the output and error files of a finished batch."""
        found: dict[str, LineOutcome] = {}
        for file_id in (batch.error_file_id, batch.output_file_id):  # output last: it wins
            if file_id:
                content = await self.client.files.content(file_id)
                found.update(parse_output(content.text))
        return found

    async def close(self) -> None:
        """Close the SDK client."""
        await self.client.close()


def parse_output(text: str) -> dict[str, LineOutcome]:
    """custom_id -> outcome of a Batch API output or error file (lines that are not JSON are skipped)."""
    found: dict[str, LineOutcome] = {}
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if not isinstance(data, dict) or not data.get("custom_id"):
            continue
        found[str(data["custom_id"])] = line_outcome(data)
    return found


def line_outcome(data: Mapping[str, Any]) -> LineOutcome:
    """The status and body of one output line; an error line without a response gets 400 when the request
    itself was refused, else 503 (the line is worth retrying in a later batch)."""
    response = data.get("response")
    if isinstance(response, dict) and isinstance(response.get("body"), dict):
        return LineOutcome(int(response.get("status_code") or 500), response["body"])
    error = data.get("error") if isinstance(data.get("error"), dict) else {}
    code = str(error.get("code") or "batch_line_failed")
    message = str(error.get("message") or "the batch returned no answer for this request")
    return LineOutcome.failed(400 if "invalid" in code else 503, f"{code}: {message}", code)


def batch_error(batch: Any) -> str:
    """A one-line description of why a batch ended without answers."""
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    text = "; ".join(f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}" for e in errors[:3])
    return f"batch {batch.id} ended {batch.status}" + (f" ({text})" if text else "")
