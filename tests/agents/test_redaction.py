"""Secrets never reach logs or errors."""

from __future__ import annotations

from debate_eval.agents.redaction import redact


def test_environment_secrets_and_key_shapes_are_masked() -> None:
    env = {"OPENAI_API_KEY": "abcd1234efgh5678", "HOME": "/home/me"}
    text = "401: key abcd1234efgh5678 rejected; also sk-proj-XYZ123456789 and Bearer tok.abcdefgh123; home /home/me"
    out = redact(text, env)
    assert "abcd1234efgh5678" not in out and "XYZ123456789" not in out and "tok.abcdefgh123" not in out
    assert "/home/me" in out
