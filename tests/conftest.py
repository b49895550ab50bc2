"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

# The repository's parent folder holds ``shared/data`` in the development checkout (tests/ -> repo -> parent).
_DEFAULT_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _require_data() -> bool:
    return os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1"


def _packaged_copies(folder: Path) -> Path:
    """Write the verified packaged copies (SummEval, Topical-Chat) into ``folder`` in the data layout."""
    from debate_eval.tasks.data.datasets import all_datasets
    from debate_eval.tasks.data.packaged import packaged_bytes

    for spec in all_datasets().values():
        if spec.shipped:
            path = folder / spec.relative_path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(packaged_bytes(spec))
    return folder


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder with the real dataset files: ``$DEBATE_EVAL_DATA_DIR``, else ``../shared/data``, else the
    folder ``debate-eval data download`` fills (``~/.cache/debate-eval/data``).

    When none has SummEval, the packaged copies of SummEval and Topical-Chat (verified against their git blob
    ids) are written to a temporary folder and that is used, so no test skips for want of them; the other
    sets are then missing and their tests skip (see ``dataset_path``). With ``DEBATE_EVAL_REQUIRE_DATA=1``
    (CI) a missing folder fails instead.
    """
    from debate_eval.tasks.data.datasets import default_data_dir

    candidates = [Path(os.environ["DEBATE_EVAL_DATA_DIR"])] if os.environ.get("DEBATE_EVAL_DATA_DIR") else []
    candidates += [_DEFAULT_SHARED_DATA, default_data_dir()]
    found = next((c for c in candidates if (c / "summeval" / "summeval.json").is_file()), None)
    if found is not None:
        return found
    if _require_data():
        pytest.fail(
            f"DEBATE_EVAL_REQUIRE_DATA=1 but no data folder has summeval/summeval.json (looked in "
            f"{', '.join(map(str, candidates))}); set DEBATE_EVAL_DATA_DIR to the shared data folder"
        )
    return _packaged_copies(tmp_path_factory.mktemp("packaged-data"))


@pytest.fixture(scope="session")
def dataset_path(shared_data_dir: Path) -> Callable[[str], Path]:
    """``dataset_path(name)``: the real file of a registered dataset under ``shared_data_dir``.

    Outside CI a set that is not there (FED, xDial, FairEval, PandaLM, Auto-J do not ship) skips the test
    with the reason; with ``DEBATE_EVAL_REQUIRE_DATA=1`` it fails.
    """
    from debate_eval.tasks.data.datasets import get_dataset

    def find(name: str) -> Path:
        spec = get_dataset(name)
        path = shared_data_dir / spec.relative_path
        if not path.is_file():
            reason = (
                f"dataset {name}: {path} not found (it does not ship with the package); set "
                f"DEBATE_EVAL_DATA_DIR to the shared data folder or run `debate-eval data download --dataset {name}`"
            )
            if _require_data():
                pytest.fail(reason)
            pytest.skip(reason)
        return path

    return find


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shared_data_dir: Path) -> Path:
    """A clean environment for command-line runs: no model settings from the developer's environment or
    .env, the real data, a private response cache, and ``tmp_path`` as the working directory."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "DEBATE_EVAL_")) and name != "DEBATE_EVAL_REQUIRE_DATA":
            monkeypatch.delenv(name)
    monkeypatch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))
    monkeypatch.setenv("DEBATE_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# Forms of a marker that only look like it (issue 23, item 1): a test that takes the ``disguise`` argument runs
# once per form, with a function that writes a text in that form.
_CYRILLIC = str.maketrans("ABCEHIKMOPSTXacopsxy", "АВСЕНІКМОРЅТХасорѕху")
_GREEK = str.maketrans("ABEHIKMNOPTXYZov", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖον")


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


def _zero_width(text: str) -> str:
    """ "NO ISSUE" -> "NO\u200bIS\u200dSUE": the space becomes a zero-width space, the last word gets a joiner."""
    head, _, last = text.rpartition(" ")
    middle = max(1, len(last) // 2)
    return (head + "\u200b" if head else "") + last[:middle] + "\u200d" + last[middle:]


def _bidi(text: str) -> str:
    """Bidi controls around and inside: an isolate, a right-to-left mark, an embedding."""
    return "\u2067" + text[:1] + "\u200f" + text[1:].replace(" ", " \u202a", 1) + "\u202c\u2069"


DISGUISES: dict[str, Callable[[str], str]] = {
    "fullwidth": _fullwidth,
    "zero_width": _zero_width,
    "bidi": _bidi,
    "cyrillic": lambda text: text.translate(_CYRILLIC),
    "greek": lambda text: text.translate(_GREEK),
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that asks for ``disguise`` over ``DISGUISES``."""
    if "disguise" in metafunc.fixturenames:
        metafunc.parametrize("disguise", list(DISGUISES.values()), ids=list(DISGUISES))


@pytest.fixture(scope="session")
def disguises() -> dict[str, Callable[[str], str]]:
    """All of ``DISGUISES`` at once, by name (for a test that plants every form in one run)."""
    return dict(DISGUISES)
