"""BatchDispatcher against an in-memory endpoint: when the queue goes out, and how a rerun resumes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from debate_eval.agents.models.batch import BatchDispatcher, BatchOptions, item_in_flight
from debate_eval.agents.models.batch_api import LineOutcome
from debate_eval.agents.models.batch_state import DONE, UPLOADED, BatchState, request_key


class FakeEndpoint:
    """Files and batches in memory; every batch completes at its first poll."""

    identity = "http://fake/v1 key=$K"

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []

    async def upload(self, data: bytes, name: str) -> str:
        file_id = f"f{len(self.files)}"
        self.files[file_id] = data
        return file_id

    async def create(self, file_id: str, submission_id: str) -> str:
        batch_id = f"b{len(self.batches)}"
        self.batches[batch_id] = {"file": file_id, "metadata": submission_id}
        self.created.append(batch_id)
        return batch_id

    async def find(self, submission_id: str) -> str | None:
        return next((b for b, data in self.batches.items() if data["metadata"] == submission_id), None)

    async def retrieve(self, batch_id: str) -> Any:
        return SimpleNamespace(id=batch_id, status="completed", errors=None, output_file_id="o", error_file_id=None)

    async def outcomes(self, batch: Any) -> dict[str, LineOutcome]:
        import json

        lines = self.files[self.batches[batch.id]["file"]].decode().splitlines()
        return {
            json.loads(line)["custom_id"]: LineOutcome(200, {"echo": json.loads(line)["body"]["n"]}) for line in lines
        }

    async def close(self) -> None:
        return None


def body(n: int) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": f"q{n}"}], "n": n}


def test_the_queue_goes_out_when_every_item_waits_and_splits_at_max_requests(tmp_path: Path) -> None:
    endpoint = FakeEndpoint()

    async def main() -> list[int]:
        dispatcher = BatchDispatcher(BatchOptions(max_requests=3, poll_s=0.01), tmp_path)

        async def item(n: int) -> int:
            with item_in_flight(dispatcher):
                await asyncio.sleep(0.01 * n)  # items reach their call at different times
                return (await dispatcher.request(endpoint, body(n))).body["echo"]  # type: ignore[arg-type]

        answers = await asyncio.gather(*(item(n) for n in range(7)))
        await dispatcher.close()
        return answers

    assert asyncio.run(main()) == list(range(7))
    # 3 went out when the queue held max_requests, then 3 more, then the last one when every item waited
    assert len(endpoint.created) == 3


def test_batch_wait_sends_a_partial_queue(tmp_path: Path) -> None:
    endpoint = FakeEndpoint()

    async def main() -> int:
        dispatcher = BatchDispatcher(BatchOptions(wait_s=0.05, poll_s=0.01), tmp_path)
        with item_in_flight(dispatcher), item_in_flight(dispatcher):  # two items, only one ever calls
            outcome = await asyncio.wait_for(dispatcher.request(endpoint, body(1)), timeout=60)  # type: ignore[arg-type]
        await dispatcher.close()
        return outcome.body["echo"]

    assert asyncio.run(main()) == 1
    assert len(endpoint.created) == 1


def test_a_batch_created_just_before_a_kill_is_found_by_its_metadata(tmp_path: Path) -> None:
    endpoint = FakeEndpoint()
    key = request_key(endpoint.identity, body(5))
    state = BatchState.load(tmp_path)
    line = {"custom_id": key, "method": "POST", "url": "/v1/chat/completions", "body": body(5)}
    submission, data = state.prepare(endpoint.identity, "m", [line])
    file_id = asyncio.run(endpoint.upload(data, "x"))
    state.update(submission, status=UPLOADED, file_id=file_id)
    asyncio.run(endpoint.create(file_id, submission.id))  # the kill came before the state said "submitted"

    async def rerun() -> int:
        dispatcher = BatchDispatcher(BatchOptions(poll_s=0.01), tmp_path)
        with item_in_flight(dispatcher):
            outcome = await dispatcher.request(endpoint, body(5))  # type: ignore[arg-type]
        await dispatcher.close()
        assert dispatcher.stats.batches == 0 and dispatcher.stats.batches_resumed == 1
        return outcome.body["echo"]

    assert asyncio.run(rerun()) == 5
    assert endpoint.created == ["b0"]  # not created again
    assert BatchState.load(tmp_path).submissions[submission.id].batch_id == "b0"
    assert BatchState.load(tmp_path).submissions[submission.id].status == DONE
