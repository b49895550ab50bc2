"""debate_eval.debates."""
