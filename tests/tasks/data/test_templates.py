"""Tests for debate_eval.tasks.data.templates: built-in templates, user files, scales and rendering."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.data.templates import (
    Template,
    builtin_aspects,
    builtin_template,
    infer_scale,
    load_template_file,
    parse_scale,
    resolve_template,
)

DATA_DIR = Path(os.environ.get("DEBATE_EVAL_DATA_DIR") or Path(__file__).resolve().parents[4] / "shared" / "data")

EXPECTED = {
    ("summeval", "coherence"): (ScoreRange(1, 5), ("Document", "Summary")),
    ("summeval", "consistency"): (ScoreRange(1, 5), ("Document", "Summary")),
    ("summeval", "fluency"): (ScoreRange(1, 5), ("Summary",)),
    ("summeval", "relevance"): (ScoreRange(1, 5), ("Document", "Summary")),
    ("topical_chat", "naturalness"): (ScoreRange(1, 3), ("Dialogue", "Response")),
    ("topical_chat", "coherence"): (ScoreRange(1, 3), ("Dialogue", "Response")),
    ("topical_chat", "engagingness"): (ScoreRange(1, 3), ("Dialogue", "Fact", "Response")),
    ("topical_chat", "groundedness"): (ScoreRange(0, 1), ("Dialogue", "Fact", "Response")),
}

SAMPLE_INPUTS = {
    "summeval": {"Document": "The council approved a new park on Monday.", "Summary": "A park was approved."},
    "topical_chat": {
        "Dialogue": "do you like jazz ? \n i love it , especially live .\n\n",
        "Fact": "jazz originated in new orleans in the late 19th century .\n",
        "Response": "did you know jazz started in new orleans ?",
    },
}

# The reference prompts (data/README.md): file name -> (dataset, aspect, scale the text declares).
REFERENCE_PROMPTS = {
    "geval_prompts/summeval/coh_detailed.txt": ("summeval", "coherence", ScoreRange(1, 5)),
    "geval_prompts/summeval/con_detailed.txt": ("summeval", "consistency", ScoreRange(1, 5)),
    "geval_prompts/summeval/flu_detailed.txt": ("summeval", "fluency", ScoreRange(1, 3)),
    "geval_prompts/summeval/rel_detailed.txt": ("summeval", "relevance", ScoreRange(1, 5)),
    "geval_prompts/topical_chat_debate_authors/coh_detailed.txt": (
        "topical_chat",
        "coherence",
        ScoreRange(1, 5),
    ),
    "geval_prompts/topical_chat_debate_authors/eng_detailed.txt": (
        "topical_chat",
        "engagingness",
        ScoreRange(1, 3),
    ),
    "geval_prompts/topical_chat_debate_authors/gro_detailed.txt": (
        "topical_chat",
        "groundedness",
        ScoreRange(0, 1),
    ),
    "geval_prompts/topical_chat_debate_authors/nat_detailed.txt": (
        "topical_chat",
        "naturalness",
        ScoreRange(1, 5),
    ),
    "debate_prompts/summeval/coh_detailed.txt": ("summeval", "coherence", ScoreRange(1, 5)),
    "debate_prompts/summeval/con_detailed.txt": ("summeval", "consistency", ScoreRange(1, 5)),
    "debate_prompts/summeval/flu_detailed.txt": ("summeval", "fluency", ScoreRange(1, 3)),
    "debate_prompts/summeval/rel_detailed.txt": ("summeval", "relevance", ScoreRange(1, 5)),
}


def reference_file(relative: str) -> Path:
    """The reference prompt file, or skip (fail with DEBATE_EVAL_REQUIRE_DATA=1) when it is absent."""
    path = DATA_DIR / relative
    if not path.is_file():
        reason = f"reference prompt {path} not found (set DEBATE_EVAL_DATA_DIR)"
        if os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def write(tmp_path: Path, text: str | bytes, name: str = "t.txt") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


# --- built-in templates -------------------------------------------------------------------------------------


def test_builtin_aspects() -> None:
    assert builtin_aspects("summeval") == ["coherence", "consistency", "fluency", "relevance"]
    assert builtin_aspects("topical_chat") == ["coherence", "engagingness", "groundedness", "naturalness"]
    with pytest.raises(UserError, match="summeval"):
        builtin_aspects("nope")


@pytest.mark.parametrize(("dataset", "aspect"), sorted(EXPECTED))
def test_builtin_template_loads_with_scale_and_placeholders(dataset: str, aspect: str) -> None:
    template = builtin_template(dataset, aspect)
    scale, placeholders = EXPECTED[dataset, aspect]
    assert isinstance(template, Template)
    assert (template.dataset, template.aspect) == (dataset, aspect)
    assert template.scale == scale
    assert template.placeholders == placeholders
    assert template.source == f"builtin:{dataset}/{aspect}"
    # The text declares the same scale as the front matter, and has no front matter left in it.
    assert infer_scale(template.text, aspect) == scale
    assert not template.text.startswith("---")
    assert "\r" not in template.text
    # G-Eval structure, ending with the evaluation form line.
    label = template.aspect_label()
    assert label == aspect.capitalize()
    for heading in ("Evaluation Criteria:", "Evaluation Steps:", "Evaluation Form (scores ONLY):"):
        assert heading in template.text
    assert template.text.endswith(f"- {label}:")
    assert re.search(r"^1\. ", template.text, re.MULTILINE)


@pytest.mark.parametrize(("dataset", "aspect"), sorted(EXPECTED))
def test_builtin_template_renders_completely(dataset: str, aspect: str) -> None:
    template = builtin_template(dataset, aspect)
    prompt = template.render(SAMPLE_INPUTS[dataset])
    assert "{{" not in prompt and "}}" not in prompt
    for name in template.placeholders:
        assert SAMPLE_INPUTS[dataset][name] in prompt


def test_fact_shown_only_where_it_matters() -> None:
    assert "Fact" not in builtin_template("topical_chat", "naturalness").placeholders
    assert "Fact" not in builtin_template("topical_chat", "coherence").placeholders
    assert "Fact" in builtin_template("topical_chat", "engagingness").placeholders
    assert "Fact" in builtin_template("topical_chat", "groundedness").placeholders


def test_builtin_fluency_documents_its_scale_change() -> None:
    raw = Path(__file__).resolve().parents[3] / "tasks" / "templates" / "summeval" / "fluency.txt"
    header = raw.read_text(encoding="utf-8").split("\n---\n", 1)[0]
    assert re.search(r"^#.*1-3.*1-5", header, re.MULTILINE)


def test_unknown_builtin_aspect_lists_valid_ones() -> None:
    with pytest.raises(UserError) as info:
        builtin_template("summeval", "naturalness")
    message = str(info.value)
    for aspect in ("coherence", "consistency", "fluency", "relevance"):
        assert aspect in message


def test_builtin_texts_are_not_verbatim_copies_of_the_references() -> None:
    """No 8-word run of a reference sentence appears in one of our sentences."""
    references = sorted(DATA_DIR.glob("*_prompts/*/*.txt"))
    if not references:
        pytest.skip(f"no reference prompts under {DATA_DIR}")

    def sentences(text: str) -> list[list[str]]:
        text = re.sub(r"\{\{\w+\}\}", " ", text)
        return [re.findall(r"[a-z0-9']+", part.lower()) for part in re.split(r"[.!?:;\n]+", text)]

    def shingles(text: str, n: int = 8) -> set[tuple[str, ...]]:
        return {tuple(words[i : i + n]) for words in sentences(text) for i in range(len(words) - n + 1)}

    reference_shingles: set[tuple[str, ...]] = set()
    for path in references:
        reference_shingles |= shingles(path.read_text(encoding="utf-8"))
    assert reference_shingles  # the check has something to compare with
    for dataset, aspect in EXPECTED:
        copied = shingles(builtin_template(dataset, aspect).text) & reference_shingles
        assert not copied, f"{dataset}/{aspect} copies: {[' '.join(words) for words in copied]}"


# --- rendering ------------------------------------------------------------------------------------


def test_render_is_single_pass() -> None:
    template = builtin_template("summeval", "coherence")
    inputs = {"Document": "Doc with {{Summary}} inside.", "Summary": "Sum with {{Document}} and {{Foo}}."}
    prompt = template.render(inputs)
    assert "Doc with {{Summary}} inside." in prompt
    assert "Sum with {{Document}} and {{Foo}}." in prompt
    assert prompt.count("Doc with") == 1 and prompt.count("Sum with") == 1


def test_render_missing_value_names_placeholder_and_source() -> None:
    template = builtin_template("topical_chat", "groundedness")
    with pytest.raises(UserError) as info:
        template.render({"Dialogue": "hi", "Response": "hello"})
    assert "{{Fact}}" in str(info.value)
    assert "builtin:topical_chat/groundedness" in str(info.value)


def test_render_ignores_unused_inputs() -> None:
    template = builtin_template("summeval", "fluency")
    prompt = template.render({"Document": "UNUSED ARTICLE", "Summary": "A short summary."})
    assert "UNUSED ARTICLE" not in prompt and "A short summary." in prompt


def test_sha256_depends_on_text_and_scale() -> None:
    template = builtin_template("summeval", "coherence")
    assert template.sha256() == builtin_template("summeval", "coherence").sha256()
    assert re.fullmatch(r"[0-9a-f]{64}", template.sha256())
    rescaled = resolve_template("summeval", "coherence", scale=ScoreRange(1, 10))
    assert rescaled.scale == ScoreRange(1, 10) and rescaled.text == template.text
    assert rescaled.sha256() != template.sha256()
    assert builtin_template("summeval", "fluency").sha256() != template.sha256()


def test_aspect_label() -> None:
    template = builtin_template("topical_chat", "engagingness")
    assert template.aspect_label() == "Engagingness"


# --- reference prompt files -----------------------------------------------------------------------


@pytest.mark.parametrize("relative", sorted(REFERENCE_PROMPTS))
def test_reference_prompt_loads_unchanged_and_renders_like_str_replace(relative: str) -> None:
    path = reference_file(relative)
    dataset, aspect, scale = REFERENCE_PROMPTS[relative]
    raw = path.read_bytes().decode("utf-8")
    template = load_template_file(path, aspect=aspect, dataset=dataset)
    assert template.text == raw  # byte for byte, CRLF line endings included
    assert template.scale == scale
    assert template.source == str(path)
    inputs = SAMPLE_INPUTS[dataset]
    expected = raw
    for name, value in inputs.items():
        expected = expected.replace("{{" + name + "}}", value)
    assert template.render(inputs) == expected
    assert resolve_template(dataset, aspect, path) == template


def test_geval_fluency_infers_1_to_3() -> None:
    path = reference_file("geval_prompts/summeval/flu_detailed.txt")
    assert infer_scale(path.read_text(encoding="utf-8"), "fluency") == ScoreRange(1, 3)
    assert load_template_file(path, aspect="fluency", dataset="summeval").scale == ScoreRange(1, 3)


# --- scales ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1-5", ScoreRange(1, 5)),
        ("0-1", ScoreRange(0, 1)),
        ("1 - 3", ScoreRange(1, 3)),
        (" 1\u20135 ", ScoreRange(1, 5)),
    ],
)
def test_parse_scale(text: str, expected: ScoreRange) -> None:
    assert parse_scale(text) == expected
    assert parse_scale(str(expected)) == expected


@pytest.mark.parametrize(
    "text",
    ["", "5", "1-", "5-1", "3-3", "one-five", "1-5-7", "1..5", "-1-5", "1-" + "9" * 400],  # > a float's max
)
def test_parse_scale_rejects(text: str) -> None:
    with pytest.raises(UserError, match="scale"):
        parse_scale(text)


@pytest.mark.parametrize(
    ("text", "aspect", "expected"),
    [
        ("Coherence (1-5) - the collective quality", "coherence", ScoreRange(1, 5)),
        ("Fluency (1-3): the quality", "fluency", ScoreRange(1, 3)),
        ("Groundedness (0-1) - This assesses", "groundedness", ScoreRange(0, 1)),
        ("- Fluency ( 1 - 3 ):", "fluency", ScoreRange(1, 3)),
        ("coherence (1-5)", "coherence", ScoreRange(1, 5)),
        ("Maintains Context (1-3)", "maintains_context", ScoreRange(1, 3)),
        ("Coherence - the collective quality", "coherence", None),
        ("Incoherence (1-5)", "coherence", None),
        ("Fluency (1-3)", "coherence", None),
    ],
)
def test_infer_scale(text: str, aspect: str, expected: ScoreRange | None) -> None:
    assert infer_scale(text, aspect) == expected


PLAIN = "Rate it.\n\nCoherence (1-3) - a definition.\n\nSummary:\n{{Summary}}\n\n- Coherence:"
NO_SCALE = "Rate it.\n\nSummary:\n{{Summary}}\n\n- Coherence:"
WITH_FRONT_MATTER = "---\nscale: 0-1\n---\n" + PLAIN + "\n\n"


def test_scale_precedence(tmp_path: Path) -> None:
    front = write(tmp_path, WITH_FRONT_MATTER, "front.txt")
    plain = write(tmp_path, PLAIN, "plain.txt")
    bare = write(tmp_path, NO_SCALE, "bare.txt")
    explicit = ScoreRange(2, 9)
    # explicit argument > front matter > text > builtin
    assert load_template_file(front, aspect="coherence", dataset="summeval", scale=explicit).scale == explicit
    assert load_template_file(front, aspect="coherence", dataset="summeval").scale == ScoreRange(0, 1)
    assert load_template_file(plain, aspect="coherence", dataset="summeval").scale == ScoreRange(1, 3)
    assert load_template_file(bare, aspect="coherence", dataset="summeval").scale == ScoreRange(1, 5)
    bare_dialogue = write(tmp_path, "Dialogue:\n{{Dialogue}}\nResponse:\n{{Response}}\n- Groundedness:", "d.txt")
    assert load_template_file(bare_dialogue, aspect="groundedness", dataset="topical_chat").scale == ScoreRange(0, 1)
    # nothing to go on -> ask for --scale
    with pytest.raises(UserError, match="--scale"):
        load_template_file(bare, aspect="coherence")
    with pytest.raises(UserError, match="--scale"):
        load_template_file(bare, aspect="overall", dataset="summeval")
    assert resolve_template("summeval", "coherence", bare, explicit).scale == explicit


def test_front_matter_body_is_stripped_and_plain_file_is_unchanged(tmp_path: Path) -> None:
    front = load_template_file(write(tmp_path, WITH_FRONT_MATTER, "f.txt"), aspect="coherence")
    assert front.text == PLAIN
    assert front.dataset is None
    raw = PLAIN.replace("\n", "\r\n") + "\r\n"
    plain = load_template_file(write(tmp_path, raw, "p.txt"), aspect="coherence")
    assert plain.text == raw


def test_authors_code_reads_a_crlf_template_as_their_open_read(tmp_path: Path) -> None:
    """--fidelity authors-code: CRLF and CR become LF (Python's universal newlines, as their scripts read the
    file); --fidelity paper keeps the file's bytes."""
    raw = PLAIN.replace("\n", "\r\n") + "\r\n\rend\r"
    path = write(tmp_path, raw, "crlf.txt")
    authors = resolve_template("summeval", "coherence", path, universal_newlines=True)
    assert authors.text == PLAIN + "\n\nend\n" and "\r" not in authors.render(SAMPLE_INPUTS["summeval"])
    assert resolve_template("summeval", "coherence", path).text == raw


def test_front_matter_declares_dataset(tmp_path: Path) -> None:
    path = write(tmp_path, "---\ndataset: summeval\naspect: coherence\n# a comment\n---\n" + NO_SCALE)
    template = load_template_file(path, aspect="coherence")
    assert template.dataset == "summeval" and template.scale == ScoreRange(1, 5)


# --- bad files ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("", "empty"),
        ("  \n\n", "empty"),
        (b"Summary: {{Summary}} \xff\xfe bad", "UTF-8"),
        ("Coherence (1-5)\n{{Summary}}\n{{Foo}}\n- Coherence:", r"\{\{Foo\}\}"),
        ("Coherence (1-5)\n{{summary}}\n- Coherence:", r"\{\{summary\}\}"),
        ("Coherence (1-5)\n{{Document}}\n- Coherence:", r"\{\{Summary\}\}"),
        ("Coherence (1-5)\n{{Dialogue}}\n{{Summary}}\n- Coherence:", "not an input of dataset summeval"),
        ("---\nscale: 1-5\n---\n\n", "no template text"),
        ("---\nscale: 1-5\n", "never closed"),
        ("---\nscale: five\n---\n{{Summary}}", "invalid scale"),
        ("---\ncolour: red\n---\n{{Summary}} (1-5)", "unknown key"),
        ("---\naspect: fluency\n---\nCoherence (1-5) {{Summary}}", "fluency"),
        ("---\ndataset: topical_chat\n---\nCoherence (1-5) {{Summary}}", "topical_chat"),
        ("---\ninputs: Document, Summary\n---\nCoherence (1-5) {{Summary}}", "inputs"),
    ],
)
def test_bad_file_is_a_user_error_naming_the_path(tmp_path: Path, content: str | bytes, match: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(UserError, match=match) as info:
        load_template_file(path, aspect="coherence", dataset="summeval")
    assert str(path) in str(info.value)


def test_unknown_placeholder_without_dataset(tmp_path: Path) -> None:
    path = write(tmp_path, "Coherence (1-5)\n{{Foo}}")
    with pytest.raises(UserError, match=r"\{\{Foo\}\}") as info:
        load_template_file(path, aspect="coherence")
    assert str(path) in str(info.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(UserError, match="not found") as info:
        load_template_file(missing, aspect="coherence", dataset="summeval")
    assert str(missing) in str(info.value)
    with pytest.raises(UserError) as info:
        resolve_template("summeval", "coherence", tmp_path)
    assert str(tmp_path) in str(info.value)
