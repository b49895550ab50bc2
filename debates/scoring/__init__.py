"""Reading answers: the score parser (``scores`` and its rules), pairwise verdicts, untrusted text."""
