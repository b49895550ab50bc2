"""``--fidelity paper|authors-code``: whose version of a method is run (DEBATE family and ChatEval).

``paper``
    The method as its paper describes it (DEBATE: Algorithm 1, Appendices D, E and G; ChatEval: its
    Algorithms 1-3 with its main setting of two referees). Choices a paper leaves open are the project's
    and are listed in docs/fidelity.md.
``authors-code``
    The behaviour of the authors' released code, message for message (DEBATE: ``gunny97/DEBATE`` and the
    ``tiebreaker`` branch of ``sangwongenip/geval``; ChatEval: ``chanchimin/ChatEval``'s FairEval setting).
    Their plain bugs are reproduced only with ``--reproduce-authors-bugs``.

Both methods declare the same two options (``fidelity_option``, ``bugs_option``); the command line shows them
once, in the group of the first.
"""

from __future__ import annotations

from typing import Any

from debate_eval.debates.method import option

PAPER = "paper"
AUTHORS_CODE = "authors-code"
FIDELITIES = (PAPER, AUTHORS_CODE)
FIDELITY_HELP = (
    "debate family and chateval: 'paper' (the papers' algorithms; default) or 'authors-code' (the authors' "
    "released code, message for message; sends no seed unless --seed is given)"
)
BUGS_HELP = (
    "with --fidelity authors-code: also reproduce their plain bugs (DEBATE: the final answer taken at their "
    "[-2] index even when it is a relay text; ChatEval: the simultaneous-talk parser demanding the score "
    "format in every turn)"
)


def fidelity_option() -> Any:
    """The ``fidelity`` field of a method's ``Options`` (``--fidelity paper|authors-code``)."""
    return option(PAPER, choices=FIDELITIES, help=FIDELITY_HELP)


def bugs_option() -> Any:
    """The ``reproduce_authors_bugs`` field of a method's ``Options`` (``--reproduce-authors-bugs``)."""
    return option(False, help=BUGS_HELP)


def fidelity_of(args: Any) -> tuple[str, bool]:
    """``(fidelity, reproduce_bugs)`` from a method's parsed ``Options`` (defaults when it has neither)."""
    fidelity = getattr(args, "fidelity", None) or PAPER
    if fidelity not in FIDELITIES:
        raise ValueError(f"unknown fidelity {fidelity!r}; choose from {', '.join(FIDELITIES)}")
    return fidelity, bool(getattr(args, "reproduce_authors_bugs", False))
