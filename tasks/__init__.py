"""debate_eval.tasks."""
