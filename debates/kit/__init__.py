"""What methods share: k independent samples of a judge (``samples``) and combining samples' scores and verdicts
(``combine``)."""
