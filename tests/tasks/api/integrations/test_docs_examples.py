"""docs/integrations.md's Python examples that the docs test (tests/test_docs.py) skips run here, each in a
fresh interpreter (the OpenTelemetry one sets the process's tracer provider for good): the inspect_ai and
deepeval ones with their library (CI's integrations venv; elsewhere they skip without it), the
OpenTelemetry one with the SDK (the ``otel`` extra, in ``dev``), the MLflow one with mlflow-skinny and a file
tracking store in the test's folder."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.integrations import REQUIRE_INTEGRATIONS

PAGE = Path(__file__).resolve().parents[4] / "docs" / "integrations.md"
SKIPPED = re.compile(r"^<!-- skip: next -->\n\n```python\n(.*?)^```", re.M | re.S)
# the library each skipped block needs, by what it imports (None: not run here, and why)
NEEDS = {"inspect_ai": "inspect", "deepeval": "deepeval", "opentelemetry.sdk": "otel", "mlflow": "mlflow"}
REQUIRED = os.environ.get(REQUIRE_INTEGRATIONS) == "1"  # read now: isolated_env removes DEBATE_EVAL_* later


def skipped_blocks() -> list[tuple[str, str]]:
    """(the library it needs, the code) of each skipped Python block of the page."""
    found = []
    for code in SKIPPED.findall(PAGE.read_text(encoding="utf-8")):
        library = next(name for name in NEEDS if re.search(rf"^(from|import) {re.escape(name)}\b", code, re.M))
        found.append((library, code))
    return found


def test_every_skipped_block_is_accounted_for() -> None:
    assert sorted(library for library, _ in skipped_blocks()) == sorted(NEEDS)


RUN = [block for block in skipped_blocks() if NEEDS[block[0]]]


@pytest.mark.parametrize(("library", "code"), RUN, ids=[library for library, _ in RUN])
def test_the_example_runs(library: str, code: str, isolated_env: Path) -> None:
    if importlib.util.find_spec(library.split(".")[0]) is None or (
        library == "opentelemetry.sdk" and importlib.util.find_spec(library) is None
    ):
        if REQUIRED:
            pytest.fail(f"{library} is not installed")
        pytest.skip(f"{library} is not installed: pip install 'debate-eval[{NEEDS[library]}]'")
    env = {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if library == "mlflow":  # mlflow-skinny has no database backend: a file store in the test's folder
        env |= {"MLFLOW_ALLOW_FILE_STORE": "true", "MLFLOW_TRACKING_URI": (isolated_env / "mlruns").as_uri()}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout.strip().splitlines()
    assert printed, "the example prints its result"
    if library == "opentelemetry.sdk":
        assert printed[-1] == str(
            sorted(
                {
                    "chat scripted",
                    "debate_eval.item debate",
                    "debate_eval.round 0",
                    "debate_eval.round 1",
                    "debate_eval.run debate",
                }
            )
        )
