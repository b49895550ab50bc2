"""Samples as fresh calls: sample k of K > 1 asks under its own cache variant and with seed + k; one sample is
the plain call; ``SamplePool`` applies this to every client a method asks for."""

from __future__ import annotations

from typing import Any

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.debates.kit.samples import SamplePool, sample_request, sample_variant


class RecordingPool(ClientPool):
    """A pool that records what ``shared`` was asked for instead of building clients."""

    def __init__(self) -> None:
        super().__init__(resolve_model_config(environ={}))
        self.asked: list[tuple[str, str, dict[str, Any] | None]] = []

    def shared(self, role: str, variant: str = "", sampling: Any = None) -> Any:
        self.asked.append((role, variant, dict(sampling) if sampling else None))
        return object()


def test_one_sample_is_the_plain_call() -> None:
    pool = RecordingPool()
    assert sample_variant(0, 1) == "" and sample_request(pool, "scorer", 0, 1) == ("", {})


def test_sample_k_has_its_variant_and_seed() -> None:
    pool = RecordingPool()
    assert [sample_request(pool, "scorer", k, 3) for k in range(3)] == [
        ("sample0", {"seed": 453}),
        ("sample1", {"seed": 454}),
        ("sample2", {"seed": 455}),
    ]
    assert sample_request(pool, "scorer", 1, 3, {"seed": 7}) == ("sample1", {"seed": 8})  # the call's own seed


def test_the_sample_pool_applies_them_to_every_client() -> None:
    pool = RecordingPool()
    sample = SamplePool(pool, 2, 4)
    sample.shared("critic")
    sample.shared("scorer", "inner", {"top_logprobs": 5})
    sample.for_debate("scorer", [])
    assert pool.asked == [
        ("critic", "sample2", {"seed": 455}),
        ("scorer", "sample2/inner", {"top_logprobs": 5, "seed": 455}),
        ("scorer", "sample2", {"seed": 455}),
    ]
    assert sample.config is pool.config  # everything else is the pool's
