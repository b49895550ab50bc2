"""The registry of host model objects: one key per object (registering it again gives the same key), keys
numbered under the prefix, an unknown key None."""

from __future__ import annotations

from debate_eval.agents.models.providers.model_objects import ModelObjects


def test_each_object_gets_one_key_under_the_prefix() -> None:
    objects = ModelObjects("test-model:")
    first, second = object(), object()
    assert objects.register(first) == "test-model:1"
    assert objects.register(second) == "test-model:2"
    assert objects.register(first) == "test-model:1"
    assert objects.get("test-model:2") is second
    assert objects.get("test-model:3") is None
