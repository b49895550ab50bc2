"""``self-consistency``: K samples of any method's judge, combined (``method``: the registration; ``rescore``:
re-reading the samples' transcripts)."""
