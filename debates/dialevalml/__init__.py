"""DialEvalML's prompted submetric: ``method`` (registration, options, evaluation) and its ``prompts/``."""
