"""DEBATE's fidelities are strategies: ``flow_of`` picks the paper's flow or the authors' code's from the config,
and each reads answers its own way (the debates themselves: test_run.py and test_fidelity.py)."""

from __future__ import annotations

from debate_eval.debates.base import MethodContext, get_method
from debate_eval.debates.debate.authors_code import AuthorsCodeFlow
from debate_eval.debates.debate.paper import PaperFlow
from debate_eval.debates.debate.run import flow_of
from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.debates.scoring.untrusted import UntrustedMaterial


def config(method: str, **options: object) -> object:
    return get_method(method).configure(options, MethodContext(dataset="summeval"))


def test_each_fidelity_has_its_flow() -> None:
    paper = flow_of(config("debate"))  # type: ignore[arg-type]
    authors = flow_of(config("tiebreaker", fidelity="authors-code"))  # type: ignore[arg-type]
    assert isinstance(paper, PaperFlow) and not paper.forward_first and not paper.commander_replies
    assert isinstance(authors, AuthorsCodeFlow) and authors.forward_first and authors.commander_replies
    assert authors.branch.name == "tiebreaker"  # the tiebreaker branch of their code, as the config says


def test_the_flows_read_answers_their_own_way() -> None:
    task = EvaluationTask("1", "P", "coherence", ScoreRange(1, 5), ())
    material = UntrustedMaterial(())
    text = "Of the 3 issues raised, none holds.\nScore: 4"
    paper = flow_of(config("debate"))  # type: ignore[arg-type]
    assert paper.parse(text, task, material).value == 4  # the labelled score
    authors = flow_of(config("debate", fidelity="authors-code"))  # type: ignore[arg-type]
    parsed = authors.parse(text, task, material)  # their first digit of the first number
    assert parsed.value == 3 and parsed.method == "authors_first_digit"
