"""The typed method contract: options declared once, as an ``Options`` dataclass, task types that follow from
``judge`` / ``judge_pair``, and nothing under debates/ that knows about argparse (the command line is generated
from the declarations in the tasks layer)."""

from __future__ import annotations

import ast
import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import all_methods, method_names, register_method
from debate_eval.debates.evaluation import NO_SCORE, EvaluationTask, Outcome
from debate_eval.debates.method import (
    Method,
    MethodContext,
    OptionError,
    implemented_task_types,
    option,
    options_of,
    positive_int,
)
from debate_eval.debates.scoring.scores import ScoreRange

DEBATES = Path(__file__).resolve().parents[2] / "debates"


def test_no_module_under_debates_imports_argparse() -> None:
    found = []
    for path in sorted(DEBATES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            where = f"{path.relative_to(DEBATES)}:{getattr(node, 'lineno', 0)}"
            found += [where for name in names if name.split(".")[0] == "argparse"]
    assert found == []


@dataclass(frozen=True)
class ToyOptions:
    toy_rounds: int = option(2, convert=positive_int, help="toy: rounds")
    toy_style: str = option("plain", choices=("plain", "fancy"), help="toy: style")
    toy_loud: bool = option(False, help="toy: a switch")
    toy_file: str | None = option(metavar="FILE", help="toy: a file")


class Toy(Method[dict]):
    name = "toy"
    description = "a toy"
    Options = ToyOptions

    def build_config(self, options: ToyOptions, ctx: MethodContext) -> dict:
        return {"rounds": options.toy_rounds, "style": options.toy_style, "seen": dict(ctx.options)}


def test_options_are_read_from_the_dataclass() -> None:
    declared = options_of(ToyOptions)
    assert list(declared) == ["toy_rounds", "toy_style", "toy_loud", "toy_file"]
    rounds, style, loud, file = declared.values()
    assert rounds.flag == "--toy-rounds" and rounds.default == 2 and not rounds.switch and rounds.help == "toy: rounds"
    assert style.choices == ("plain", "fancy") and loud.switch and loud.default is False
    assert file.metavar == "FILE" and file.default is None and not file.switch


def test_values_are_checked_as_the_flags_check_them() -> None:
    toy = Toy()
    config = toy.configure({"toy_rounds": "3", "toy_style": "fancy"}, MethodContext(dataset="summeval"))
    assert config == {"rounds": 3, "style": "fancy", "seen": {"toy_rounds": "3", "toy_style": "fancy"}}
    assert toy.parse_options({}) == ToyOptions()
    with pytest.raises(UserError, match=r"^--toy-rounds \(toy_rounds\): expected an integer >= 1, got 0$"):
        toy.parse_options({"toy_rounds": 0})
    with pytest.raises(UserError, match=r"^--toy-style \(toy_style\): 'odd' is not one of plain, fancy$"):
        toy.parse_options({"toy_style": "odd"})
    with pytest.raises(UserError, match=r"^--toy-loud \(toy_loud\): expected true or false, got 'yes'$"):
        toy.parse_options({"toy_loud": "yes"})


def test_a_field_without_option_is_refused() -> None:
    @dataclass(frozen=True)
    class Bare:
        plain: int = 1

    with pytest.raises(TypeError, match=r"Bare\.plain: declare it with option"):
        options_of(Bare)


def test_option_error_is_a_value_error_with_its_own_message() -> None:
    with pytest.raises(OptionError, match="expected an integer >= 1, got -2"):
        positive_int("-2")
    assert issubclass(OptionError, ValueError)


def test_every_built_in_declares_its_options_as_data() -> None:
    for method in all_methods().values():
        for name, declared in method.declared_options().items():
            assert declared.help and declared.flag == "--" + name.replace("_", "-"), (method.name, name)


class SingleOnly(Toy):
    name = "toy-single"

    async def judge(self, task: EvaluationTask, config: dict, pool: Any) -> Outcome:
        return _outcome("judge", task)


class BothForms(SingleOnly):
    name = "toy-both"

    async def judge_pair(self, task: EvaluationTask, config: dict, pool: Any) -> Outcome:
        return _outcome("judge_pair", task)


def _outcome(called: str, task: EvaluationTask) -> Outcome:
    return Outcome(None, NO_SCORE, decided_by=called, stop_reason=task.task_type, transcript=[], calls=[])


def _task(task_type: str) -> EvaluationTask:
    return EvaluationTask("i1", "P", "coherence", ScoreRange(1, 5), (), task_type=task_type)


def test_task_types_follow_from_judge_and_judge_pair() -> None:
    assert Toy().task_types == ()
    assert SingleOnly().task_types == ("single",)
    assert BothForms().task_types == ("single", "pairwise")
    for method in all_methods().values():
        assert method.task_types == implemented_task_types(type(method)) != (), method.name


def test_the_evaluator_dispatches_on_the_task_type() -> None:
    evaluate = BothForms().evaluator({})
    single = asyncio.run(evaluate(_task("single"), None))  # type: ignore[arg-type]
    pair = asyncio.run(evaluate(_task("pairwise"), None))  # type: ignore[arg-type]
    assert (single.decided_by, single.stop_reason) == ("judge", "single")
    assert (pair.decided_by, pair.stop_reason) == ("judge_pair", "pairwise")
    with pytest.raises(NotImplementedError, match="method 'toy-single' has no pairwise form"):
        asyncio.run(SingleOnly().evaluator({})(_task("pairwise"), None))  # type: ignore[arg-type]


def test_registration_wants_judge_or_judge_pair() -> None:
    class OldStyle(Toy):
        name = "toy-old"

        async def evaluate(self, task: EvaluationTask, config: dict, pool: Any) -> Outcome:
            return _outcome("evaluate", task)

    class Mislabelled(SingleOnly):
        name = "toy-mislabelled"
        task_types = ("single", "pairwise")

    for method, message in (
        (Toy(), "implement judge"),
        (OldStyle(), "implement judge"),
        (Mislabelled(), r"task_types \('single', 'pairwise'\) do not match what it implements \('single',\)"),
    ):
        with pytest.raises(TypeError, match=message):
            register_method(method)
        assert method.name not in method_names()


CLASH_FIRST = """
from debate_eval.debates import Method, get_method, register_method

class Mine(Method):
    name, description = "geval", "a method registered in a fresh process, before any method was asked for"
    async def judge(self, task, config, pool): ...

try:
    register_method(Mine)
except ValueError as error:
    print(error)
print(type(get_method("geval")).__module__)
"""


def test_a_name_taken_by_a_built_in_is_refused_when_registered_first() -> None:
    """Registering (in a program or notebook) a built-in's name before any method was asked for is refused at
    that line, not later as a traceback from ``get_method`` of another method when the built-ins load."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", CLASH_FIRST], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["method name 'geval' is registered twice", "debate_eval.debates.geval.method"]
