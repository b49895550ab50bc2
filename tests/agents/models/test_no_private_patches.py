"""The default path uses public APIs only: no module under agents/ imports a private module of the SDKs except
autogen_private.py (every private AutoGen name, with its reason and version check), and building a run's
clients neither loads nor applies the opt-in fast path."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

AGENTS = Path(__file__).resolve().parents[3] / "agents"
SDKS = ("openai", "httpx", "httpx2", "httpcore", "httpcore2", "autogen_core", "autogen_ext", "autogen_agentchat")
ALLOWED = {AGENTS / "models" / "autogen_private.py"}  # the one module of private AutoGen imports


def private_imports(path: Path) -> list[str]:
    """Modules of ``SDKS`` with a private part (``openai._types``) that ``path`` imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] in SDKS and any(part.startswith("_") for part in parts[1:]):
                found.append(name)
    return found


def test_no_module_of_the_default_path_imports_a_private_sdk_module() -> None:
    offenders = {
        str(path.relative_to(AGENTS.parent)): private_imports(path)
        for path in AGENTS.rglob("*.py")
        if path not in ALLOWED and private_imports(path)
    }
    assert offenders == {}
    assert private_imports(AGENTS / "models" / "autogen_private.py")  # the scan does see them where they are


def test_building_the_clients_of_a_run_loads_no_fast_path() -> None:
    script = """
import asyncio, sys
from autogen_core import SingleThreadedAgentRuntime
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
before = SingleThreadedAgentRuntime._try_serialize
models = resolve_model_config(ModelOverrides(base_url="http://127.0.0.1:9/v1", model="m"), environ={})
pool = ClientPool(models)
pool.shared("scorer")
asyncio.run(pool.close())
print("debate_eval.agents.models.fast_path" in sys.modules, SingleThreadedAgentRuntime._try_serialize is before)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["False", "True"]
