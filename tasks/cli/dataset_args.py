"""The data options of ``run`` (and the commands that share its selection): ``--dataset NAME|FILE``,
``--fields``, ``--labels``, ``--language``; and turning them into the name the registry knows.

``--dataset FILE`` (``.jsonl``/``.csv``/``.json``) with ``--fields`` registers the user's own file under the
name it was given, after validating every row (all bad rows are reported, one line each, before anything is
evaluated). ``--language NAME`` selects an xDial-Eval language: the dataset name becomes
``xdial_fed_turn-NAME`` (english keeps the plain name).
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.own_file import PAIRWISE_FIELDS, SINGLE_FIELDS, parse_mapping, register_own_file
from debate_eval.tasks.data.registry import PAIRWISE, PAIRWISE_LABELS, get_dataset, looks_like_own_file, with_variant
from debate_eval.tasks.data.templates import parse_scale

FIELD_NAMES = tuple(dict.fromkeys(SINGLE_FIELDS + PAIRWISE_FIELDS))


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
        help="xdial_fed_turn / xdial_fed_dialogue: the language of the text (default english; see `debate-eval "
        "datasets`)",
    )


def apply_dataset_arguments(args: argparse.Namespace) -> None:
    """Resolve ``--dataset``/``--fields``/``--labels``/``--language`` in place: ``args.dataset`` becomes the
    registered name (an own file is validated and registered here)."""
    fields_text = getattr(args, "fields", None)
    labels_text = getattr(args, "labels", None)
    language = getattr(args, "language", None)
    if looks_like_own_file(args.dataset):
        if language:
            raise UserError("--language is for the xDial-Eval datasets, not for your own file")
        fields = parse_mapping(fields_text or "", "--fields", FIELD_NAMES)
        labels = parse_mapping(labels_text or "", "--labels", PAIRWISE_LABELS) if labels_text else None
        scale = parse_scale(args.scale) if getattr(args, "scale", None) else None
        spec = register_own_file(
            args.dataset,
            fields=fields,
            aspect=args.aspect,
            scale=None if scale is None else (scale.low, scale.high),
            labels=labels,
        )
        if spec.task_type != PAIRWISE and not getattr(args, "template", None):
            names = ", ".join("{{" + name + "}}" for name in spec.inputs)
            raise UserError(
                f"{args.dataset}: your own data needs --template FILE, a G-Eval-style prompt with the placeholders "
                f"{names} (and --scale LO-HI unless the template says it, e.g. 'Quality (1-5)')"
            )
        return
    if fields_text or labels_text:
        raise UserError(f"--fields and --labels are for your own file; {args.dataset} is a built-in dataset")
    if language:
        spec = get_dataset(args.dataset)
        if not spec.variants or spec.variant_option != "language":
            raise UserError(f"--language is for xdial_fed_turn and xdial_fed_dialogue, not {args.dataset}")
        if language not in spec.variants:
            raise UserError(f"unknown --language {language!r}; valid: {', '.join(spec.variants)}")
        args.dataset = with_variant(get_dataset(spec.base_name), language).name


def dataset_slug(dataset: str) -> str:
    """A folder-name-safe form of a dataset name (an own file's path becomes its stem)."""
    if looks_like_own_file(dataset):
        dataset = re.sub(r"\.(jsonl|csv|json)$", "", dataset.rsplit("/", 1)[-1], flags=re.IGNORECASE)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset).strip("._") or "dataset"
