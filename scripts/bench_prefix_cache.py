"""Prefix-cache ceiling: per DEBATE debate, the share of prompt text that repeats a prefix already sent.

Providers with automatic prompt caching (OpenAI, Azure, DeepSeek, vLLM/SGLang prefix caching) bill or skip
the longest prefix of a request that an earlier request already had. This script runs real SummEval
debates through the framework (``debate_eval.tasks.engine.runner.run``, one debate at a time) against
``ScriptedOpenAIServer`` on 127.0.0.1, records every request's message list exactly as sent, and measures,
for each call, the longest character prefix of its serialised messages (role and content of each message, in
order) that an earlier request had:

- within its debate (the ceiling on what caching saves for one item: the Scorer re-sends system message,
  task and history; the Critic re-sends its own history),
- across the run (also the system message and the template text shared by every item),
- under OpenAI's rule (a prefix counts only from 1,024 tokens, in steps of 128; tokens estimated as
  characters / 4, as no tokenizer ships with the project).

The replies are the scripted server's, so the shares describe the prompts' structure, not a model's
answers; real answers are longer, which raises the repeated share of later calls further.

Usage (from the repository root)::

    DEBATE_EVAL_DATA_DIR=/path/to/data python scripts/bench_prefix_cache.py --debates 16
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import shlex
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.debates.debate.method import debate_config
from debate_eval.tasks.data.datasets import resolve_data_dir
from debate_eval.tasks.data.templates import resolve_template
from debate_eval.tasks.engine.results import read_jsonl
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.runner import run

CHARS_PER_TOKEN = 4
OPENAI_MIN_TOKENS, OPENAI_STEP_TOKENS = 1024, 128


def serialise(messages: Sequence[dict]) -> str:
    """The text a provider's prefix cache sees, message by message."""
    return "".join(f"<{m.get('role')}>{m.get('content', '')}\n" for m in messages)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def openai_cached(chars: int) -> int:
    """Characters OpenAI's rule would bill as cached for a repeated prefix of ``chars`` characters."""
    tokens = chars // CHARS_PER_TOKEN
    if tokens < OPENAI_MIN_TOKENS:
        return 0
    return (OPENAI_MIN_TOKENS + (tokens - OPENAI_MIN_TOKENS) // OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS) * 4


def measure(debates: list[list[str]]) -> list[dict[str, float]]:
    """Per debate: total prompt characters and repeated-prefix characters (within, across, OpenAI rule)."""
    seen_run: list[str] = []
    rows = []
    for calls in debates:
        seen: list[str] = []
        total = within = across = rule = rule_across = 0
        for text in calls:
            here = max((common_prefix(text, s) for s in seen), default=0)
            anywhere = max([here, *(common_prefix(text, s) for s in seen_run)])
            total += len(text)
            within += here
            across += anywhere
            rule += openai_cached(here)
            rule_across += openai_cached(anywhere)
            seen.append(text)
        seen_run += seen
        rows.append(
            {"calls": len(calls), "chars": total, "within": within, "across": across, "rule": rule,
             "rule_across": rule_across}
        )  # fmt: skip
    return rows


async def record_debates(data_dir: Path, count: int, rounds: int) -> list[list[str]]:
    """Run ``count`` debates one at a time; each debate's serialised requests, in order."""
    calls = 2 * rounds + 1
    with ScriptedOpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:
        models = resolve_model_config(ModelOverrides(base_url=server.base_url, model="scripted"), environ={})
        config = RunConfig(
            dataset="summeval",
            aspect="coherence",
            protocol="debate",
            template=resolve_template("summeval", "coherence"),
            models=models,
            method_config=debate_config("devils-advocate", False, "summarization", max_rounds=rounds),
        )
        options = RunOptions(
            out_dir=Path(tmp) / "run", data_dir=data_dir, limit=count, concurrency=1, use_cache=False,
            progress=False, preflight=False,
        )  # fmt: skip
        await run(config, options, stream=open(os.devnull, "w"))  # noqa: SIM115
        records = read_jsonl(options.out_dir / "results.jsonl")
        if len(records) != count or any(r.get("llm_calls") != calls for r in records):
            raise SystemExit("check failed: some debate did not make 2n + 1 calls")
        texts = [serialise(request["messages"]) for request in server.requests]
    return [texts[i : i + calls] for i in range(0, len(texts), calls)]


def report(command: str, args: argparse.Namespace, rows: list[dict[str, float]]) -> str:
    """The Markdown report."""

    def share(key: str) -> list[float]:
        return [row[key] / row["chars"] for row in rows]

    total = sum(row["chars"] for row in rows)
    lines = [
        "# Prefix-cache ceiling of DEBATE prompts",
        "",
        "Generated by `scripts/bench_prefix_cache.py`; rerun the command instead of editing.",
        "",
        "```",
        command,
        "```",
        "",
        f"- Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- {len(rows)} SummEval coherence debates (the first items), DEBATE with n = {args.rounds} "
        f"({2 * args.rounds + 1} calls each, the Critic never agreeing), framework requests recorded by "
        "`ScriptedOpenAIServer` (scripted replies).",
        "- Repeated prefix of a call: the longest character prefix of its serialised messages that an earlier "
        "request had. Share = repeated prefix characters / all prompt characters.",
        "",
        "| measure | mean share per debate | min | max | share over all debates |",
        "|---|---:|---:|---:|---:|",
    ]
    names = {
        "within": "repeated prefix within the debate",
        "across": "repeated prefix anywhere earlier in the run",
        "rule": "within the debate, OpenAI rule (>= 1,024 tokens, steps of 128; 4 chars/token)",
        "rule_across": "anywhere earlier in the run, OpenAI rule",
    }
    for key, name in names.items():
        values = share(key)
        overall = sum(row[key] for row in rows) / total
        lines.append(
            f"| {name} | {statistics.mean(values):.1%} | {min(values):.1%} | {max(values):.1%} | {overall:.1%} |"
        )
    mean_chars = statistics.mean(row["chars"] for row in rows)
    lines += [
        "",
        f"Prompt size: {mean_chars:,.0f} characters per debate on average (about {mean_chars / 4:,.0f} tokens).",
        "",
        "Reading: this is the ceiling on the prompt tokens a provider's prefix cache can serve; what is billed",
        "as cached shows per run in the summary (`prompt cache:` line, from usage.prompt_tokens_details). The",
        "framework keeps each agent's prefix byte-stable (system message, task, then history only appended),",
        "checked by tests/agents/models/test_prompt_cache.py. SummEval's first items share a document, and the",
        "template puts the document before the summary, so items of one document share a long prefix: keeping",
        "items in dataset order (as the runner does) lets the cache serve it across debates.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the measurement and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--debates", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--data-dir", help="folder with summeval/ (default: $DEBATE_EVAL_DATA_DIR)")
    parser.add_argument("--out", default="benchmarks/prefix_cache.md")
    args = parser.parse_args(argv)
    debates = asyncio.run(record_debates(resolve_data_dir(args.data_dir), args.debates, args.rounds))
    rows = measure(debates)
    given = list(argv) if argv is not None else sys.argv[1:]
    command = " ".join(["python scripts/bench_prefix_cache.py", *(shlex.quote(a) for a in given)])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report(command, args, rows), encoding="utf-8")
    print(out.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
