"""How a run prepares its items: the data file is read and checked once; prompts are rendered as items are
scheduled, each once, not all before the run starts; a template that some item cannot fill still fails before
any prompt is rendered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.debates.debate.method import debate_config
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data import own_file, own_rows
from debate_eval.tasks.data.registry import Item
from debate_eval.tasks.data.templates import Template, resolve_template
from debate_eval.tasks.engine import runner, session
from debate_eval.tasks.engine.run_config import RunConfig

ITEMS = 12


def write_rows(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(rows):
            handle.write(json.dumps({"id": f"r{i}", "source": f"Source number {i}.", "output": f"Output {i}."}) + "\n")
    return path


def run_args(data: Path, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", str(data), "--criteria", "Is it good?", "--scale", "1-5", "--aspect", "quality"]
    return [
        *args,
        "--method",
        "geval",
        "--provider",
        "scripted",
        "--out",
        str(out),
        "--no-cache",
        "--no-progress",
        *extra,
    ]


def test_each_prompt_is_rendered_once_when_its_item_starts(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = write_rows(isolated_env / "rows.jsonl", ITEMS)
    rendered: list[str] = []  # the source text of each rendered prompt, in order
    started: list[tuple[str, int]] = []  # (item id, prompts rendered so far) as each item's evaluation starts
    render = Template.render
    evaluate_one = session.evaluate_one

    def counting_render(self: Template, inputs: Any) -> str:
        rendered.append(str(inputs.get("source")))
        return render(self, inputs)

    async def watching_evaluate_one(evaluator: Any, item: Any, *args: Any, **kwargs: Any) -> Any:
        started.append((item.item_id, len(rendered)))
        return await evaluate_one(evaluator, item, *args, **kwargs)

    monkeypatch.setattr(Template, "render", counting_render)
    monkeypatch.setattr(session, "evaluate_one", watching_evaluate_one)
    assert main(run_args(data, isolated_env / "run", "--concurrency", "1")) == 0
    # one item at a time: when item k starts, exactly the prompts of items 1..k have been rendered
    assert started == [(f"r{i}", i + 1) for i in range(ITEMS)]
    assert rendered == [f"Source number {i}." for i in range(ITEMS)]


def test_a_resume_renders_only_the_items_left(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = write_rows(isolated_env / "rows.jsonl", ITEMS)
    out = isolated_env / "run"
    assert main(run_args(data, out, "--limit", "5")) == 0
    rendered: list[str] = []
    render = Template.render

    def counting_render(self: Template, inputs: Any) -> str:
        rendered.append(str(inputs.get("source")))
        return render(self, inputs)

    monkeypatch.setattr(Template, "render", counting_render)
    assert main(run_args(data, out)) == 0
    assert sorted(rendered) == sorted(f"Source number {i}." for i in range(5, ITEMS))


def test_an_item_the_template_cannot_fill_is_refused_before_any_prompt_is_rendered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    models = resolve_model_config(ModelOverrides(base_url="http://127.0.0.1:9/v1", model="m"), environ={})
    config = RunConfig(
        dataset="summeval",
        aspect="coherence",
        protocol="debate",
        template=resolve_template("summeval", "coherence"),
        models=models,
        method_config=debate_config("devils-advocate", False, "summarization"),
    )
    good = Item("d/1", "summeval", "d", "M1", {"Document": "d", "Summary": "s"}, {"coherence": 3.0}, 0)
    bad = Item("d/2", "summeval", "d", "M2", {"Document": "d"}, {"coherence": 3.0}, 1)
    rendered: list[str] = []
    render = Template.render

    def counting_render(self: Template, inputs: Any) -> str:
        rendered.append(str(inputs.get("Document")))
        return render(self, inputs)

    monkeypatch.setattr(Template, "render", counting_render)
    builder = runner.TaskBuilder(config)
    builder.check([good, good])
    with pytest.raises(UserError, match=r"uses \{\{Summary\}\} but no value was given"):
        builder.check([good, bad])
    assert rendered == []
    assert builder(good).prompt == render(config.template, good.inputs)


def test_a_run_checks_its_own_file_once_and_never_reads_it_whole(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is checked once (row by row), when it is registered; the run then reads the items it takes
    row by row again: the whole file is never read into memory."""
    data = write_rows(isolated_env / "rows.jsonl", ITEMS)
    checks: list[Path] = []
    whole: list[Path] = []
    scan_file, read_table = own_file.scan_file, own_rows.read_table

    def counting_scan(path: Path, *args: Any) -> Any:
        checks.append(path)
        return scan_file(path, *args)

    def counting_read_table(path: Path) -> Any:
        whole.append(path)
        return read_table(path)

    monkeypatch.setattr(own_file, "scan_file", counting_scan)
    monkeypatch.setattr(own_rows, "read_table", counting_read_table)
    assert main(run_args(data, isolated_env / "run")) == 0
    assert checks == [data] and whole == []
    assert len((isolated_env / "run" / "results.jsonl").read_text(encoding="utf-8").splitlines()) == ITEMS
