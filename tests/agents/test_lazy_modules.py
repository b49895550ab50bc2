"""``LazyModules``: the modules are imported on the first ``load`` only, also when one of them calls ``load``
while it is imported."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from debate_eval.agents.lazy_modules import LazyModules


def test_imports_on_first_load_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # each module appends its name to a list kept on the test's builtin registry (a module attribute)
    registry: list[str] = []
    monkeypatch.setattr(sys.modules[__name__], "REGISTERED", registry, raising=False)
    lazy = LazyModules(["lazy_first", "lazy_second"])
    for name in lazy.names:
        (tmp_path / f"{name}.py").write_text(
            f"import {__name__} as test\ntest.REGISTERED.append({name!r})\ntest.LAZY.load()\n", encoding="utf-8"
        )
    monkeypatch.setattr(sys.modules[__name__], "LAZY", lazy, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in lazy.names:
        monkeypatch.delitem(sys.modules, name, raising=False)

    assert registry == []  # nothing imported until asked
    lazy.load()
    assert registry == ["lazy_first", "lazy_second"]  # each once, though each calls load while imported
    lazy.load()
    assert registry == ["lazy_first", "lazy_second"]
    for name in lazy.names:
        sys.modules.pop(name, None)
