"""The typed method contract: options declared once, as an ``Options`` dataclass, and nothing under debates/
that knows about argparse (the command line is generated from the declarations in the tasks layer)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import all_methods
from debate_eval.debates.method import Method, MethodContext, OptionError, option, options_of, positive_int

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
