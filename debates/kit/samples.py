"""K samples of one judge, each a fresh model call.

Asking the same request K times would give K copies of one answer: the response cache keys a request by its
messages and settings, and a fixed seed fixes the decoding. So sample ``k`` of ``K`` (K > 1) sends its calls
under the cache variant ``sample{k}`` (its own cache entries) and with the seed ``seed + k`` (the role's seed,
or the one the call already sets; no seed when none is set). With K = 1 nothing changes: one sample is the
method itself. At temperature 0 the samples are still the same answer (greedy decoding); methods warn.

``sample_request`` gives one call's variant and seed (G-Eval's ``--geval-samples`` uses it for its evaluator);
``SamplePool`` applies them to every call a whole method makes (``self-consistency`` runs any method's judge
through it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from autogen_core.models import ChatCompletionClient

    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.agents.models.wrappers import CallRecord, ObservedClient


def sample_variant(k: int, samples: int) -> str:
    """The cache variant of sample ``k`` of ``samples``: ``sample{k}``, or ``""`` for a single sample."""
    return f"sample{k}" if samples > 1 else ""


def sample_request(
    pool: ClientPool, role: str, k: int, samples: int, sampling: Mapping[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """The cache variant and the sampling fields (``{"seed": seed + k}``, or none) of sample ``k``'s calls by
    ``role``; ``sampling``: what the call sets already (its seed, if any, is the one offset)."""
    if samples <= 1:
        return "", {}
    seed = pool.settings_for(role, sampling).sampling.seed
    return sample_variant(k, samples), ({"seed": seed + k} if seed is not None else {})


class SamplePool:
    """``pool`` as sample ``k`` of ``samples`` sees it: every client it hands out (``shared``, ``for_debate``)
    sends its calls under that sample's cache variant and seed; everything else is ``pool``'s."""

    def __init__(self, pool: ClientPool, k: int, samples: int) -> None:
        """Sample ``k`` (from 0) of ``samples``."""
        self._pool = pool
        self.k = k
        self.samples = samples

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)

    def shared(self, role: str, variant: str = "", sampling: Mapping[str, Any] | None = None) -> ChatCompletionClient:
        """``pool.shared`` under this sample's variant (before the caller's own, if any) and seed."""
        own, seed = sample_request(self._pool, role, self.k, self.samples, sampling)
        joined = f"{own}/{variant}" if own and variant else own or variant
        return self._pool.shared(role, joined, {**(sampling or {}), **seed} or None)

    def for_debate(
        self,
        role: str,
        log: list[CallRecord],
        variant: str = "",
        sampling: Mapping[str, Any] | None = None,
        **observe: Any,
    ) -> ObservedClient:
        """``pool.for_debate`` with this sample's client (``shared``); ``observe``: ``pool.observe``'s keywords
        (``answer``, ``items``, ``scale``)."""
        return self._pool.observe(self.shared(role, variant, sampling), role, log, **observe)


def identical_samples_warning(flag: str, samples: int, temperature: float, purpose: str) -> str | None:
    """The run-start warning when ``samples`` > 1 samples (``flag``) at temperature 0 would be identical
    answers, naming what a higher temperature is for (``purpose``); None otherwise."""
    if samples > 1 and temperature == 0:
        return (
            f"warning: {flag} {samples} at temperature 0 gives {samples} identical answers (greedy decoding; only "
            f"the seed differs): set --temperature above 0 for {purpose}"
        )
    return None
