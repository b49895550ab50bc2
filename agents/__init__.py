"""debate_eval.agents."""
