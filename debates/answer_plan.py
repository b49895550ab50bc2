"""The run's answer formats (``--answer-format``, ``--structured-output``): which roles' answers are
constrained, how, and with which completion caps. The kinds and caps are data
(``debates/prompts/answer_formats.json``); the formats themselves are ``agents.models.answer_format``'s.

==========  ================================================================================================
``auto``    the default: a GBNF grammar on the embedded model (a change to the methods made for the toy model
            only: without it SmolLM2-135M loops to its cap and rarely writes a score), free answers elsewhere
``free``    no constraint: the methods' own free-text answers, parsed as the papers parse them
``grammar`` llama.cpp's ``grammar`` field for every role (the embedded model, or a llama.cpp server)
``json``    a JSON schema for every scoring role: ``{"rationale", "score"}`` or ``{"rationale", "verdict"}``
            (``--structured-output``: OpenAI/Azure/Gemini ``response_format``, llama.cpp ``json_schema``),
            parsed strictly, the free-text parser as the fallback; other roles stay free text
==========  ================================================================================================

``--fidelity authors-code`` runs the authors' free-text exchange: ``auto`` is ``free`` there, and asking
for ``grammar`` or ``json`` is refused.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.answer_format import FREE, GRAMMAR, JSON, KINDS, AnswerPlan
from debate_eval.agents.models.providers import get_provider
from debate_eval.agents.models.settings import ROLES, ModelConfig
from debate_eval.debates.fidelity import AUTHORS_CODE

AUTO = "auto"
REQUESTS = (AUTO, FREE, GRAMMAR, JSON)
DATA_FILE = Path(__file__).resolve().parent / "prompts" / "answer_formats.json"
ANSWER_FORMAT_HELP = (
    "how answers are requested: auto (default: a grammar on the embedded model, which forces a short rationale "
    "and the role's ending - 'Score: N', NO ISSUE or feedback, a verdict - within a per-role cap; free text "
    "elsewhere), free (as the papers), grammar (llama.cpp's GBNF 'grammar' field for every role: the embedded "
    "model or a llama.cpp server), json (a JSON schema, as --structured-output)"
)
STRUCTURED_HELP = (
    "ask scoring roles for JSON {rationale, score} (or a verdict) where the provider supports it (OpenAI/Azure/"
    "Gemini response_format, llama.cpp, vLLM, SGLang); parsed strictly, free-text parser as the fallback; "
    "= --answer-format json; not with --fidelity authors-code"
)


@cache
def answer_data() -> dict[str, Any]:
    """The kinds per role and the embedded model's caps per kind (checked when read)."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    kinds, caps = data["kinds"], data["embedded_caps"]
    unknown = {kind for kind in (*kinds.values(), *caps) if kind not in KINDS}
    if unknown:
        raise ValueError(f"{DATA_FILE}: unknown answer kinds {sorted(unknown)}")
    if any(not isinstance(cap, int) or cap < 1 for cap in caps.values()):
        raise ValueError(f"{DATA_FILE}: every cap must be a positive integer")
    return {"kinds": dict(kinds), "caps": dict(caps)}


def answer_plan(
    requested: str, models: ModelConfig, fidelity: str | None = None, roles: list[str] | None = None
) -> AnswerPlan:
    """The plan for ``requested`` (auto, free, grammar, json) over every role's provider; ``fidelity`` the
    method's (authors-code: free answers only). An explicit grammar or json must be one that the provider of
    each role the run calls (``roles``, default all) can request (``Provider.answer_modes``)."""
    if requested not in REQUESTS:
        raise UserError(f"unknown answer format {requested!r}; choose from {', '.join(REQUESTS)}")
    if fidelity == AUTHORS_CODE and requested in (GRAMMAR, JSON):
        raise UserError(
            f"--answer-format {requested} (or --structured-output) changes the answers the authors' code "
            "parsed: not with --fidelity authors-code"
        )
    requested_mode = FREE if fidelity == AUTHORS_CODE else requested
    modes = {}
    for role in ROLES:
        settings = models.for_role(role)
        provider = get_provider(settings.provider)
        modes[role] = provider.auto_answer_mode if requested_mode == AUTO else requested_mode
        called = roles is None or role in roles or (role == "scorer")
        if requested_mode not in (GRAMMAR, JSON) or not called:
            continue
        if requested_mode not in provider.answer_modes:
            hint = " (--structured-output asks for a JSON schema)" if JSON in provider.answer_modes else ""
            raise UserError(
                f"the {provider.name} provider of the {role} cannot request answers as {requested_mode}: it takes "
                f"{', '.join(provider.answer_modes) or 'no answer format'}{hint}"
            )
        model_modes = provider.answer_modes_of(settings.model)
        if requested_mode not in model_modes:
            flag = f"--answer-format {requested_mode}" + (" (--structured-output)" if requested_mode == JSON else "")
            raise UserError(
                f"{flag} is not available with the {role}'s model {settings.model!r}: the {provider.name} "
                f"provider's table of models gives it {', '.join(model_modes) or 'no answer format'}; choose "
                "another model or another answer format"
            )
    data = answer_data()
    return AnswerPlan(modes=modes, kinds=data["kinds"], caps=data["caps"], requested=requested)


def plan_for_roles(plan: AnswerPlan | None, roles: list[str]) -> dict[str, Any] | None:
    """The plan as config.json and the config hash record it for a run calling ``roles``: None when none of
    them is constrained (so a run with free answers keeps the hash it always had)."""
    if plan is None:
        return None
    modes = {role: plan.mode_for(role) for role in sorted(set(roles))}
    if all(mode == FREE for mode in modes.values()):
        return None
    return {"requested": plan.requested, "modes": modes, "kinds": dict(plan.kinds), "caps": dict(plan.caps)}
