"""The resume index (``results.index.json``) is trusted only as written: a state edited by hand (a failed
item set to finished) or an offset moved is noticed (the index stamps its own body) and the results file is
read instead; ``show --item`` with an offset into the middle of a line scans; an index that is a symlink (to
``/dev/zero``) or larger than its results file allows is not read."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import ITEMS, Action, Outcome, assert_clean, run_args
from test_interruptions import item_texts

INDEX = "results.index.json"


def failing_item(text: str) -> Callable[[int, dict[str, Any]], Action | None]:
    """Answer every request, except those about ``text``: HTTP 400 (not retried; the item fails)."""

    def script(number: int, request: dict[str, Any]) -> Action | None:
        body = json.dumps(request.get("messages"), ensure_ascii=False)
        return Action(status=400) if json.dumps(text, ensure_ascii=False)[1:-1] in body else None

    return script


def edited(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite the index with ``change`` made to its document (as a hand edit would: the stamp left as is)."""
    document = json.loads(path.read_bytes())
    change(document)
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_failed_items_state_edited_to_finished_is_retried(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    out = fault_env / "run"
    failed_text = item_texts()[1]
    first = cli(run_args(server_factory(script=failing_item(failed_text)), out))
    assert first.code == 1, first.output  # an item failed
    failed = [r["item_id"] for r in first.records() if r.get("error")]
    assert len(failed) == 1
    index = out / INDEX
    assert index.is_file()

    def finished(document: dict[str, Any]) -> None:
        states = list(document["states"])
        states[document["keys"].index(failed[0])] = "d"  # failed -> finished
        document["states"] = "".join(states)

    edited(index, finished)
    server = server_factory()
    rerun = cli(run_args(server, out))
    assert rerun.code == 0, rerun.output
    assert any(failed_text[:60] in json.dumps(r.get("messages"), ensure_ascii=False) for r in server.requests)
    last = {r["item_id"]: r for r in rerun.records()}
    assert len(last) == ITEMS and not any(r.get("error") for r in last.values())  # retried, finished


def test_an_offset_into_a_line_is_ignored_by_show(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    out = fault_env / "run"
    server = server_factory()
    assert_clean(cli(run_args(server, out)), code=0, message=None, results=ITEMS, server=server)
    item = json.loads((out / "results.jsonl").read_text().splitlines()[-1])["item_id"]

    def moved(document: dict[str, Any]) -> None:
        position = document["keys"].index(item)
        document["offsets"][position] += 7  # into the middle of its line

    edited(out / INDEX, moved)
    shown = cli(["show", str(out), "--item", item])
    assert shown.code == 0 and "Traceback" not in shown.output, shown.output
    assert item in shown.stdout


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform == "win32", reason="needs /dev/zero")
@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "huge"])
def test_an_index_that_cannot_be_an_index_is_not_read(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, kind: str
) -> None:
    out = fault_env / "run"
    server = server_factory()
    assert_clean(cli(run_args(server, out, limit=2)), code=0, message=None, results=2, server=server)
    item = json.loads((out / "results.jsonl").read_text().splitlines()[0])["item_id"]
    index = out / INDEX
    index.unlink()
    if kind == "huge":
        size = (out / "results.jsonl").stat().st_size
        index.write_bytes(b" " * (3 * size + 70_000) + b"{}")  # larger than any index of that file
    else:
        index.symlink_to("/dev/zero")
    shown = cli(["show", str(out), "--item", item])  # before: read /dev/zero until killed
    assert shown.code == 0 and item in shown.stdout, shown.output
    rerun = cli(run_args(server, out, limit=2))  # before: MemoryError traceback
    assert rerun.code == 0 and "Traceback" not in rerun.output, rerun.output
