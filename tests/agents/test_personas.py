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


# The released strings in full, as their scripts held them (triple-quoted strings with their newlines and
# 12-space indentation, U+2019 apostrophes, the typo "agetns", the space before a line break).
RELEASED = {
    ("authors-commander", "commander"): (
        "Your role is to initiate and lead the debate. Tell other agents think step-by-step."
    ),
    ("authors-scorer", "scorer"): (
        "Your role is to score a given text. Read the instructions and the text carefully. Then evaluate the "
        "text logically."
    ),
    ("authors-devils-advocate", "critic"): (
        "\n"
        "            Your role is to play a Devil\u2019s Advocate. Your logic has to be step-by-step. Critically "
        "review the score provided and assess whether the score is accurate. If you don\u2019t think that the "
        "score is accurate, criticize the score. Try to criticize the score as much as possible.\n"
        "            "
    ),
    ("authors-commander-tiebreaker", "commander"): (
        "Help me calculate the score, and tell other agetns think step-by-step."
    ),
    ("authors-plain", "critic"): (
        "\n"
        "            Do you think this score is really accurate? If you think it's not justified, please share your "
        "opinion. \n"
        "            On the other hand, if you find the score acceptable, just say NO_ISSUES.\n"
        "            "
    ),
    ("scorer", "scorer"): "Logically think to score the following sentence.",  # the tiebreaker branch's Scorer
    ("authors-critic", "referee"): (  # ChatEval's FairEval config (Apache-2.0): "judgement"
        "You are now Critic, one of the referees in this task. You will check fluent writing, clear sentences, "
        "and good wording in summary writing. Your job is to question others judgement to make sure their "
        "judgement is well-considered and offer an alternative solution if two responses are at the same level."
    ),
    ("general-public", "referee"): (  # the same text in the paper and in their FairEval config
        "You are now General Public, one of the referees in this task. You are interested in the story and "
        "looking for updates on the investigation. Please think critically by yourself and note that it's your "
        "responsibility to choose one of which is the better first."
    ),
}


@pytest.mark.parametrize(("name", "role"), sorted(RELEASED))
def test_authors_code_personas_are_their_strings_byte_for_byte(name: str, role: str) -> None:
    """The system messages (and ChatEval role descriptions) their released code sent, compared whole."""
    assert get_persona(name, role).text == RELEASED[(name, role)]
