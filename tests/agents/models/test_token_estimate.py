"""Token estimates of chat requests before they are sent."""

from __future__ import annotations

from autogen_core.models import AssistantMessage, SystemMessage, UserMessage

from debate_eval.agents.models.token_estimate import (
    CHARS,
    TOKENS_PER_MESSAGE,
    TOKENS_PER_REPLY,
    count_prompt_tokens,
    count_text_tokens,
    encoder_name,
    message_text,
)


def test_chat_messages_are_counted_as_openai_counts_them() -> None:
    texts = ["You score texts.", "Rate this summary of the article, step by step.", "Score: 3"]
    dicts = [{"role": r, "content": t} for r, t in zip(("system", "user", "assistant"), texts, strict=True)]
    expected = sum(count_text_tokens(t) + TOKENS_PER_MESSAGE for t in texts) + TOKENS_PER_REPLY
    assert count_prompt_tokens(dicts) == expected
    autogen = [
        SystemMessage(content=texts[0]),
        UserMessage(content=texts[1], source="user"),
        AssistantMessage(content=texts[2], source="scorer"),
    ]
    assert count_prompt_tokens(autogen) == expected  # AutoGen's messages and the wire's agree


def test_message_text_of_content_parts() -> None:
    assert message_text({"content": [{"type": "text", "text": "a"}, {"type": "image_url"}, "b"]}) == "a\nb"
    assert message_text({"content": None}) == ""


def test_an_estimate_is_there_with_or_without_the_encoding_files() -> None:
    name = encoder_name("gpt-4o")
    assert name  # tiktoken's encoding when its file is there, else the character estimate
    tokens = count_text_tokens("The quick brown fox jumps over the lazy dog. " * 20)
    if name == CHARS:
        assert tokens == -(-900 // 3.5)
    else:
        assert 150 <= tokens <= 260  # about 10 tokens a sentence
