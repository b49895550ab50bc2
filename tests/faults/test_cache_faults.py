"""A damaged response cache against the real command line: one line naming the file and
what to do, no model call, no traceback; ``--no-cache`` runs without it; ``--reset-cache`` moves it aside
(never deletes it) and starts an empty one; damage found mid-run costs the cache, not the run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import diskcache
from faultkit import ITEMS, Outcome, assert_clean, run_args

GARBAGE = b"\x00not an sqlite database\xff" * 200


def test_a_damaged_cache_is_one_line_then_no_cache_and_reset_cache_work(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    cache = fault_env / "cache"  # $DEBATE_EVAL_CACHE_DIR of the suite
    cache.mkdir()
    (cache / "cache.db").write_bytes(GARBAGE)
    server = server_factory()
    args = run_args(server, fault_env / "run")
    broken = cli(args)
    message = f"{cache / 'cache.db'}: the response cache is damaged (file is not a database); rerun with --no-cache"
    assert_clean(broken, code=2, message=message, results=0, server=server)
    assert "--reset-cache to move it aside" in broken.stderr
    assert server.count == 0  # refused before any model call

    without = cli([*args, "--no-cache"])
    assert_clean(without, code=0, message=None, results=ITEMS, server=server)
    assert (cache / "cache.db").read_bytes() == GARBAGE  # untouched

    reset = cli([*run_args(server, fault_env / "run2"), "--reset-cache"])
    assert_clean(reset, code=0, message=None, results=ITEMS, server=server)
    moved = [path for path in fault_env.iterdir() if path.name.startswith("cache.reset-")]
    assert len(moved) == 1 and (moved[0] / "cache.db").read_bytes() == GARBAGE  # moved aside, not deleted
    assert f"was moved aside to {moved[0]}" in reset.stderr
    assert (cache / "cache.db").is_file()  # a new, working cache
    again = cli(run_args(server, fault_env / "run3"))
    assert_clean(again, code=0, message=None, results=ITEMS, server=server)
    assert json.loads((again.out / "summary.json").read_text())["this_invocation"]["cached_calls"] > 0


def test_reset_and_no_cache_together_are_refused(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    server = server_factory()
    outcome = cli([*run_args(server, fault_env / "run"), "--reset-cache", "--no-cache"])
    assert_clean(outcome, code=2, message="--reset-cache and --no-cache do not go together", results=0, server=server)
    assert server.count == 0


def test_damage_found_mid_run_costs_the_cache_not_the_run(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, monkeypatch: Any
) -> None:
    server = server_factory()
    original_set = diskcache.Cache.set

    def failing_set(self: Any, key: Any, value: Any, *rest: Any, **kwargs: Any) -> Any:
        if str(key).startswith("debate-eval:probe"):
            return original_set(self, key, value, *rest, **kwargs)
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(diskcache.Cache, "set", failing_set)
    outcome = cli(run_args(server, fault_env / "run"))
    assert_clean(outcome, code=0, message=None, results=ITEMS, server=server)
    warnings = [line for line in outcome.error_lines() if "the response cache is damaged" in line]
    assert len(warnings) == 1 and "going on without it" in warnings[0] and "--reset-cache" in warnings[0]
    assert all(r["error"] is None and r["score"] == 3 for r in outcome.records())
