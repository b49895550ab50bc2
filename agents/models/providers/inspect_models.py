"""``inspect``: the judge's calls through inspect_ai's models (extra ``[inspect]``).

``--provider inspect --model openai/gpt-4o`` sends every call of a role to ``inspect_ai.model.get_model(MODEL)``
and its ``generate``: inspect's model providers, keys, retries, ``max_connections``, cache and usage
accounting. ``--model role:NAME`` asks inspect for the model bound to the eval's model role ``NAME``
(``inspect eval --model-role grader=openai/gpt-4o``, or ``Task(model_roles=...)``), ``get_model(role=NAME)``;
outside an eval that binds it, inspect's default model. A model object can be registered (``register_model``)
and named by the key it returns.

Inside an inspect eval (a scorer's call), the calls run on inspect's event loop in the sample's context
(``calls_from_here``): they are model events of the sample's transcript, their usage counts in the eval's
``stats.model_usage``, and they wait for inspect's connection limits. Elsewhere (``debate-eval run``, a
``Judge``) they run where the judge runs.

inspect's own layers replace the run's for this provider: the response cache (inspect's ``cache``), the rate
limiter (``max_connections``) and the endpoint check are left out; the run's retry, answer check and
redaction stay (inspect retries first, with its own policy).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any

from debate_eval.agents.context_value import bound
from debate_eval.agents.models.providers import Provider, register_provider
from debate_eval.agents.models.providers.model_objects import ModelObjects
from debate_eval.agents.models.settings import ModelSettings

ROLE_PREFIX = "role:"  # --model role:NAME: the model inspect binds to the eval's model role NAME
OBJECT_PREFIX = "inspect-model:"  # a registered Model object's key
_MODELS = ModelObjects(OBJECT_PREFIX)


@dataclass(frozen=True)
class Host:
    """Where an inspect eval runs its sample: its event loop and a copy of the sample's context."""

    loop: asyncio.AbstractEventLoop
    context: contextvars.Context


HOST: contextvars.ContextVar[Host | None] = contextvars.ContextVar("debate_eval_inspect_host", default=None)


def calls_from_here() -> contextlib.AbstractContextManager[Host]:
    """Within the block (and the tasks it starts, on any loop), the ``inspect`` provider's calls run on the
    running event loop in the current context: a scorer opens it so the judge's calls are its sample's."""
    return bound(HOST, Host(asyncio.get_running_loop(), contextvars.copy_context()))


def register_model(model: Any) -> str:
    """Register an inspect ``Model`` object for this process: the model name (``--model``) that reaches it."""
    return _MODELS.register(model)


def resolve_model(name: str) -> Any:
    """The inspect ``Model`` a model name means: a registered object, ``role:NAME`` or a model name."""
    from inspect_ai.model import get_model

    if name.startswith(OBJECT_PREFIX):
        return _MODELS.registered(name, "inspect model")
    if name.startswith(ROLE_PREFIX):
        return get_model(role=name.removeprefix(ROLE_PREFIX))
    return get_model(name)


@register_provider
class InspectProvider(Provider):
    """inspect_ai's models: ``--model`` is an inspect model name (``openai/gpt-4o``), ``role:NAME`` or a
    registered model's key."""

    name = "inspect"
    description = "inspect_ai's models (--model openai/gpt-4o, or role:grader for an eval's model role)"
    extra = "inspect"
    sdk_module = "inspect_ai"
    answer_modes = ()
    own_call_layers = True
    checks_endpoint = False

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """An ``InspectModelClient`` (inspect's models have their own HTTP clients)."""
        from debate_eval.agents.models.providers.inspect_client import InspectModelClient

        return InspectModelClient(settings)

    def endpoint_identity(self, settings: ModelSettings, embedded: Any) -> Any:
        """The inspect model name (a role: the role's name, as the eval binds it)."""
        return {"inspect": settings.model}
