"""``deepeval``: a model object of the host program (deepeval's ``DeepEvalBaseLLM``, or any object with
``a_generate(prompt)`` or ``generate(prompt)`` taking one text), registered in the process
(``register_model``) and named by the key it returns (``--model deepeval-model:1``).

Such an object takes one prompt text, so each call's messages are written as one text, each under its role
(``System:``, ``User:``, ``Assistant:``), and its answer is the call's. It reports no token counts (they are
0, so no cost is estimated; of an answer given as ``(text, cost)``, deepeval's native models' shape, the text is
taken). The run's layers stay: rate limits, retries, the response cache, the answer check and the masking of
secrets.
"""

from __future__ import annotations

from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers import Provider, register_provider
from debate_eval.agents.models.providers.model_objects import ModelObjects
from debate_eval.agents.models.settings import ModelSettings

OBJECT_PREFIX = "deepeval-model:"
MODEL_OBJECTS = ModelObjects(OBJECT_PREFIX)  # the registered objects (``registered``: one, or a UserError)


def register_model(model: Any) -> str:
    """Register a model object (``a_generate`` or ``generate`` of one text) for this process: the model name
    (``--model``) that reaches it."""
    if not callable(getattr(model, "a_generate", None)) and not callable(getattr(model, "generate", None)):
        raise UserError(f"{type(model).__name__} has no generate(prompt) or a_generate(prompt): not a model object")
    return MODEL_OBJECTS.register(model)


@register_provider
class DeepEvalModelProvider(Provider):
    """A registered model object: ``--model`` is the key ``register_model`` returned."""

    name = "deepeval"
    description = "a model object registered in the process (deepeval's DeepEvalBaseLLM): --model deepeval-model:N"
    answer_modes = ()
    checks_endpoint = False

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """A ``CallableModelClient`` over the registered object."""
        from debate_eval.agents.models.providers.callable_client import CallableModelClient

        return CallableModelClient(settings)

    def endpoint_identity(self, settings: ModelSettings, embedded: Any) -> Any:
        """The object's model name, where it gives one (``get_model_name``), so two objects of one model
        share cached answers; else the registration key."""
        model = MODEL_OBJECTS.get(settings.model)
        name = getattr(model, "get_model_name", None)
        try:
            return {"model": str(name()) if callable(name) else settings.model}
        except Exception:  # a model object without a usable name
            return {"model": settings.model}
