"""Fennec's agents and their roles: the criteria writer, the guideline writer, the judge and the corrector, each
with model settings of its own (``--role-model judge=...``, ``$DEBATE_EVAL_JUDGE_MODEL``). Registered with the
role vocabulary (``agents.roles.register_roles``) when this module loads, as the method does."""

from __future__ import annotations

from debate_eval.agents.roles import register_roles

CRITERIA_WRITER_ROLE = "criteria_writer"
GUIDELINE_WRITER_ROLE = "guideline_writer"
JUDGE_ROLE = "judge"
CORRECTOR_ROLE = "corrector"
FENNEC_ROLES = (CRITERIA_WRITER_ROLE, GUIDELINE_WRITER_ROLE, JUDGE_ROLE, CORRECTOR_ROLE)

CRITERIA_WRITER = "CriteriaWriter"
GUIDELINE_WRITER = "GuidelineWriter"
JUDGE = "Judge"
CORRECTOR = "Corrector"

AGENT_ROLES = {  # agent name -> role
    CRITERIA_WRITER: CRITERIA_WRITER_ROLE,
    GUIDELINE_WRITER: GUIDELINE_WRITER_ROLE,
    JUDGE: JUDGE_ROLE,
    CORRECTOR: CORRECTOR_ROLE,
}
register_roles(AGENT_ROLES, FENNEC_ROLES)
