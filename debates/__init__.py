"""The evaluation methods: ``base`` (the ``Method`` interface and registry), one module or folder per method
(``debate/``, ``geval``, ``chateval/``, ``pairwise/``, ...), ``scoring/`` (score and verdict parsers,
untrusted text) and the shared pieces (``evaluation``: task and outcome; ``transcript``; ``group_chat``)."""
