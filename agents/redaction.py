"""Keep secrets out of everything a run writes or prints: logs, transcripts, results, caches, reports, errors.

The secrets are the configured ones, not a fixed list:

- the values of environment variables named like secrets (``*_API_KEY``, ``*_KEY``, ``*TOKEN``, ``*SECRET``,
  ``*PASSWORD``): every provider's key variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``,
  ``AZURE_OPENAI_API_KEY``, ``GEMINI_API_KEY``, the per-role ``DEBATE_EVAL_<ROLE>_API_KEY``, ...);
- the password (and user) of any URL in the environment (``https://user:pw@proxy``, a base URL);
- what the run's model settings hold (``register_secrets``, called by the client pool with
  ``ModelConfig.secrets()``): each role's key, the credentials of a ``--base-url`` given on the command line;
- anything shaped like a key or a bearer token (``sk-...``, ``AIza...``, ``Bearer ...``).

``redact`` masks all of these in a message; ``redact_counted`` also says how many it masked (a model answer's
count goes into its transcript entry and record). ``redact_record`` masks the configured values (not the
shapes, which could match judged text) in every string of a result record, the last check before a record
is written or shown.

Inside ``environment_snapshot()`` (a run's debates: ``tasks/engine/runner.py``) the environment's secrets are
the ones it held when the block began, read once instead of at every model call (reading every variable of
the environment took about a tenth of a millisecond, twice per call); the registered ones are always current.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import Any

from debate_eval.agents.context_value import bound

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 6  # shorter values are no secret worth masking (and would mask ordinary words)
_SECRET_NAME = re.compile(r"(API_KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.IGNORECASE)
_KEY_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{6,}|AIza[0-9A-Za-z_\-]{20,})|\bBearer\s+[A-Za-z0-9_\-\.=+/]{8,}", re.IGNORECASE
)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
_registered: set[str] = set()
_SNAPSHOT: ContextVar[frozenset[str] | None] = ContextVar("debate_eval_environment_secrets", default=None)


def register_secrets(values: Iterable[str | None]) -> None:
    """Add ``values`` (e.g. ``ModelConfig.secrets()``) to the secrets masked in this process."""
    _registered.update(value for value in values if value and len(value) >= MIN_SECRET_CHARS)


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: its user and password, and its query values (``?api-key=...``)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return []
    found = [parts.password or "", parts.username or ""] if "@" in parts.netloc else []
    found += [value for _, value in urllib.parse.parse_qsl(parts.query)]
    return [value for value in found if len(value) >= MIN_SECRET_CHARS]


def redact_words(words: Iterable[str]) -> list[str]:
    """Command-line words as they may be written down (a run's lock, an audit's commands): every secret and
    key shape masked (``redact``), and the credentials of any URL among them (``--base-url
    https://user:pw@host/v1?api-key=...``, which a run registers as secrets only once it opens its models)."""
    masked = []
    for word in words:
        for url in _URL.findall(word):
            for secret in url_secrets(url):
                word = word.replace(secret, REDACTED)
        masked.append(redact(word))
    return masked


def environment_secrets(environ: Mapping[str, str] | None = None) -> set[str]:
    """The secrets an environment holds (``os.environ`` by default): the values of secret-named variables and
    the credentials of URLs."""
    env = os.environ if environ is None else environ
    values: set[str] = set()
    for name, value in env.items():  # one pass: each read of ``os.environ`` decodes every variable
        if len(value) >= MIN_SECRET_CHARS and _SECRET_NAME.search(name):
            values.add(value)
        if "://" in value and ("@" in value or "?" in value):
            values.update(url_secrets(value))
    return values


def environment_snapshot() -> contextlib.AbstractContextManager[frozenset[str]]:
    """In this block, and in the tasks started in it, ``os.environ``'s secrets are read once, now (see the
    module doc); the registered secrets still count as they are registered."""
    return bound(_SNAPSHOT, frozenset(environment_secrets()))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret to mask, longest first: secret-named environment variables, URL credentials in the
    environment (``environ``, else ``os.environ`` or its ``environment_snapshot``), and the registered ones."""
    snapshot = _SNAPSHOT.get() if environ is None else None
    found = snapshot if snapshot is not None else environment_secrets(environ)
    return list(_longest_first(frozenset(found | _registered)))


@functools.lru_cache(maxsize=32)
def _longest_first(values: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(values, key=len, reverse=True))


def redact_counted(text: str, environ: Mapping[str, str] | None = None) -> tuple[str, int]:
    """``text`` with every secret and anything shaped like a key masked, and how many were masked."""
    text, count = _masked(text, secret_values(environ))
    if not may_hold_key_shape(text):
        return text, count
    text, shapes = _KEY_SHAPES.subn(_mask_shape, text)
    return text, count + shapes


# the characters ``re.IGNORECASE`` matches to a letter of the key shapes' prefixes that ``str.lower`` does not
# lower to that letter (the regular expression engine's own equivalences; tests/agents/test_redaction.py checks
# every code point)
_IGNORECASE_EXTRAS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def may_hold_key_shape(text: str) -> bool:
    """False when ``text`` cannot hold anything shaped like a key: each shape begins with ``sk-``, ``AIza`` or
    ``Bearer`` in any case, and scanning for those words is much cheaper than the shapes' expression."""
    folded = (text if text.isascii() else text.translate(_IGNORECASE_EXTRAS)).lower()
    return "sk-" in folded or "aiza" in folded or "bearer" in folded


def _masked(text: str, values: Iterable[str]) -> tuple[str, int]:
    count = 0
    for value in values:
        if value in text:
            count += text.count(value)
            text = text.replace(value, REDACTED)
    return text, count


def _mask_shape(match: re.Match[str]) -> str:
    found = match.group(0)
    return found.split()[0] + " " + REDACTED if found.lower().startswith("bearer") else found[:3] + REDACTED


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with every secret, and anything shaped like a key, masked."""
    return redact_counted(text, environ)[0]


def redact_json(value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """``value`` (any JSON value: an error body) with every secret, and anything shaped like a key, masked in
    its strings (keys included)."""
    if isinstance(value, str):
        return redact(value, environ)
    if isinstance(value, dict):
        return {redact_json(key, environ): redact_json(item, environ) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(item, environ) for item in value]
    return value


def redact_record(record: Any, environ: Mapping[str, str] | None = None) -> tuple[Any, int]:
    """``record`` (any JSON value) with every configured secret masked in its strings, and how many."""
    values = secret_values(environ)
    if not values:
        return record, 0
    count = 0

    def walk(value: Any) -> Any:
        nonlocal count
        if isinstance(value, str):
            value, found = _masked(value, values)
            count += found
            return value
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    return walk(record), count
