"""Fennec (Liang et al. 2023) as a method of this project: branching evaluation and correction.

Per item, a criteria writer names ``k`` criteria from the query alone, a guideline writer writes each
criterion's scoring guideline, a judge grades the response (or the two responses) under each criterion, and
the branch judgments are merged (mean score; summed preferences). A corrector may then rewrite low-scored or
losing responses from the judges' comments. Modules: ``prompts`` (data files in ``prompts/``), ``criteria``
(the list parser), ``merge``, ``team`` (the agents and branches), ``correction``, ``method``
(the registered method). A branch's judgment is read by ``debates/fennec/branch_judgments.py``.
"""
