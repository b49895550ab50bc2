"""A run directory as an inspect_ai eval log (``debate-eval export RUN --format inspect --out FILE``), so
``inspect view`` shows a debate-eval run. Written through ``inspect_ai.log``'s public model and writer
(``EvalLog``, ``write_eval_log``); needs the ``inspect`` extra.

One sample per record (item and aspect): its ``input`` the task prompt the judge was given (the transcript's
first message), its ``target`` the human score (or label) when the data has one, its ``messages`` the whole
transcript in order (the models' answers as assistant messages, the Commander's relays as user messages;
each message's agent, role and parsed score in its ``metadata``), its ``output`` the deciding answer, and
one score named ``debate_eval``: the record's score (a pairwise record: its verdict ``first``/``second``/
``tie``), the deciding answer as explanation, parse status, rounds, agreement and human score in metadata.
A record without a score (unparsed, or failed) has no score and says why in its metadata; a failed item
also carries its error. Each sample's token usage is its transcript's, with the prompt tokens the provider
served from its prompt cache as ``input_tokens_cache_read``. The eval's results give the mean score over the
scored samples and its standard error (``stderr``: the sample standard deviation over the square root of the
count, as inspect's ``stderr`` metric; two scores or more).
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval._run import Message, Record, Run, load_run
from debate_eval.integrations import require

SCORER_NAME = "debate_eval"
EXTRA = "inspect"


def export_inspect_log(run: Run | str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Write ``run`` (a ``Run`` or a run directory) as an inspect eval log at ``out`` (``.eval``, inspect's
    default, or ``.json``); returns its path."""
    run = run if isinstance(run, Run) else load_run(run)  # what the user gave is checked first, the extra then
    path = Path(out)
    if path.suffix not in (".eval", ".json"):
        from debate_eval.agents.errors import UserError

        raise UserError(f"{path}: an inspect log is a .eval or .json file")
    require("inspect_ai", EXTRA)
    from inspect_ai.log import write_eval_log

    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(eval_log(run), str(path), format="auto")
    return path


def eval_log(run: Run) -> Any:
    """The ``inspect_ai.log.EvalLog`` of ``run`` (see the module doc)."""
    require("inspect_ai", EXTRA)
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec, EvalStats

    records = run.records
    result_config = dict(run.config.get("result_config") or {})
    dataset = str(result_config.get("dataset") or (records[0].dataset if records else "unknown"))
    aspect = str(result_config.get("aspect") or (records[0].aspect if records else ""))
    method = str(result_config.get("method") or result_config.get("protocol") or (records[0].method if records else ""))
    model = _model_name(run.config)
    created = _created(run)
    multi = len({r.aspect for r in records}) > 1  # a run of several aspects: an item once per aspect
    samples = [_sample(record, model, multi) for record in records]
    scores = [float(r.score) for r in records if r.score is not None]
    scored = [s for s in samples if s.scores]
    metrics = {"mean": EvalMetric(name="mean", value=statistics.fmean(scores))} if scores else {}
    if len(scores) >= 2:
        error = statistics.stdev(scores) / len(scores) ** 0.5
        metrics["stderr"] = EvalMetric(name="stderr", value=error)
    usage = _sum_usage([s.model_usage.get(model) for s in samples], model)
    spec = EvalSpec(
        created=created,
        task=f"debate_eval/{dataset}/{aspect}",
        task_args={"dataset": dataset, "aspect": aspect, "method": method},
        solver=method,
        dataset=EvalDataset(
            name=dataset, location=str(run.path), samples=len(samples), sample_ids=[s.id for s in samples]
        ),
        model=model,
        config=EvalConfig(),
        packages={name: str(version) for name, version in dict(run.config.get("versions") or {}).items()},
        metadata={"config_hash": run.config_hash, "run_directory": str(run.path)},
    )
    results = EvalResults(
        total_samples=len(samples),
        completed_samples=len(scored),
        scores=[
            EvalScore(
                name=SCORER_NAME,
                scorer=SCORER_NAME,
                scored_samples=len(scored),
                unscored_samples=len(samples) - len(scored),
                metrics=metrics,
            )
        ],
    )
    stats = EvalStats(started_at=created, completed_at=created, model_usage={model: usage} if usage else {})
    return EvalLog(status="success", eval=spec, results=results, stats=stats, samples=samples)


def _sample(record: Record, model: str, multi: bool) -> Any:
    """One record as an ``EvalSample`` (``multi``: its id names its aspect too)."""
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput

    transcript = list(record.transcript)
    messages = [_message(entry, model) for entry in transcript]
    decider = _deciding_answer(record, transcript)
    target = record.human_label if record.human_label is not None else record.human_score
    sample = EvalSample(
        id=f"{record.item_id}/{record.aspect}" if multi else record.item_id,
        epoch=1,
        input=transcript[0].content if transcript else "",
        target="" if target is None else str(target),
        messages=messages,
        output=ModelOutput.from_content(model, decider or ""),
        scores=_scores(record, decider),
        metadata={
            "dataset": record.dataset,
            "aspect": record.aspect,
            "method": record.method,
            "group_id": record.group_id,
            "system_id": record.system_id,
            "human_score": record.human_score,
            "parse_status": record.parse_status,
        },
        model_usage=_usage(transcript, model, record.cached_prompt_tokens()),
    )
    if record.error:
        sample.error = EvalError(message=str(record.error), traceback="", traceback_ansi="")
    return sample


def _scores(record: Record, decider: str | None) -> dict[str, Any] | None:
    """The sample's one score (None when the record has neither score nor verdict)."""
    from inspect_ai.scorer import Score

    value: Any = record.verdict if record.verdict is not None else record.score
    if value is None:
        return None
    metadata = {
        "parse_status": record.parse_status,
        "parse_method": record.parse_method,
        "rounds": record.rounds,
        "agreed": record.agreed,
        "stop_reason": record.stop_reason,
        "decided_by": record.decided_by,
        "human_score": record.human_score,
        "human_label": record.human_label,
    }
    return {
        SCORER_NAME: Score(
            value=value,
            answer=str(value),
            explanation=decider,
            metadata={key: v for key, v in metadata.items() if v is not None},
        )
    }


def _deciding_answer(record: Record, transcript: Sequence[Message]) -> str | None:
    """The deciding agent's last answer (the record's ``decided_by``), else the last model answer."""
    decided_by = record.decided_by
    answers = [m for m in transcript if m.usage is not None]
    chosen = [m for m in answers if m.agent == decided_by] or answers
    return chosen[-1].content if chosen else None


def _message(entry: Message, model: str) -> Any:
    """A transcript entry as an inspect chat message: a model's answer (it has usage) as an assistant
    message, any other (the Commander's relays) as a user message."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

    metadata: dict[str, Any] = {"agent": entry.agent, "role": entry.role}
    if entry.raw.get("to"):
        metadata["to"] = entry.raw["to"]
    if entry.score:
        metadata["score"] = dict(entry.score)
    if entry.usage is not None:
        metadata["cached"] = entry.cached
        return ChatMessageAssistant(content=entry.content, model=model, source="generate", metadata=metadata)
    return ChatMessageUser(content=entry.content, source="input", metadata=metadata)


def _usage(transcript: Sequence[Message], model: str, cache_read: int = 0) -> dict[str, Any]:
    """The transcript's token usage, as inspect's ``ModelUsage`` of ``model`` (``cache_read``: its prompt tokens
    read from the provider's prompt cache)."""
    usage = [m.usage for m in transcript if m.usage is not None]
    if not usage:
        return {}
    from inspect_ai.model import ModelUsage

    prompt = sum(int(u.get("prompt_tokens") or 0) for u in usage)
    completion = sum(int(u.get("completion_tokens") or 0) for u in usage)
    usage_of = ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
    if cache_read:
        usage_of.input_tokens_cache_read = cache_read
    return {model: usage_of}


def _sum_usage(usages: Sequence[Any], model: str) -> Any:
    found = [u for u in usages if u is not None]
    if not found:
        return None
    from inspect_ai.model import ModelUsage

    prompt, completion = sum(u.input_tokens for u in found), sum(u.output_tokens for u in found)
    total = ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
    cache_read = sum(u.input_tokens_cache_read or 0 for u in found)
    if cache_read:
        total.input_tokens_cache_read = cache_read
    return total


def _model_name(config: Mapping[str, Any]) -> str:
    """inspect's ``provider/model`` of the run's Scorer (its deciding role), e.g. ``openai/gpt-4o``."""
    roles = dict(dict(config.get("models") or {}).get("roles") or {})
    role = dict(roles.get("scorer") or next(iter(roles.values()), {}) or {})
    provider, model = role.get("provider") or "debate_eval", role.get("model") or "unknown"
    return f"{provider}/{model}"


def _created(run: Run) -> str:
    """When the run's results were last written (results.jsonl's time), ISO 8601 in UTC."""
    source = run.results_file if run.results_file.is_file() else run.path
    return dt.datetime.fromtimestamp(source.stat().st_mtime, tz=dt.timezone.utc).isoformat(timespec="seconds")
