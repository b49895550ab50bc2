"""debate-eval: multi-agent NLG evaluation (DEBATE, G-Eval, ChatEval, Fennec, DialEvalML) on AutoGen.

The public Python API; nothing else is promised. Quick start::

    import debate_eval

    run = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=8, provider="scripted")
    run.to_pandas()                      # one row per item: score, human score, parse status, tokens
    run.meta_evaluate().to_pandas()      # Spearman / Kendall / Pearson vs the human ratings

    with debate_eval.Judge(method="geval", criteria="Is the summary faithful?", provider="scripted") as judge:
        judge.score("A cat sat.", source="The cat sat on the mat.").score   # one output, a typed Judgment

Names are loaded on first use, so ``import debate_eval`` (and ``debate-eval --help``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from debate_eval._audit import audit, load_card
    from debate_eval._evaluate import evaluate, evaluate_async
    from debate_eval._judge import Judge, Judgment, PairJudgment
    from debate_eval._jury import Jury, JuryJudgment, jury
    from debate_eval._meta import MetaEval, assert_judge_meets, compare, meta_evaluate
    from debate_eval._registry import datasets, methods, parse_score, parse_verdict
    from debate_eval._run import Message, Record, Run, load_run
    from debate_eval._trust import Cascade, Escalated, calibrate, cascade, label_page, read_labels, select
    from debate_eval.agents.errors import UserError
    from debate_eval.debates.base import Method, MethodContext, register_method
    from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange
    from debate_eval.debates.scoring.verdicts import ParsedVerdict
    from debate_eval.tasks.analysis.audit.card import Card, JudgeCard
    from debate_eval.tasks.analysis.audit.facet import Facet, Figure
    from debate_eval.tasks.analysis.calibration import Calibration
    from debate_eval.tasks.analysis.cascade import CascadeReport
    from debate_eval.tasks.analysis.labels import Label
    from debate_eval.tasks.analysis.meta_eval import Comparison
    from debate_eval.tasks.analysis.report.label_page import LabelPage
    from debate_eval.tasks.analysis.select import Selection

__all__ = [
    "Calibration",
    "Card",
    "Cascade",
    "CascadeReport",
    "Comparison",
    "Escalated",
    "Facet",
    "Figure",
    "Judge",
    "JudgeCard",
    "Judgment",
    "Jury",
    "JuryJudgment",
    "Label",
    "LabelPage",
    "Message",
    "MetaEval",
    "Method",
    "MethodContext",
    "PairJudgment",
    "ParsedScore",
    "ParsedVerdict",
    "Record",
    "Run",
    "ScoreRange",
    "Selection",
    "UserError",
    "__version__",
    "assert_judge_meets",
    "audit",
    "calibrate",
    "cascade",
    "compare",
    "datasets",
    "evaluate",
    "evaluate_async",
    "jury",
    "label_page",
    "load_card",
    "load_run",
    "meta_evaluate",
    "methods",
    "parse_score",
    "parse_verdict",
    "read_labels",
    "register_method",
    "select",
]

_MODULES = {  # the module that defines each public name (as imported for type checkers above)
    "debate_eval._audit": "audit load_card",
    "debate_eval._evaluate": "evaluate evaluate_async",
    "debate_eval._judge": "Judge Judgment PairJudgment",
    "debate_eval._jury": "Jury JuryJudgment jury",
    "debate_eval._meta": "MetaEval assert_judge_meets compare meta_evaluate",
    "debate_eval._registry": "datasets methods parse_score parse_verdict",
    "debate_eval._run": "Message Record Run load_run",
    "debate_eval._trust": "Cascade Escalated calibrate cascade label_page read_labels select",
    "debate_eval.agents.errors": "UserError",
    "debate_eval.debates.base": "Method MethodContext register_method",
    "debate_eval.debates.scoring.scores": "ParsedScore ScoreRange",
    "debate_eval.debates.scoring.verdicts": "ParsedVerdict",
    "debate_eval.tasks.analysis.audit.card": "Card JudgeCard",
    "debate_eval.tasks.analysis.audit.facet": "Facet Figure",
    "debate_eval.tasks.analysis.calibration": "Calibration",
    "debate_eval.tasks.analysis.cascade": "CascadeReport",
    "debate_eval.tasks.analysis.labels": "Label",
    "debate_eval.tasks.analysis.meta_eval": "Comparison",
    "debate_eval.tasks.analysis.report.label_page": "LabelPage",
    "debate_eval.tasks.analysis.select": "Selection",
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names.split()}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib import metadata

        try:
            return metadata.version("debate-eval")
        except metadata.PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'debate_eval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
