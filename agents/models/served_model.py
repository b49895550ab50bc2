"""What a server says about the weights behind a model name: the served-model fingerprint.

The config hash names a model by provider and name, so it stays computable offline. A server may serve other
weights under the same name (a vLLM ``--served-model-name``, an Ollama tag pulled again), so the endpoint
check before a run asks the server what it serves, through its public routes, and ``config.json`` records
the answer per role (``models.roles.ROLE.served_model``); a resume compares it (``tasks/engine/fingerprints.py``).

- ``vllm root``: OpenAI-compatible ``GET /models``, the entry's ``root`` (the weights it loaded), with
  ``max_model_len`` when given;
- ``llama.cpp meta``: the same route, the entry's ``meta`` (n_params, size, n_vocab, n_ctx_train, ...);
- ``ollama digest``: Ollama's ``GET /api/tags``, the model's ``digest``;
- ``embedded sha256``: the embedded server's GGUF checksum (checked when the server starts; not hashed again).

Anything else (LM Studio, a proxy, OpenAI, Azure, Anthropic, Gemini) reports no weight identity: the
fingerprint is None, with the reason. Asking is best effort: a failure is a reason, never an error.
What a server says is untrusted: a fingerprint (and a reason) is stored with its secrets masked, its
control characters dropped and its length capped (``clean_text``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from debate_eval.agents.redaction import redact

VLLM_ROOT = "vllm root"
LLAMA_CPP_META = "llama.cpp meta"
OLLAMA_DIGEST = "ollama digest"
EMBEDDED_SHA256 = "embedded sha256"
# the llama.cpp server's ``meta`` fields that describe the weights (``n_ctx_train``: the trained context)
META_FIELDS = ("n_params", "size", "n_vocab", "n_ctx_train", "n_embd", "vocab_type")


MAX_FINGERPRINT_CHARS = 300


def clean_text(text: str | None) -> str | None:
    """A server's text as it may be stored and shown: secrets masked, control characters dropped, at most
    ``MAX_FINGERPRINT_CHARS`` characters (a longer one ends with its SHA-256, so two still differ)."""
    if text is None:
        return None
    text = "".join(char for char in redact(text) if char.isprintable())
    if len(text) <= MAX_FINGERPRINT_CHARS:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
    tail = f"... ({len(text):,} characters, sha256 {digest})"
    return text[: MAX_FINGERPRINT_CHARS - len(tail)] + tail


@dataclass(frozen=True)
class ServedModel:
    """The fingerprint of the weights a server serves under a model name, or None with the reason."""

    fingerprint: str | None
    source: str | None = None  # how it was found (``VLLM_ROOT``, ...)
    reason: str | None = None  # why there is none

    def __post_init__(self) -> None:
        # what a server says is untrusted: no secret, no control character, not longer than a line
        object.__setattr__(self, "fingerprint", clean_text(self.fingerprint))
        object.__setattr__(self, "reason", clean_text(self.reason))

    @classmethod
    def unknown(cls, reason: str) -> ServedModel:
        """No fingerprint, because of ``reason``."""
        return cls(None, None, reason)

    def to_dict(self) -> dict[str, Any]:
        """The ``config.json`` form: ``{"fingerprint", "source"}`` or ``{"fingerprint": null, "reason"}``."""
        if self.fingerprint is None:
            return {"fingerprint": None, "reason": self.reason}
        return {"fingerprint": self.fingerprint, "source": self.source}

    @classmethod
    def from_dict(cls, data: Any) -> ServedModel | None:
        """The recorded form back (None when ``data`` is no recorded served model)."""
        if not isinstance(data, Mapping):
            return None
        fingerprint = data.get("fingerprint")
        if isinstance(fingerprint, str) and fingerprint:
            source = data.get("source")
            return cls(fingerprint, source if isinstance(source, str) else None)
        reason = data.get("reason")
        return cls.unknown(reason if isinstance(reason, str) else "not recorded")

    def describe(self) -> str:
        """``FINGERPRINT (SOURCE)``, or ``unknown (REASON)``."""
        if self.fingerprint is None:
            return f"unknown ({self.reason})"
        return f"{self.fingerprint} ({self.source})"


def _entries(body: Any, key: str) -> list[Mapping[str, Any]]:
    items = body.get(key) if isinstance(body, Mapping) else None
    return [item for item in items if isinstance(item, Mapping)] if isinstance(items, list) else []


def from_openai_models(body: Any, model: str) -> ServedModel:
    """The fingerprint of ``model`` in an OpenAI-compatible ``GET /models`` answer: vLLM's ``root``
    (+ ``max_model_len``), else llama.cpp's ``meta``. llama.cpp serves one model whatever a request calls
    it, so a single entry with ``meta`` counts when no entry is called ``model``."""
    entries = _entries(body, "data")
    if not entries:
        return ServedModel.unknown("GET /models listed no model")
    entry = next((e for e in entries if e.get("id") == model), None)
    if entry is None and len(entries) == 1 and isinstance(entries[0].get("meta"), Mapping):
        entry = entries[0]
    if entry is None:
        return ServedModel.unknown(f"GET /models lists no model {model!r}")
    root = entry.get("root")
    if isinstance(root, str) and root:
        length = entry.get("max_model_len")
        has_length = isinstance(length, int) and not isinstance(length, bool)
        return ServedModel(f"{root}; max_model_len={length}" if has_length else root, VLLM_ROOT)
    meta = entry.get("meta")
    if isinstance(meta, Mapping):
        known = [f"{name}={meta[name]}" for name in META_FIELDS if isinstance(meta.get(name), int | str)]
        if known:
            return ServedModel(", ".join(known), LLAMA_CPP_META)
    return ServedModel.unknown("the server's GET /models names no weights (no root or meta)")


def from_ollama_tags(body: Any, model: str) -> ServedModel:
    """The ``digest`` of ``model`` in Ollama's ``GET /api/tags`` answer (``llama3`` is ``llama3:latest``)."""
    names = {model} if ":" in model else {model, f"{model}:latest"}
    for entry in _entries(body, "models"):
        if entry.get("name") in names or entry.get("model") in names:
            digest = entry.get("digest")
            if isinstance(digest, str) and digest:
                return ServedModel(digest, OLLAMA_DIGEST)
            return ServedModel.unknown(f"GET /api/tags gives no digest for {model!r}")
    return ServedModel.unknown(f"GET /api/tags lists no model {model!r}")


def failure_reason(route: str, error: BaseException) -> str:
    """Why asking failed, in a few words (an HTTP status, or the error's kind; never a URL or a key)."""
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        return f"{route} answered HTTP {status}"
    return f"{route} failed ({type(error).__name__})"
