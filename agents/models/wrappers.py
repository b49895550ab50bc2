"""Thin ``ChatCompletionClient`` wrappers around AutoGen's own clients (the public face of ``client_layers``,
``retry`` and ``recording``, where the layers live).

The stack each role talks through, innermost first:

1. the provider's AutoGen client (OpenAI-style ones: ``sdk_body_passthrough.py``) with the SDK's own retries off, over
   the run's HTTP client (``http_client.py``: proxies, CA bundle, the deadline per request, the answer cap,
   response observers);
2. ``LimitedClient`` (the embedded model only): at most as many requests in flight as the server has slots,
   so requests waiting for a slot do not count against the timeout;
3. ``RetryingClient``: retries 429 and 503 (honouring Retry-After), other 5xx, timeouts and connection errors
   with capped exponential backoff and jitter; any other error is final. Counts attempts and retries and
   tells its ``on_retry`` listener of each one (default: one line on stderr);
3b. ``AnswerCheckClient`` (``answer_check``): a tool call or a content-filtered answer is no answer (an error, so
   never cached); every configured secret in an answer is redacted before the cache stores it;
4. ``ChatCompletionCache`` (AutoGen) over a ``NamespacedStore`` of a disk ``DiskCacheStore``: the namespace
   carries model, endpoint and sampling settings, which AutoGen's cache key (messages only) leaves out.
   Errors are never cached (the cache stores only returned results);
5. ``ObservedClient``, one per debate and role: records every result (cached or not, usage, logprobs, finish
   reason, secrets redacted), and the usage of a call whose answer was refused, so a transcript can say
   what each call cost and whether it reached the model. Inside ``recording_calls(log)``
   every record is also added to ``log``: the runner's per-item log, kept even when the item fails.
"""

from __future__ import annotations

from debate_eval.agents.models.client_layers import ConcurrencyLimit, DelegatingClient, LimitedClient, NamespacedStore
from debate_eval.agents.models.recording import CallRecord, ObservedClient, recording_calls
from debate_eval.agents.models.retry import (
    BACKOFF_ENV,
    RETRY_AFTER_STATUSES,
    RetryEvent,
    RetryingClient,
    RetryListener,
    RetryPolicy,
    TransportStats,
    default_backoff,
    print_retry,
    retry_after_seconds,
    retry_reason,
)

__all__ = [
    "BACKOFF_ENV",
    "RETRY_AFTER_STATUSES",
    "CallRecord",
    "ConcurrencyLimit",
    "DelegatingClient",
    "LimitedClient",
    "NamespacedStore",
    "ObservedClient",
    "RetryEvent",
    "RetryListener",
    "RetryPolicy",
    "RetryingClient",
    "TransportStats",
    "default_backoff",
    "print_retry",
    "recording_calls",
    "retry_after_seconds",
    "retry_reason",
]
