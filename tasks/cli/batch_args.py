"""The ``--batch`` flags of ``run`` (model calls through the provider's Batch API)."""

from __future__ import annotations

import argparse


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return value


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """``--batch``, ``--batch-max-requests``, ``--batch-wait``, ``--batch-poll``."""
    group = parser.add_argument_group("batch mode (OpenAI Batch API routes: /v1/files, /v1/batches)")
    group.add_argument(
        "--batch",
        action="store_true",
        default=None,
        help="queue every model call and send the queue as one batch when every item waits on a call "
        "(about 2n+1 batches for DEBATE with n rounds; batch prices; a rerun polls batches already submitted)",
    )
    group.add_argument("--batch-max-requests", type=_positive_int, help="most requests per batch (default 50000)")
    group.add_argument("--batch-wait", type=_positive_float, help="send the queue this many seconds after it starts")
    group.add_argument("--batch-poll", type=_positive_float, help="seconds between status polls (default 30)")
