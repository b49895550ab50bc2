"""The method registry seen from the command line: ``debate-eval methods``, plugins through the entry point
group ``debate_eval.methods`` (the example plugin loaded from its source, nothing installed), a broken
plugin, and ``run --protocol example-single`` making one model call per item."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.debates import base
from debate_eval.tasks.cli.main import build_parser, main

BUILT_IN = [
    *("debate", "multiagent", "tiebreaker", "both", "geval", "chateval", "dialevalml", "fennec"),
    "self-consistency",
]
EXAMPLE_SRC = Path(__file__).resolve().parents[3] / "examples" / "plugin_method" / "src"


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[metadata.EntryPoint]]:
    """A private copy of the registry and a controllable list of entry points (the installed ones are hidden)."""
    base.all_methods()  # the built-ins are registered before the copy
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(base, "_PLUGINS_TRIED", set())
    monkeypatch.setattr(base, "_FAILED_PLUGINS", {})
    monkeypatch.setattr(base, "_SOURCES", {})
    entries: list[metadata.EntryPoint] = []
    monkeypatch.setattr(base, "_entry_points", lambda: list(entries))
    yield entries


@pytest.fixture
def example_plugin(registry: list[metadata.EntryPoint], monkeypatch: pytest.MonkeyPatch) -> None:
    """The example plugin's entry point, its package importable from its source folder."""
    monkeypatch.syspath_prepend(str(EXAMPLE_SRC))
    for name in [m for m in sys.modules if m.startswith("debate_eval_example")]:
        monkeypatch.delitem(sys.modules, name)
    registry.append(
        metadata.EntryPoint(name="example-single", value="debate_eval_example.method", group=base.ENTRY_POINT_GROUP)
    )


def methods_json(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    assert main(["methods", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_methods_lists_the_six_built_ins(
    registry: list[metadata.EntryPoint], capsys: pytest.CaptureFixture[str]
) -> None:
    listed = methods_json(capsys)
    assert [m["name"] for m in listed] == BUILT_IN
    for entry in listed:
        assert {"name", "description", "task_types", "options"} <= set(entry)
        assert entry["description"] and "single" in entry["task_types"]
    flags = {m["name"]: [f for o in m["options"] for f in o["flags"]] for m in listed}
    assert "--geval-samples" in flags["geval"] and "--critic" not in flags["geval"]
    assert "--chateval-turns" in flags["chateval"] and "--max-rounds" in flags["tiebreaker"]
    assert main(["methods"]) == 0
    text = capsys.readouterr().out
    assert all(f"\n{name} " in f"\n{text}" for name in BUILT_IN) and "options: those of debate" in text


def test_the_example_plugin_is_listed_and_selectable(example_plugin: None, capsys: pytest.CaptureFixture[str]) -> None:
    listed = {m["name"]: m for m in methods_json(capsys)}
    assert list(listed) == [*BUILT_IN, "example-single"]
    example = listed["example-single"]
    assert example["task_types"] == ["single"] and str(example["source"]).startswith("plugin ")
    assert [o["flags"] for o in example["options"]] == [["--example-prompt"]]  # type: ignore[union-attr]
    assert base.get_method("example-single").name == "example-single"
    assert main(["methods"]) == 0  # the listing names the value as the option declares it (metavar="FILE")
    assert "  --example-prompt FILE: example-single: a system prompt file" in capsys.readouterr().out


def test_get_method_loads_only_the_plugin_it_needs(registry: list[metadata.EntryPoint], example_plugin: None) -> None:
    registry.append(metadata.EntryPoint(name="broken", value="no_such_module_xyz", group=base.ENTRY_POINT_GROUP))
    assert base.get_method("example-single").name == "example-single"
    assert "broken" not in base._PLUGINS_TRIED  # never imported: not asked for


def test_a_broken_plugin_is_one_line_and_the_rest_works(
    registry: list[metadata.EntryPoint], capsys: pytest.CaptureFixture[str]
) -> None:
    registry.append(metadata.EntryPoint(name="broken", value="no_such_module_xyz", group=base.ENTRY_POINT_GROUP))
    err = ""
    for _ in range(2):
        assert main(["methods", "--json"]) == 0
        captured = capsys.readouterr()
        assert [m["name"] for m in json.loads(captured.out)] == BUILT_IN
        err += captured.err
    expected = (
        "debate-eval: plugin method 'broken' (no_such_module_xyz) not loaded: "
        "ModuleNotFoundError: No module named 'no_such_module_xyz'"
    )
    assert err.splitlines() == [expected]  # one line, once, however often the registry is asked
    with pytest.raises(UserError, match="plugin method 'broken'"):
        base.get_method("broken")


def test_a_plugin_cannot_take_a_built_in_name(
    registry: list[metadata.EntryPoint], capsys: pytest.CaptureFixture[str]
) -> None:
    registry.append(metadata.EntryPoint(name="debate", value="no_such_module_xyz", group=base.ENTRY_POINT_GROUP))
    base.all_methods()
    assert "the name 'debate' is taken by a built-in method" in capsys.readouterr().err
    assert base.get_method("debate").has_critic


CLASHING_OPTION = """
from dataclasses import dataclass
from debate_eval.debates import Method, option, register_method

@dataclass(frozen=True)
class ClashOptions:
    temperature: str = option("warm", help="clash: an option named as a run option")
    clash_words: str = option("few", help="clash: an option of its own")

@register_method
class Clash(Method):
    name, description, Options = "clash", "a plugin with an option named as a run option", ClashOptions
    def build_config(self, options, ctx): return {}
    async def judge(self, task, config, pool): ...
"""


def test_a_plugin_option_named_as_a_run_option_costs_one_line_not_the_command(
    registry: list[metadata.EntryPoint],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A plugin's option ``temperature`` would be a second ``--temperature`` flag (argparse refused the whole
    parser: a traceback for every command); its flag is left out with one line, the rest of the command works."""
    (tmp_path / "clash_method.py").write_text(CLASHING_OPTION, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.append(metadata.EntryPoint(name="clash", value="clash_method", group=base.ENTRY_POINT_GROUP))
    parser = build_parser("run")
    args = parser.parse_args(["run", "--method", "clash", "--temperature", "0.5", "--clash-words", "many"])
    assert (args.temperature, args.clash_words) == (0.5, "many")  # the run's float
    assert capsys.readouterr().err.splitlines() == [
        "debate-eval: method 'clash': option 'temperature' left out: it is a run option (--temperature); rename it"
    ]


def test_unknown_methods_are_refused_with_the_valid_names(registry: list[metadata.EntryPoint]) -> None:
    with pytest.raises(UserError, match="unknown method 'nope'; methods are: debate, multiagent"):
        base.get_method("nope")


def test_a_method_typo_is_one_line_with_the_nearest_name(
    registry: list[metadata.EntryPoint], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--dataset", "summeval", "--aspect", "coherence", "--method", "debat"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err
    assert err.startswith("debate-eval: error: unknown method 'debat'; did you mean debate? methods are: debate,")
    assert main(["run", "--dataset", "summeval", "--aspect", "coherence", "--protocol", "nope"]) == 2  # old name
    assert "unknown method 'nope'; methods are:" in capsys.readouterr().err


def example_run(server: ScriptedOpenAIServer, out: Path, *extra: str) -> int:
    argv = ["run", "--method", "example-single", "--dataset", "summeval", "--aspect", "coherence", "--limit", "4"]
    argv += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress"]
    return main([*argv, "--no-preflight", *extra])


def test_run_with_the_example_plugin_makes_one_call_per_item(isolated_env: Path, example_plugin: None) -> None:
    out = isolated_env / "example"
    with ScriptedOpenAIServer() as server:
        assert example_run(server, out) == 0
        requests = list(server.requests)
    assert len(requests) == 4  # one model call per item
    system = requests[0]["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are a careful, impartial evaluator")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 4 and len({r["item_id"] for r in records}) == 4
    assert all(r["method"] == "example-single" and r["llm_calls"] == 1 and r["error"] is None for r in records)
    assert all(r["score"] == 3 and r["parse_status"] == "parsed" for r in records)  # "Score: 3", by the parser
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))["result_config"]
    assert config["example-single"]["system_prompt"].startswith("You are a careful")
    assert sorted(config["models"]) == ["scorer"]
    assert main(["rescore", str(out)]) == 0  # the default Method.rescore re-reads its transcript


def test_the_example_plugins_own_option(isolated_env: Path, example_plugin: None) -> None:
    custom = isolated_env / "prompt.txt"
    custom.write_text("Be terse. End with Score: N.", encoding="utf-8")
    with ScriptedOpenAIServer() as server:
        assert example_run(server, isolated_env / "custom", "--example-prompt", str(custom)) == 0
        assert [r["messages"][0]["content"] for r in server.requests] == ["Be terse. End with Score: N."] * 4
        assert example_run(server, isolated_env / "missing", "--example-prompt", "no/such.txt") == 2


def test_the_example_plugin_imports_only_the_method_kit() -> None:
    """Its modules import nothing of debate-eval but ``debate_eval.debates`` (the public kit)."""
    import ast

    found = set()
    for path in (EXAMPLE_SRC / "debate_eval_example").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    assert {name for name in found if name.split(".")[0] == "debate_eval"} == {"debate_eval.debates"}


PARSER_WITH_PLUGIN = """
import sys
from importlib import metadata
sys.path.insert(0, {src!r})
from debate_eval.debates import base
entry = metadata.EntryPoint(name="example-single", value="debate_eval_example.method", group=base.ENTRY_POINT_GROUP)
base._entry_points = lambda: [entry]
from debate_eval.tasks.cli.main import build_parser
parser = build_parser("run")
args = parser.parse_args(["run", "--method", "example-single", "--example-prompt", "p.txt"])
assert args.example_prompt == "p.txt" and "example-single" in base.all_methods()
print(sorted(name for name in sys.modules if name.startswith(("autogen", "debate_eval_example"))))
"""


def test_building_the_parser_with_the_plugin_installed_does_not_import_autogen() -> None:
    """The registry loads every plugin while ``run``'s parser is built (its flags come from each method's
    ``Options``): the example plugin's declaration loads without its implementation, so AutoGen stays out."""
    import subprocess

    code = PARSER_WITH_PLUGIN.format(src=str(EXAMPLE_SRC))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['debate_eval_example', 'debate_eval_example.method']"
