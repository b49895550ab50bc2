"""The pairwise (A versus B) task: ``prompts`` (P and the pairwise texts, read from ``prompts/``) and ``swap``
(``--swap``: both orders). Each method's pairwise form lives in its own folder (``debates/<method>/pairwise.py``)
and re-reads its own pairwise records (``Method.rescore_pairwise``, on ``debates.kit.reread``)."""
