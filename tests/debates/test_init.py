"""The public method kit, ``debate_eval.debates``: every name it lists loads, from the module that defines it,
and the light part of it (the contract, options, the registry) loads without AutoGen."""

from __future__ import annotations

import subprocess
import sys

import debate_eval.debates as kit


def test_every_public_name_loads_from_its_module() -> None:
    for name in kit.__all__:
        value = getattr(kit, name)
        module = sys.modules[kit._SOURCES[name]]
        assert value is getattr(module, name), name
    assert set(kit.__all__) <= set(dir(kit))


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        kit.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("no AttributeError")


LIGHT = """
import sys
from debate_eval.debates import EvaluationTask, Method, Outcome, UserError, option, register_method, score_text
print(sorted({name.split(".")[0] for name in sys.modules if name.startswith("autogen")}))
"""


def test_the_contract_loads_without_autogen() -> None:
    done = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_what_a_method_s_hooks_read_is_in_the_kit() -> None:
    """A hook (``rescore``, ``record_view``, ``summary_lines``, ``confidence``) is typed by ``ResultRecord`` and
    reads the method's own JSON with ``entries`` and ``details_of``, as every built-in's does: a plugin gets them
    from the kit, not from ``debates.record``."""
    from debate_eval.debates import record

    for name in ("ResultRecord", "entries", "details_of"):
        assert name in kit.__all__, name
        assert getattr(kit, name) is getattr(record, name)
