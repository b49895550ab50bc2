"""G-Eval: ``method`` (its registration, options and single-score form) and ``pairwise`` (its verdict form)."""
