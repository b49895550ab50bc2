"""The data options of ``run`` (and the commands that share its selection): ``--fields``, ``--labels``,
``--language`` (``--dataset`` itself is added by the caller). ``engine.build.resolve_dataset`` interprets
them: ``--dataset FILE`` with ``--fields`` registers the user's own file after validating every row;
``--language NAME`` selects an xDial-Eval language (``xdial_fed_turn-NAME``; english keeps the plain name).
"""

from __future__ import annotations

from typing import Any


def add_dataset_arguments(group: Any) -> None:
    """``--fields``, ``--labels`` and ``--language`` (``--dataset`` itself is added by the caller)."""
    group.add_argument(
        "--fields",
        metavar="NAME=COLUMN,...",
        help="your own file's columns: source=,output=,human= (required), group= (optional; without it "
        "correlation is item-level), reference=, context=, id=; pairwise: question=,output_a=,output_b=,label= "
        "(and input=)",
    )
    group.add_argument(
        "--labels",
        metavar="first=A,second=B,tie=T",
        help="pairwise own file: which values of the label column mean first / second / tie "
        "(default: the words first, second, tie)",
    )
    group.add_argument(
        "--language",
        metavar="NAME",
        help="xdial_fed_turn / xdial_fed_dialogue: the language of the text (default english; see 'debate-eval "
        "datasets')",
    )
