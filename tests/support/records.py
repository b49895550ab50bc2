"""Stored records for tests of a method's hooks: an outcome's fields as the engine writes them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from debate_eval.tasks.engine.record import Record


def stored(fields: Mapping[str, Any]) -> Record:
    """``fields`` (a method's outcome: transcript, details, decided_by...) as a stored ``Record`` of item
    ``d1`` (through JSON, as ``results.jsonl`` holds it)."""
    line = {"item_id": "d1", "dataset": "test", "aspect": "coherence", **fields}
    return Record.from_json(json.loads(json.dumps(line)))
