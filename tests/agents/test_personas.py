"""The persona registry: the paper's texts, lookup by name, personas from files."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.personas import format_personas, get_persona, list_personas, persona_names


def test_critic_personas_of_the_paper() -> None:
    assert persona_names("critic") == [
        "devils-advocate",
        "sophisticated",
        "moderate",
        "weak",
        "plain",
        "authors-devils-advocate",
        "authors-plain",
    ]
    assert get_persona("devils-advocate", "critic").text.endswith("Try to criticize the score as much as possible.")
    assert "NO_ISSUES" in get_persona("plain", "critic").text
    assert '"NO ISSUES"' in get_persona("sophisticated", "critic").text


@pytest.mark.parametrize(
    ("name", "role", "start"),
    [
        ("commander", "commander", "Help me calculate the score"),
        ("scorer", "scorer", "Logically think to score the following sentence."),
        ("tiebreaker", "tiebreaker", "You are a Tiebreaker. You will be given a news article."),
        (
            "tiebreaker-dialogue",
            "tiebreaker",
            "You are a Tiebreaker. You will be given a conversation history",
        ),
        ("news-author", "referee", "You are News Author"),
    ],
)
def test_builtin_texts(name: str, role: str, start: str) -> None:
    persona = get_persona(name, role)
    assert persona.text.startswith(start)
    assert persona.source  # every built-in text says where it comes from


def test_every_builtin_cites_its_source() -> None:
    for persona in list_personas():
        assert "ChatEval" in persona.source or "DEBATE" in persona.source


def test_persona_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "harsh.txt"
    path.write_text("  Be harsh. Say NO_ISSUES only if perfect.\n", encoding="utf-8")
    persona = get_persona(str(path), "critic")
    assert persona.name == "harsh" and persona.text == "Be harsh. Say NO_ISSUES only if perfect."
    assert persona.source.startswith("file:")


def test_unknown_persona_lists_the_choices() -> None:
    with pytest.raises(UserError, match=r"unknown critic persona 'angry'.*devils-advocate, sophisticated"):
        get_persona("angry", "critic")


def test_a_name_of_another_role_is_unknown() -> None:
    with pytest.raises(UserError):
        get_persona("scorer", "critic")


@pytest.mark.parametrize("content", [b"", b"   \n", b"\xff\xfe bad"])
def test_bad_persona_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(content)
    with pytest.raises(UserError, match=str(path)):
        get_persona(str(path), "critic")


def test_listing_shows_text_and_source() -> None:
    listing = format_personas(list_personas("critic"))
    assert "[critic] devils-advocate" in listing and "Appendix C" in listing


def test_authors_code_personas_are_their_strings_byte_for_byte() -> None:
    """The system messages their scripts sent (indentation of triple-quoted strings, curly quotes, typo)."""
    official = get_persona("authors-devils-advocate", "critic").text
    assert official.startswith("\n            Your role is to play a Devil\u2019s Advocate.")
    assert official.endswith("as much as possible.\n            ")
    plain = get_persona("authors-plain", "critic").text
    assert "opinion. \n            On the other hand" in plain and plain.endswith("NO_ISSUES.\n            ")
    assert get_persona("authors-commander-tiebreaker", "commander").text.endswith(
        "tell other agetns think step-by-step."
    )
    assert get_persona("authors-scorer", "scorer").text.startswith("Your role is to score a given text.")
    assert get_persona("authors-commander", "commander").text.startswith("Your role is to initiate and lead")
