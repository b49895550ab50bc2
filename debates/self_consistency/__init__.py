"""``self-consistency``: K samples of any method's judge, combined (``method``: the registration, a sample's
vote, and re-reading the samples' transcripts)."""
