"""Who takes part: roles (``roles``: the one vocabulary of role and agent names), personas (system
messages), the Commander, and ``models`` (settings, providers, the client pool). Imports nothing of
``debates`` or ``tasks``."""
