"""G-Eval's configuration and how a sample mean is reported (shared by its run, its ``rescore`` and the import
of G-Eval's released results)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debate_eval.debates.scoring.scores import ParsedScore

DEFAULT_TOP_LOGPROBS = 10


@dataclass(frozen=True)
class GEvalConfig:
    """How the single-agent baseline scores (config.json: every field)."""

    use_logprobs: bool = True
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    samples: int = 1


def sample_parse(parsed_values: list[float | None], n_samples: int) -> ParsedScore:
    """How a sample mean was parsed, over the samples: ``18/20 parsed; the score is the mean of the parsed
    samples`` (status ``parsed``), or ``0/20 parsed: no sample has a score`` (``no_score``)."""
    values = [v for v in parsed_values if v is not None]
    status = f"{len(values)}/{n_samples} parsed"
    if not values:
        return ParsedScore(None, "no_score", "sample_mean", f"{status}: no sample has a score")
    mean = sum(values) / len(values)
    return ParsedScore(mean, "parsed", "sample_mean", f"{status}; the score is the mean of the parsed samples")


def sample_record_fields(parsed_values: list[float | None], n_samples: int) -> dict[str, Any]:
    """``score`` (mean of the parsed samples) and parse fields that report the samples, e.g. ``18/20 parsed``
    (a live ``--geval-samples`` run, its ``rescore``, and imported G-Eval results)."""
    parsed = sample_parse(parsed_values, n_samples)
    return {
        "score": parsed.value,
        "parse_status": parsed.status,
        "parse_method": parsed.method,
        "parse_reason": parsed.reason,
    }


def samples_warning(config: GEvalConfig, temperature: float) -> str | None:
    """A one-line warning when ``samples`` > 1 would give identical answers (temperature 0), else None."""
    if config.samples > 1 and temperature == 0:
        return (
            f"warning: --geval-samples {config.samples} at temperature 0 gives {config.samples} identical "
            "answers (greedy decoding; only the seed differs): set --temperature above 0 for G-Eval's sampling"
        )
    return None
