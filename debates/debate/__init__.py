"""DEBATE (Algorithm 1) on AutoGen: ``algorithm`` (the state machine), ``team`` (MultiAgentsDebate), ``run``
(one item), ``method`` (the registered debate, multiagent, tiebreaker and both)."""
