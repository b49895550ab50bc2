"""Model access: ``settings`` (one typed configuration per role), ``providers`` (openai-compatible, embedded
llama.cpp, the scripted test server), ``pool`` (one client stack per endpoint), the client layers
(``client_layers``, ``retry``, ``recording``; ``wrappers`` re-exports them), the pre-flight check and batching."""
