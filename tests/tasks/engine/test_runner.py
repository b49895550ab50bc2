"""What the runner works out once per run instead of once per item (tasks/engine/runner.py, run_config.py)."""

from __future__ import annotations

from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.debates.debate.method import debate_config
from debate_eval.tasks.data.registry import Item
from debate_eval.tasks.data.templates import resolve_template
from debate_eval.tasks.engine.judged import make_record
from debate_eval.tasks.engine.run_config import RunConfig, versions


def config() -> RunConfig:
    models = resolve_model_config(ModelOverrides(base_url="http://127.0.0.1:9/v1", model="m"), environ={})
    return RunConfig(
        dataset="summeval",
        aspect="coherence",
        protocol="debate",
        template=resolve_template("summeval", "coherence"),
        models=models,
        method_config=debate_config("devils-advocate", False, "summarization"),
    )


def test_a_record_with_the_runs_hash_given_is_the_record_it_computes() -> None:
    item = Item("d/1", "summeval", "d", "M1", {"Document": "d", "Summary": "s"}, {"coherence": 3.0}, 0)
    run_config = config()
    computed = make_record(item, run_config, None, "ValueError: x", 1.0).to_json()
    given = make_record(item, run_config, None, "ValueError: x", 1.0, config_hash=run_config.config_hash()).to_json()
    assert given == computed and list(given) == list(computed)
    assert computed["config_hash"] == run_config.config_hash()


def test_versions_are_read_once_and_handed_out_as_copies() -> None:
    first = versions()
    first["openai"] = "edited"
    assert versions()["openai"] != "edited"
    assert versions() == versions() and "python" in versions()
