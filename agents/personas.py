"""System messages and the persona registry.

Every built-in text is quoted from its paper, with the place it comes from in ``source``:

- DEBATE: Kim, Kim & Yoon (2024), "DEBATE: Devil's Advocate-Based Assessment and Text Evaluation",
  Section 2 (the Devil's Advocate prompt), Appendix C (the sophisticated prompt) and Appendix G.1
  (Commander, Scorer, Critic personas, Tie-breaker).
- ChatEval: Chan et al. (2023), Appendix A (the referee role descriptions); ``authors-critic`` is the
  Critic of their released FairEval configuration (Apache-2.0), which spells "judgement".
- The authors' released code (``--fidelity authors-code``): the system messages of ``gunny97/DEBATE``
  (``debate.py``, the official code) and of the ``tiebreaker`` branch of ``sangwongenip/geval``
  (``autogen_eval_debate.py``), byte for byte: typographic apostrophes, the typo "agetns" and the
  indentation of their triple-quoted strings included (those strings were sent to the API as they are).

The built-in texts, with their sources and descriptions, are data: ``personas.json`` beside this module, as the
methods' prompts are (``debates/prompts``, ``tasks/engine/prompts``).

A persona can also come from a user's text file, so that an ablation needs no code change:
``--critic my_critic.txt`` reads the file's whole text as the Critic's system message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import PERSONA_ROLES

ROLES = PERSONA_ROLES  # the roles that have personas (agents.roles holds the one vocabulary)


@dataclass(frozen=True)
class Persona:
    """A named system message for one role."""

    name: str
    role: str
    text: str
    source: str
    description: str = ""

    def to_dict(self) -> dict[str, str]:
        """The persona as JSON-ready data (for config.json and transcripts): every field, in order."""
        return asdict(self)


PERSONAS_FILE = "personas.json"  # the built-in personas, beside this module (package data)
_BUILTINS: tuple[Persona, ...] = tuple(
    Persona(**entry) for entry in json.loads(resources.files(__package__).joinpath(PERSONAS_FILE).read_text("utf-8"))
)
_REGISTRY: dict[tuple[str, str], Persona] = {(p.role, p.name): p for p in _BUILTINS}


def list_personas(role: str | None = None) -> list[Persona]:
    """All built-in personas, optionally only those of one role, in registry order."""
    return [p for p in _BUILTINS if role is None or p.role == role]


def persona_names(role: str) -> list[str]:
    """The built-in persona names for ``role``."""
    return [p.name for p in list_personas(role)]


def get_persona(name_or_path: str, role: str) -> Persona:
    """Resolve a built-in persona by name, or read one from a text file.

    ``name_or_path`` is first looked up among the built-in personas of ``role``; if it is not one of
    them and names an existing file, the file's text (stripped) becomes the system message.
    """
    if role not in ROLES:
        raise UserError(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")
    builtin = _REGISTRY.get((role, name_or_path))
    if builtin is not None:
        return builtin
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return _read_persona_file(path, role)
    hint = "" if path.suffix == "" else f" (no file at {path})"
    raise UserError(
        f"unknown {role} persona {name_or_path!r}{hint}; built-in {role} personas are: "
        f"{', '.join(persona_names(role))}; or pass the path of a text file holding the system message"
    )


def _read_persona_file(path: Path, role: str) -> Persona:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: persona file is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read persona file: {exc.strerror}") from None
    if not text:
        raise UserError(f"{path}: persona file is empty")
    return Persona(name=path.stem, role=role, text=text, source=f"file:{path.resolve()}")


def format_personas(personas: Iterable[Persona]) -> str:
    """Human-readable listing for ``debate-eval personas``."""
    blocks = []
    for p in personas:
        header = f"[{p.role}] {p.name}"
        if p.description:
            header += f" - {p.description}"
        blocks.append(f"{header}\n  source: {p.source}\n  text: {p.text}")
    return "\n\n".join(blocks)
