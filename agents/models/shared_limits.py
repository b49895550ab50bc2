"""Rate limiters shared by a whole process: one ``RateLimiter`` per endpoint, model and credential.

A run's ``ClientPool`` learns its endpoints' budgets for itself (``pool.limiter_for``). A long-lived judge
(``debate_eval.Judge``) asks here instead, so every judge of the process that talks to the same endpoint
(its public URL) with the same model and the same credential, and every one of their concurrent calls,
waits on one budget and one adaptive window: what one call's headers teach, the next call of any judge uses.

The key holds a fingerprint of the credential (the first 16 hex digits of its SHA-256), never the
credential itself. The limiters' asyncio primitives belong to the event loop that uses them, so the callers
of this registry run their calls on one loop (the judges' shared loop).
"""

from __future__ import annotations

import threading

from debate_eval.agents.models.rate_limit import RateLimiter, RateOptions
from debate_eval.agents.models.settings import ModelSettings, public_url, stable_hash

LimiterKey = tuple[str, str, str, str]  # (provider, public endpoint URL, model, credential fingerprint)

_LIMITERS: dict[LimiterKey, RateLimiter] = {}
_LOCK = threading.Lock()


def limiter_key(settings: ModelSettings, base_url: str | None) -> LimiterKey:
    """The registry key of ``settings``' calls at ``base_url``: no secret in it (a URL's credentials are
    dropped by ``public_url``, the key is only fingerprinted)."""
    key = settings.configured_key()
    fingerprint = stable_hash(key)[:16] if key else ""
    return (settings.provider, public_url(base_url) if base_url else "", settings.model, fingerprint)


def shared_limiter(settings: ModelSettings, base_url: str | None, rate: RateOptions) -> RateLimiter:
    """The process's limiter of ``settings``' endpoint, model and credential, made on first use with
    ``rate``'s hand-set budgets and window bound (later callers share it as it is)."""
    key = limiter_key(settings, base_url)
    with _LOCK:
        limiter = _LIMITERS.get(key)
        if limiter is None:
            name = f"{settings.model} at {key[1] or settings.provider}"
            limiter = RateLimiter(name, max_in_flight=rate.max_in_flight, rpm=rate.rpm, tpm=rate.tpm)
            _LIMITERS[key] = limiter
        return limiter


def shared_limiters() -> dict[LimiterKey, RateLimiter]:
    """A snapshot of the registry (for reports and tests)."""
    with _LOCK:
        return dict(_LIMITERS)
