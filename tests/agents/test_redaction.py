"""Secrets never reach logs or errors."""

from __future__ import annotations

import re
import sys

import pytest

from debate_eval.agents.models.settings import EmbeddedSettings, ModelConfig, ModelSettings
from debate_eval.agents.redaction import (
    environment_snapshot,
    may_hold_key_shape,
    redact,
    redact_counted,
    redact_record,
    register_secrets,
)


def test_environment_secrets_and_key_shapes_are_masked() -> None:
    env = {"OPENAI_API_KEY": "abcd1234efgh5678", "HOME": "/home/me"}
    text = "401: key abcd1234efgh5678 rejected; also sk-proj-XYZ123456789 and Bearer tok.abcdefgh123; home /home/me"
    out = redact(text, env)
    assert "abcd1234efgh5678" not in out and "XYZ123456789" not in out and "tok.abcdefgh123" not in out
    assert "/home/me" in out


def test_every_providers_key_variable_and_url_credentials_are_secrets() -> None:
    env = {
        "ANTHROPIC_API_KEY": "ant-key-000111",
        "AZURE_OPENAI_API_KEY": "azure-key-222333",
        "GEMINI_API_KEY": "gem-key-444555",
        "DEBATE_EVAL_CRITIC_API_KEY": "critic-key-666777",
        "HTTPS_PROXY": "http://proxyuser:proxy-pass-888@proxy.local:3128",
        "OPENAI_BASE_URL": "https://llm.example/v1?api-key=query-key-999000",
        "HOME": "/home/me",
    }
    text = " ".join(env.values())
    out, count = redact_counted(text, env)
    for secret in ("ant-key-000111", "azure-key-222333", "gem-key-444555", "critic-key-666777", "proxy-pass-888"):
        assert secret not in out
    assert "query-key-999000" not in out and "proxyuser" not in out
    assert "/home/me" in out and count == 7


def test_secrets_of_the_settings_are_registered_not_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key given only to the settings (a --base-url with credentials, a key variable with any name) is
    masked once the pool registers ``ModelConfig.secrets()``."""
    env = {"MY_ENDPOINT_CREDENTIAL": "custom-credential-1234"}  # a name no pattern knows
    settings = ModelSettings(
        provider="openai",
        model="m",
        base_url="https://u:url-password-5678@host/v1",
        api_key_env="MY_ENDPOINT_CREDENTIAL",
    )
    config = ModelConfig(roles={"scorer": settings}, embedded=EmbeddedSettings())
    assert set(config.secrets(env)) == {"custom-credential-1234", "url-password-5678"}
    monkeypatch.setattr("debate_eval.agents.redaction._registered", set())
    assert redact("custom-credential-1234", env) == "custom-credential-1234"
    register_secrets(config.secrets(env))
    assert redact("key custom-credential-1234 and url-password-5678", env) == "key [redacted] and [redacted]"


def test_key_shapes_and_bearer_tokens_are_masked_and_counted() -> None:
    out, count = redact_counted("use sk-abcdef123456 or AIzaSyA1234567890abcdefghijk with Bearer abc.def.ghi-123", {})
    assert out == "use sk-[redacted] or AIz[redacted] with Bearer [redacted]" and count == 3


def test_a_record_is_masked_in_every_string_and_the_masks_are_counted() -> None:
    env = {"OPENAI_API_KEY": "sk-record-secret-42"}
    record = {"transcript": [{"content": "echo sk-record-secret-42 twice sk-record-secret-42"}], "n": 1, "ok": None}
    masked, count = redact_record(record, env)
    assert count == 2 and masked["transcript"][0]["content"] == "echo [redacted] twice [redacted]"
    assert masked["n"] == 1 and record["transcript"][0]["content"].count("sk-record") == 2  # a copy
    judged = {"content": "uses sk-learn-contrib"}  # a key shape in judged text: only configured values go
    assert redact_record(judged, env) == (judged, 0)


def test_every_providers_key_variables_are_in_the_settings_secrets() -> None:
    """A provider's key variable is a secret of any run (its names come from the providers, not a list here)."""
    env = {"ANTHROPIC_API_KEY": "anthropic-key-1234", "OLLAMA_API_KEY": "ollama-key-5678", "HOME": "/home/me"}
    config = ModelConfig(roles={"scorer": ModelSettings(provider="openai", model="m")}, embedded=EmbeddedSettings())
    assert {"anthropic-key-1234", "ollama-key-5678"} <= set(config.secrets(env))


def test_inside_a_snapshot_the_environment_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's debates redact every answer with the environment's secrets as the run began (read once, not
    at every model call); registered secrets count as soon as they are registered; outside, it is live."""
    monkeypatch.setattr("debate_eval.agents.redaction._registered", set())
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "token-before-run-1234")
    with environment_snapshot() as snapshot:
        assert "token-before-run-1234" in snapshot
        monkeypatch.setattr("debate_eval.agents.redaction.environment_secrets", _not_again)
        assert redact("echo token-before-run-1234") == "echo [redacted]"
        register_secrets(["registered-key-5678"])
        assert redact_counted("registered-key-5678 token-before-run-1234") == ("[redacted] [redacted]", 2)
        assert redact_record({"a": ["token-before-run-1234"]}) == ({"a": ["[redacted]"]}, 1)
    monkeypatch.undo()
    monkeypatch.setenv("OTHER_SERVICE_TOKEN", "token-after-run-9012")
    assert redact("token-after-run-9012") == "[redacted]"  # outside a snapshot: read when asked


def _not_again(environ: object = None) -> set[str]:
    raise AssertionError("the environment was read again inside the snapshot")


def test_the_cheap_key_shape_check_never_misses_a_shape() -> None:
    """``may_hold_key_shape`` may skip the key shapes' expression only where that expression finds nothing: for
    every code point the regular expression engine matches to a letter of ``sk-``, ``AIza`` or ``Bearer``
    ignoring case (the long s, the Kelvin sign, the dotted and dotless i ...), the prefix spelled with it still
    passes the check, and a key spelled with it is still masked."""
    letters = re.compile("[abeikrsz]", re.IGNORECASE)
    variants = [chr(code) for code in range(sys.maxunicode + 1) if letters.fullmatch(chr(code))]
    assert {"\u017f", "\u212a", "\u0130", "\u0131"} <= set(variants)  # the engine's own equivalences
    checked = 0
    for prefix, tail in (("sk-", "abcdef123456"), ("aiza", "B" * 24), ("bearer", " tok.abcdefgh123")):
        for position, letter in enumerate(prefix):
            for char in variants:
                if letter == "-" or not re.fullmatch(letter, char, re.IGNORECASE):
                    continue
                spelled = prefix[:position] + char + prefix[position + 1 :]
                assert may_hold_key_shape(f"see {spelled}{tail} here"), spelled
                assert redact_counted(f"see {spelled}{tail} here", {})[1] == 1, spelled
                checked += 1
    assert checked == 12 * 2 + 4  # by hand: 12 letters in both ASCII cases; the long s, Kelvin, both i's
    assert not may_hold_key_shape("Score: 4. The summary is coherent, with “quotes” and ß.")
