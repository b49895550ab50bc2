"""Pairwise (A versus B) evaluation.

Modules: ``prompts`` (P and the pairwise texts, read from ``prompts/``), ``geval``, ``chateval`` and
``debate`` (each method's pairwise form, one order), ``swap`` (``--swap``: both orders), ``aggregate``
(panel majority, agreement of the two orders), ``transcripts`` (verdicts in transcript entries). Each
method re-reads its own pairwise records (``Method.rescore_pairwise``, on ``debates.kit.reread``).
"""
