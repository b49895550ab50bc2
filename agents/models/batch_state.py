"""What ``run --batch`` keeps in the run directory, so a killed run resumes without paying twice.

``batch/submissions.json``: every batch this run prepared, uploaded or submitted: its local id (also sent as the
batch's metadata, so a batch created just before a kill can be found again), endpoint (a public URL, never a
key), model, the keys of its requests, the input file and batch ids, and its status
(``prepared`` -> ``uploaded`` -> ``submitted`` -> ``done``). ``batch/requests-<id>.jsonl``: the pending
requests, exactly the input file's lines. ``batch/results.jsonl``: every successful answer, keyed by the
stable hash of its request body, so a rerun that asks the same question gets the answer already paid for.
Files are written before the step that depends on them (atomic replace; results appended and flushed).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import stable_hash
from debate_eval.agents.redaction import redact_record

SUBMISSIONS = "submissions.json"
RESULTS = "results.jsonl"
PREPARED, UPLOADED, SUBMITTED, DONE = "prepared", "uploaded", "submitted", "done"


def request_key(endpoint: str, body: Mapping[str, Any]) -> str:
    """Stable hash of a request: the endpoint's public identity and the JSON body (keys sorted)."""
    return stable_hash({"endpoint": endpoint, "body": body})[:40]


@dataclass
class Submission:
    """One batch of requests, from preparation to its answers."""

    id: str
    endpoint: str
    model: str
    keys: list[str]
    status: str = PREPARED
    file_id: str | None = None
    batch_id: str | None = None
    batch_status: str | None = None  # the provider's last known status

    @property
    def open(self) -> bool:
        """Not answered yet (a rerun polls or submits it instead of queueing its requests again)."""
        return self.status != DONE


@dataclass
class BatchState:
    """The ``batch/`` folder of a run directory."""

    directory: Path
    submissions: dict[str, Submission] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    _open_key: dict[str, str] = field(default_factory=dict)  # request key -> open submission id

    @classmethod
    def load(cls, directory: Path) -> BatchState:
        """Read the folder (empty state when it does not exist yet)."""
        state = cls(directory)
        path = directory / SUBMISSIONS
        try:
            if path.exists():
                for data in json.loads(path.read_text(encoding="utf-8")):
                    state._remember(Submission(**data))
            if (directory / RESULTS).exists():
                state._read_results(directory / RESULTS)
        except (OSError, ValueError, TypeError) as exc:
            raise UserError(f"{path}: cannot read the batch state of this run: {exc}") from None
        return state

    def _read_results(self, path: Path) -> None:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                try:
                    data = json.loads(line)
                except ValueError:  # a line cut by a kill: its request is simply asked again
                    continue
                if isinstance(data, dict) and isinstance(data.get("body"), dict):
                    self.results[str(data["key"])] = data["body"]

    def _remember(self, submission: Submission) -> None:
        self.submissions[submission.id] = submission
        for key in submission.keys:
            if submission.open:
                self._open_key[key] = submission.id
            elif self._open_key.get(key) == submission.id:
                del self._open_key[key]

    def open_submission_of(self, key: str) -> Submission | None:
        """The unanswered submission that already holds request ``key``."""
        sub_id = self._open_key.get(key)
        return self.submissions.get(sub_id) if sub_id else None

    def prepare(self, endpoint: str, model: str, lines: Iterable[Mapping[str, Any]]) -> tuple[Submission, bytes]:
        """Save a new submission's pending requests; returns it and the input file's bytes."""
        lines = list(lines)
        submission = Submission(uuid.uuid4().hex, endpoint, model, [str(line["custom_id"]) for line in lines])
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        _write_atomic(self.directory / f"requests-{submission.id}.jsonl", data)
        self.update(submission)
        return submission, data

    def update(self, submission: Submission, **changes: Any) -> None:
        """Change a submission and save the list."""
        for name, value in changes.items():
            setattr(submission, name, value)
        self._remember(submission)
        data = json.dumps([asdict(s) for s in self.submissions.values()], indent=1).encode("utf-8")
        _write_atomic(self.directory / SUBMISSIONS, data)

    def input_file(self, submission: Submission) -> bytes:
        """The saved input file of ``submission``."""
        return (self.directory / f"requests-{submission.id}.jsonl").read_bytes()

    def save_results(self, answers: Mapping[str, dict[str, Any]]) -> None:
        """Append successful answers (key -> response body), every configured secret in them masked."""
        if not answers:
            return
        answers = {key: redact_record(body)[0] for key, body in answers.items()}
        self.results.update(answers)
        self.directory.mkdir(parents=True, exist_ok=True)
        with (self.directory / RESULTS).open("a", encoding="utf-8") as out:
            for key, body in answers.items():
                out.write(json.dumps({"key": key, "body": body}, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
