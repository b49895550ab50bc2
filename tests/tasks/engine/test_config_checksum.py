"""Checksums of config.json: an edit is found and its fields named."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import stable_hash
from debate_eval.tasks.engine.config_checksum import edited_fields, result_config_edited, sealed
from debate_eval.tasks.engine.results import ResultsStore

RESULT_CONFIG = {"dataset": "summeval", "models": {"scorer": {"model": "gpt-4o-mini"}}, "template": {"scale": "1-5"}}
DOCUMENT = {
    "config_hash": stable_hash(RESULT_CONFIG)[:16],
    "result_config": RESULT_CONFIG,
    "models": {"roles": {"scorer": {"model": "gpt-4o-mini", "timeout_s": 120.0}}},
    "run_options": {"limit": 4, "concurrency": None},
}


def test_an_intact_document_has_no_edits_and_sealing_is_stable() -> None:
    document = sealed(DOCUMENT)
    assert edited_fields(document) == [] and sealed(document) == document


def test_edited_added_and_removed_fields_are_named() -> None:
    document = sealed(DOCUMENT)
    edited = copy.deepcopy(document)
    edited["result_config"]["models"]["scorer"]["model"] = "gpt-4o"
    edited["models"]["roles"]["scorer"]["model"] = "gpt-4o"
    edited["run_options"]["note"] = "mine"
    del edited["run_options"]["limit"]
    assert edited_fields(edited) == [
        "result_config.models.scorer.model",  # what changes results first
        "models.roles.scorer.model",
        "run_options.limit",
        "run_options.note",
    ]
    assert result_config_edited(edited)


def test_edited_checksums_and_files_of_earlier_versions() -> None:
    document = sealed(DOCUMENT)
    document["checksums"]["sha256"] = "0" * 64
    assert edited_fields(document) == ["checksums"]
    assert edited_fields(DOCUMENT) is None and not result_config_edited(DOCUMENT)  # no checksums: nothing to say
    old = copy.deepcopy(DOCUMENT)
    old["result_config"]["dataset"] = "topical_chat"
    assert result_config_edited(old)  # its config_hash still tells


def test_an_edited_config_of_an_earlier_version_is_named_not_unknown(tmp_path: Path) -> None:
    """A run folder of an earlier version (no checksums) whose result_config was edited to this command's: the
    refusal says so instead of "differs in: unknown fields"."""
    document = {**copy.deepcopy(DOCUMENT), "config_hash": "0123456789abcdef"}  # result_config edited since
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    (tmp_path / "results.jsonl").write_text('{"item_id": "a", "dataset": "summeval", "aspect": "x"}\n')
    with pytest.raises(UserError, match=r"differs in: config.json's result_config, edited by hand") as refused:
        ResultsStore(tmp_path, document, stable_hash(RESULT_CONFIG)[:16])
    assert "unknown fields" not in str(refused.value)
