"""What a completion's answer may be used for: tool calls and content-filtered
answers are refused with their usage kept; secrets in a text answer are masked."""

from __future__ import annotations

import pytest
from autogen_core import FunctionCall
from autogen_core.models import CreateResult, RequestUsage

from debate_eval.agents.models.answer_check import ContentFilterError, ToolCallAnswerError, checked_answer

USAGE = RequestUsage(prompt_tokens=11, completion_tokens=9)


def result(content: str | list[FunctionCall], finish_reason: str = "stop") -> CreateResult:
    return CreateResult(finish_reason=finish_reason, content=content, usage=USAGE, cached=False)  # type: ignore[arg-type]


def test_a_tool_call_is_no_answer_and_keeps_its_usage() -> None:
    call = FunctionCall(id="1", name="score", arguments='{"value": 5}')
    with pytest.raises(ToolCallAnswerError, match=r"tool call \(score\) and no text") as refused:
        checked_answer(result([call], "function_calls"))
    assert refused.value.result.usage.completion_tokens == 9


def test_a_content_filtered_answer_is_no_answer_even_with_a_score_in_it() -> None:
    with pytest.raises(ContentFilterError, match="content filter stopped the answer"):
        checked_answer(result("Score: 5", "content_filter"))


def test_a_text_answer_passes_with_its_secrets_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-answer-secret-0042")
    plain = result("Score: 4")
    assert checked_answer(plain) is plain
    cut = result("Score: 4 but", "length")
    assert checked_answer(cut) is cut  # kept: flagged by the run only when it has no score
    leaked = checked_answer(result("my key is sk-answer-secret-0042\nScore: 4"))
    assert leaked.content == "my key is [redacted]\nScore: 4" and leaked.usage == USAGE
