"""``engine.build``: a ``RunRequest`` resolved into the dataset name, ``RunConfig`` and ``RunOptions`` (the
same for flags, a ``--config`` file and ``evaluate``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.debates.chateval import ChatEvalConfig
from debate_eval.tasks.engine.build import (
    build_run_config,
    build_run_options,
    dataset_slug,
    method_warnings,
    resolve_dataset,
)
from debate_eval.tasks.engine.request import FLAGS, RunRequest


def request(**values: object) -> RunRequest:
    return RunRequest.from_mapping({"dataset": "summeval", "aspect": "coherence", **values}, source=FLAGS)


def test_fields_are_read_from_name_value_text() -> None:
    assert request(fields=" source=a , output=b,human=c ").fields == {"source": "a", "output": "b", "human": "c"}
    assert request(fields="").fields == {}
    assert request(fields={"source": "a"}).fields == {"source": "a"}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("source", "--fields: expected NAME=VALUE pairs separated by commas, got 'source'"),
        ("source=", "expected NAME=VALUE pairs"),
        ("source=a,source=b", "--fields: 'source' is given twice"),
    ],
)
def test_bad_field_text(text: str, fragment: str) -> None:
    with pytest.raises(UserError, match=re.escape(fragment)):
        request(fields=text)


def test_an_unknown_field_name_is_refused() -> None:
    with pytest.raises(UserError, match=re.escape("--fields: unknown name 'summary'; valid names: source, output")):
        resolve_dataset(request(dataset="rows.csv", fields="summary=x"))


def test_language_sets_the_variant_name() -> None:
    resolved = resolve_dataset(request(dataset="xdial_fed_dialogue", aspect="overall", language="japanese"))
    assert resolved.dataset == "xdial_fed_dialogue-japanese"
    assert resolve_dataset(resolved).dataset == "xdial_fed_dialogue-japanese"  # resolving twice changes nothing
    english = resolve_dataset(request(dataset="xdial_fed_turn", aspect="overall", language="english"))
    assert english.dataset == "xdial_fed_turn"


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"language": "german"}, "--language is for xdial_fed_turn and xdial_fed_dialogue, not summeval"),
        ({"dataset": "xdial_fed_turn", "language": "latin"}, "unknown --language 'latin'; valid: english"),
        ({"fields": "source=a"}, "--fields and --labels are for your own file; summeval is a built-in dataset"),
        ({"dataset": None}, "give the data to evaluate: --dataset NAME|FILE"),
        ({"aspect": None}, "give the aspect to evaluate: --aspect NAME"),
    ],
)
def test_misplaced_or_missing_options(values: dict[str, str], fragment: str) -> None:
    with pytest.raises(UserError, match=re.escape(fragment)):
        resolve_dataset(request(**values))


def test_dataset_slug() -> None:
    assert dataset_slug("summeval") == "summeval"
    assert dataset_slug("xdial_fed_turn-german") == "xdial_fed_turn-german"
    assert dataset_slug("/data/My Ratings.CSV") == "My_Ratings"
    assert dataset_slug("../x/rows.jsonl") == "rows"


def test_method_options_build_the_method_config(isolated_env: Path) -> None:
    config = build_run_config(request(method="chateval", chateval_turns=3, chateval_roles=["scientist", "critic"]))
    assert isinstance(config.method_config, ChatEvalConfig)
    assert config.method_config.turns == 3 and [p.name for p in config.method_config.referees] == [
        "scientist",
        "critic",
    ]
    text_roles = build_run_config(request(method="chateval", chateval_turns="3", chateval_roles="scientist,critic"))
    assert text_roles.config_hash() == config.config_hash()  # the flag's text and the API's values agree


def test_another_methods_options_are_ignored_and_a_typo_is_named(isolated_env: Path) -> None:
    plain = build_run_config(request(method="geval"))
    assert build_run_config(request(method="geval", max_rounds=3)).config_hash() == plain.config_hash()
    with pytest.raises(UserError, match=re.escape("unknown method option 'max_round'; did you mean max_rounds")):
        build_run_config(request(method="debate", max_round=3))


@pytest.mark.parametrize(
    ("method", "roles", "unused"),
    [
        ("geval", {"critic": "m", "scorer": "m"}, ["critic"]),  # G-Eval's evaluator takes the Scorer's settings
        ("chateval", {"scorer": "m", "commander": "m"}, ["commander"]),
        ("debate", {"critic": "m", "commander": "m", "tiebreaker": "m"}, ["commander", "tiebreaker"]),
        ("tiebreaker", {"critic": "m", "tiebreaker": "m"}, []),
        ("fennec", {"judge": "m", "critic": "m"}, ["critic"]),
    ],
)
def test_a_model_setting_for_a_role_the_method_never_calls_is_named(
    isolated_env: Path, method: str, roles: dict[str, str], unused: list[str]
) -> None:
    given = request(method=method, provider="scripted", role_model=roles, role_provider={"critic": "scripted"})
    found = method_warnings(build_run_config(given), given)
    expected = [f"--role-model {role}=...: {method} makes no {role} call" for role in unused]
    if method not in ("debate", "tiebreaker"):  # the debate's variants call the Critic
        expected.append(f"--role-provider critic=...: {method} makes no critic call")
    assert [line.split(" (its model roles")[0] for line in found] == expected
    assert method_warnings(build_run_config(given)) == []  # without the request: the method's own warnings only


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"max_rounds": -1}, "--max-rounds (max_rounds): expected an integer >= 0, got -1"),
        ({"max_rounds": 1.5}, "--max-rounds (max_rounds): invalid literal"),
        ({"tie_breaker": "yes"}, "--tie-breaker (tie_breaker): expected true or false, got 'yes'"),
        ({"fidelity": "book"}, "--fidelity (fidelity): 'book' is not one of paper, authors-code"),
    ],
)
def test_bad_method_option_values_are_one_line(isolated_env: Path, options: dict[str, object], fragment: str) -> None:
    with pytest.raises(UserError, match=re.escape(fragment)):
        build_run_config(request(method="debate", **options))


def test_run_options_default_folder_and_execution_values(isolated_env: Path, tmp_path: Path) -> None:
    built = request(method="geval", limit=3, no_cache=True, concurrency=2)
    config = build_run_config(built)
    options = build_run_options(built, config)
    assert options.out_dir == Path("runs/summeval_coherence_geval")
    assert (options.limit, options.use_cache, options.concurrency) == (3, False, 2)
    assert build_run_options(request(out=tmp_path / "x"), config).out_dir == tmp_path / "x"  # a PathLike
