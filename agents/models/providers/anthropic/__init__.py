"""The ``anthropic`` provider: Anthropic's native Messages API.

- ``provider.py``: the provider (``AnthropicProvider``: key, URL, request options, AutoGen's
  ``AnthropicChatCompletionClient``; extra ``[anthropic]``);
- ``clients.py``: ``CacheCountedClient``, a call's prompt tokens with the cached ones counted in, and
  ``ToolAnswerClient``, a structured answer asked for through a forced tool call;
- ``messages_response.py``: the run's HTTP client's check of a Messages API answer (prompt-cache usage, empty
  answers).

Nothing is imported here, so the HTTP layer can use ``messages_response`` without loading the provider.
"""
