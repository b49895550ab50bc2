"""Session affinity: the calls of one debate stay on one model replica.

A debate's calls share a growing prefix (the prompt, then every earlier turn), so a replica that served the
previous turn still holds most of the next one in its prefix (KV) cache. Two mechanisms keep a debate there:

- **A session key on every request** (``session_key``): an opaque hash of the run's configuration, the item
  and the calling role, never any judged text. It is sent in the headers that the common routers read:
  ``X-Session-Id`` (consistent-hash routers such as vLLM's router, many gateways; vLLM's production-stack router
  with ``--routing-logic session --session-key x-session-id``) and ``x-smg-routing-key`` (SGLang's model
  gateway); and, to the OpenAI API only, as the body field ``prompt_cache_key`` that OpenAI's prompt cache
  routes by (never under ``--fidelity authors-code``, whose bodies carry only what the authors sent). A role
  calls with its own key: the Scorer's and the Critic's conversations are different prefixes.
- **Several base URLs per role** (``--base-url URL1,URL2,...``) for users without a router: ``ReplicaSet``
  pins each session to one replica, and places a new session on the replica with the fewest requests in
  flight (ties: the one given the fewest sessions, then the first), so load spreads evenly across debates.

The key is set per item by the engine (``debate_session``) and per call by the role's recording client
(``role_call``); the HTTP client (``http_client.py``) reads it. Outside a debate no key is sent.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from contextvars import ContextVar

from debate_eval.agents.context_value import bound

SESSION_HEADERS = ("X-Session-Id", "x-smg-routing-key")
BODY_FIELD = "prompt_cache_key"  # the OpenAI API's prompt-cache routing key
OPENAI_API_HOST = "api.openai.com"
SESSION_KEYS_ENV = "DEBATE_EVAL_SESSION_KEYS"  # "0" sends no session key
# sessions remembered per replica set, the least recently used forgotten first: far more than the sessions of
# the debates in flight (each uses its own at every turn), and a few MB at most however many items a run has
MAX_PINNED_SESSIONS = 8_192

_DEBATE: ContextVar[str | None] = ContextVar("debate_eval_debate_session", default=None)
_ROLE: ContextVar[str | None] = ContextVar("debate_eval_session_role", default=None)


def _digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def debate_session(*parts: str) -> contextlib.AbstractContextManager[str]:
    """Within the block, the calls belong to the debate identified by ``parts`` (e.g. config hash, item id,
    aspect): yields its opaque id. Tasks started inside inherit it."""
    return bound(_DEBATE, _digest("\x1f".join(parts), 32))


def role_call(role: str) -> contextlib.AbstractContextManager[str]:
    """Within the block, requests are made for ``role`` (set by the role's recording client per call)."""
    return bound(_ROLE, role)


def session_keys_enabled(environ: dict[str, str] | None = None) -> bool:
    """False when ``$DEBATE_EVAL_SESSION_KEYS`` is ``0`` (or ``false``/``no``/``off``): no key is sent."""
    value = (os.environ if environ is None else environ).get(SESSION_KEYS_ENV, "").strip().lower()
    return value not in ("0", "false", "no", "off")


def session_key() -> str | None:
    """The key of the current debate and role (``de-`` and 24 hex digits), or None outside a debate."""
    debate = _DEBATE.get()
    if debate is None:
        return None
    return _role_key(debate, _ROLE.get() or "")


@functools.lru_cache(maxsize=4096)
def _role_key(debate: str, role: str) -> str:
    return "de-" + _digest(f"{debate}\x1f{role}", 24)


class ReplicaSet:
    """The replicas behind one base URL: session-pinned, least-outstanding placement (thread-safe)."""

    def __init__(self, urls: Sequence[str]) -> None:
        if not urls:
            raise ValueError("a replica set needs at least one URL")
        self.urls = tuple(url.rstrip("/") for url in urls)
        self.outstanding = [0] * len(self.urls)  # requests in flight per replica
        self.sessions = [0] * len(self.urls)  # sessions placed per replica
        self.requests = [0] * len(self.urls)  # requests sent per replica
        self._pinned: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def acquire(self, key: str | None) -> int:
        """The replica for the next request of session ``key`` (None: no session, least outstanding), counted
        as in flight until ``release``."""
        with self._lock:
            index = self._pinned.get(key) if key is not None else None
            if index is None:
                index = min(range(len(self.urls)), key=lambda i: (self.outstanding[i], self.sessions[i], i))
                if key is not None:
                    self.sessions[index] += 1
                    self._pinned[key] = index
                    if len(self._pinned) > MAX_PINNED_SESSIONS:
                        self._pinned.popitem(last=False)
            elif key is not None:
                self._pinned.move_to_end(key)
            self.outstanding[index] += 1
            self.requests[index] += 1
            return index

    def release(self, index: int) -> None:
        """A request to replica ``index`` ended."""
        with self._lock:
            self.outstanding[index] -= 1

    def rewrite(self, url: str, index: int) -> str | None:
        """``url`` (under the first replica's base URL) moved under replica ``index``'s; None when ``url`` is
        not under the first replica's base URL."""
        primary = self.urls[0]
        if url != primary and not url.startswith(primary + "/") and not url.startswith(primary + "?"):
            return None
        return self.urls[index] + url[len(primary) :]


def split_urls(value: str | None) -> tuple[str | None, tuple[str, ...]]:
    """``--base-url URL1,URL2,...``: the first URL and the further replicas (commas or whitespace between)."""
    if value is None:
        return None, ()
    urls = [part for part in value.replace(",", " ").split() if part]
    if len(urls) <= 1:
        return (urls[0] if urls else value), ()
    return urls[0], tuple(urls[1:])
