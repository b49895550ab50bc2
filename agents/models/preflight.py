"""The endpoint check before a run: one tiny request per distinct endpoint and model.

It goes through the same ``RetryingClient`` as the run, with the run's retry policy (``--max-retries`` and
backoff), so a burst of 5xx, a 429 (with or without Retry-After), a timeout, a reset connection or a 200 whose
body is not JSON is retried exactly as the run would retry it (each retry shown as it happens). What
retrying cannot fix fails at once, in one line naming the endpoint, the role and what came back: a refused
connection or an unknown host (a wrong address: not retried here, though the run retries a refused
connection, e.g. while a server restarts), a rejected key (401/403), an unknown model (404), a refused
request (400), a redirect. An empty answer is no fault of the endpoint: the check passes.

Once an endpoint answers, it is asked what it serves under the model's name (``identify``: the provider's
``served_model``, best effort, ``agents/models/served_model.py``); ``check_endpoints`` returns that per role.
"""

from __future__ import annotations

import socket
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import openai
from autogen_core.models import ChatCompletionClient, UserMessage

from debate_eval.agents.errors import UserError, error_chain, scrub_exception
from debate_eval.agents.models.http_client import final_http_error
from debate_eval.agents.models.responses import BadResponseError, EmptyAnswerError
from debate_eval.agents.models.served_model import ServedModel
from debate_eval.agents.models.settings import ModelSettings, public_url
from debate_eval.agents.models.wrappers import (
    RetryingClient,
    RetryListener,
    RetryPolicy,
    TransportStats,
    print_retry,
)

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
PROMPT = "Reply with OK."
UNKNOWN_HOST_TEXTS = ("Name or service not known", "nodename nor servname", "[Errno -2]")

ClientFactory = Callable[[ModelSettings, "str | None"], ChatCompletionClient]
Identify = Callable[[ModelSettings, "str | None"], Awaitable[ServedModel]]


@dataclass(frozen=True)
class Endpoint:
    """One role's model settings and the URL its requests go to."""

    role: str
    settings: ModelSettings
    base_url: str | None

    @property
    def where(self) -> str:
        """The endpoint as it may be shown (no credentials)."""
        return public_url(self.base_url) if self.base_url else DEFAULT_ENDPOINT


async def check_endpoints(
    endpoints: Iterable[Endpoint],
    build_client: ClientFactory,
    policy: RetryPolicy | None = None,
    stats: TransportStats | None = None,
    on_retry: RetryListener | None = print_retry,
    identify: Identify | None = None,
) -> dict[str, ServedModel]:
    """Send one test request to each distinct (URL, settings and credentials); raise a one-line ``UserError``
    on a lasting fault. What each role's endpoint serves (``identify``, asked once per distinct endpoint
    after it answered), by role; empty without ``identify``.

    ``policy`` is the run's retry policy (default: the role's ``max_retries`` with the default backoff);
    ``on_retry`` is told of each retry. A refused connection or an unknown host is not retried here.
    """
    served: dict[tuple[str | None, str], ServedModel | None] = {}
    by_role: dict[str, ServedModel] = {}
    for endpoint in endpoints:
        key = (endpoint.base_url, endpoint.settings.client_identity())  # a role with its own key is checked too
        if key not in served:
            await check_endpoint(
                endpoint,
                build_client,
                policy or RetryPolicy(max_retries=endpoint.settings.max_retries),
                stats,
                on_retry=on_retry,
            )
            served[key] = await identify(endpoint.settings, endpoint.base_url) if identify else None
        found = served[key]
        if found is not None:
            by_role[endpoint.role] = found
    return by_role


async def check_endpoint(
    endpoint: Endpoint,
    build_client: ClientFactory,
    policy: RetryPolicy,
    stats: TransportStats | None = None,
    on_retry: RetryListener | None = print_retry,
) -> None:
    """One test request to ``endpoint``, retried like the run's requests, except that a refused connection
    or an unknown host fails at once (``unreachable``): a run cannot start against a wrong address."""
    raw = build_client(endpoint.settings, endpoint.base_url)
    client = RetryingClient(
        raw,
        policy,
        stats or TransportStats(),
        on_retry=on_retry,
        endpoint=f"{endpoint.where}, model {endpoint.settings.model}",
        is_final=lambda error: unreachable(error) is not None,
    )
    try:
        await client.create([UserMessage(content=PROMPT, source="user")], extra_create_args={"max_tokens": 1})
    except EmptyAnswerError:
        return  # the endpoint answered; what the model says to "Reply with OK." in one token does not matter
    except Exception as error:
        scrub_exception(error)  # the error stays in the chain as ``__context__``: no key in it either
        raise UserError(describe_failure(endpoint, error, policy.max_retries)) from None
    finally:
        await raw.close()


def unreachable(error: BaseException) -> str | None:
    """ "connection refused" or "unknown host" when that is what ``error`` comes down to (its causes are
    followed), else None: an address that cannot be right, not a passing fault."""
    for current in error_chain(error):
        text = str(current)
        if isinstance(current, ConnectionRefusedError) or "Connection refused" in text or "[Errno 111]" in text:
            return "connection refused"
        if isinstance(current, socket.gaierror) or any(mark in text for mark in UNKNOWN_HOST_TEXTS):
            return "unknown host"
    return None


def proxy_for(url: str) -> str | None:
    """The proxy the environment sends ``url``'s requests through (``HTTP(S)_PROXY``, ``NO_PROXY``), shown
    without credentials, or None."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if not parts.hostname or urllib.request.proxy_bypass_environment(parts.hostname, proxies):
        return None
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    return public_url(proxy) if proxy else None


def describe_failure(endpoint: Endpoint, error: BaseException, max_retries: int) -> str:
    """The one-line message for a failed check: endpoint, role, what came back, what to do."""
    where, role, settings = endpoint.where, endpoint.role, endpoint.settings
    used = f"used by the {role}"
    retried = f"after {max_retries} retries" if max_retries else "with retries off (--max-retries 0)"
    cause = unreachable(error)
    if cause is not None:
        proxy = proxy_for(where)
        via = f" through the proxy {proxy} (from the environment)" if proxy else ""
        return f"cannot reach the model endpoint {where}{via}: {cause} ({used}); check --base-url"
    final = final_http_error(error)
    if final is not None:  # a redirect, too large an answer (perhaps wrapped by the provider's SDK)
        return f"{final} ({used})"
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        key = f"${settings.api_key_env}" if settings.api_key_env else "no API key"
        return (
            f"the endpoint {where} rejected the API key in {key} ({used}): HTTP {error.status_code}: "
            f"{status_text(error)}; check the key"
        )
    if isinstance(error, openai.NotFoundError):
        return (
            f"the endpoint {where} has no model {settings.model!r} ({used}): HTTP 404: {status_text(error)}; "
            "check --model and --base-url"
        )
    if isinstance(error, BadResponseError):
        return f"{error.message} ({retried}; {used})"
    if isinstance(error, openai.APITimeoutError):
        return (
            f"the model endpoint {where} did not answer within {settings.timeout_s:g} s ({retried}; {used}); "
            "raise --timeout or check the endpoint"
        )
    if isinstance(error, openai.APIConnectionError):
        return f"cannot reach the model endpoint {where} ({retried}; {used}): {cause_text(error)}"
    if isinstance(error, openai.APIStatusError):
        transient = error.status_code == 429 or error.status_code >= 500
        return (
            f"the model endpoint {where} answered HTTP {error.status_code} to a test request "
            f"({retried if transient else 'not retried'}; {used}): {status_text(error)}"
        )
    return f"the test request to the model endpoint {where} failed ({used}): {cause_text(error)}"


def status_text(error: openai.APIStatusError) -> str:
    """The server's own error message, on one line and short."""
    body: Any = error.body
    message = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
    return one_line(str(message) if message else str(error.message or type(error).__name__))


def cause_text(error: BaseException) -> str:
    """``error``'s first line, with the first line of its cause in closed brackets."""
    text = one_line(str(error)) or type(error).__name__
    cause = error.__cause__ or error.__context__
    if cause is not None and one_line(str(cause)):
        text = f"{text} ({type(cause).__name__}: {one_line(str(cause))})"
    return text


def one_line(text: str, limit: int = 200) -> str:
    """The first non-empty line of ``text``, at most ``limit`` characters."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."
