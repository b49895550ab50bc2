"""``--config run.toml``: a run's options in a TOML file, and ``--dump-config``: a request written as one.

The file is flat: one key per option, named as the ``RunRequest`` field (the flag's name with ``_``, ``-``
accepted too), a method's own options among them::

    dataset = "summeval"
    aspect = "coherence"
    method = "debate"
    max_rounds = 3              # the debate's --max-rounds
    limit = 8
    role_model = { critic = "gpt-4o-mini" }

Read with the standard library's ``tomllib`` (Python 3.11+) or its backport ``tomli`` on 3.10.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import REDACTED, redact, url_secrets
from debate_eval.tasks.engine.request import RunRequest

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_module() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # the backport, a dependency on Python 3.10 only

    return tomli


def toml_value(text: str) -> Any:
    """``text`` read as one TOML value (``2``, ``true``, ``0.5``, ``"a,b"``); text that is none (a bare word such
    as ``geval``) is itself."""
    toml = _toml_module()
    try:
        return toml.loads(f"value = {text}")["value"]
    except toml.TOMLDecodeError:
        return text


def read_request_file(path: str | os.PathLike[str]) -> RunRequest:
    """The request a TOML file holds; one ``UserError`` line naming the file for a missing file, bad TOML, a
    bad value or a key that is neither a run option nor any method's option."""
    return read_config_file(path)[0]


def read_config_file(path: str | os.PathLike[str], own: Collection[str] = ()) -> tuple[RunRequest, dict[str, Any]]:
    """:func:`read_request_file`, with the values of the keys named in ``own`` (a command's own options, such
    as the audit's ``repeats``; ``-`` read as ``_``) set apart, by name."""
    from debate_eval.debates.base import check_option_names

    file = Path(path).expanduser()
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{file}: config file not found") from None
    except OSError as error:
        raise UserError(f"{file}: cannot read the config file ({error.strerror})") from None
    toml = _toml_module()
    try:
        values = toml.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UserError(f"{file}: not valid UTF-8 at byte offset {error.start}") from None
    except toml.TOMLDecodeError as error:
        raise UserError(f"{file}: not valid TOML: {error}") from None
    values = {str(name).replace("-", "_"): value for name, value in values.items()}
    own_values = {name: values.pop(name) for name in own if name in values}
    request = RunRequest.from_mapping(values, source=str(file))
    try:
        check_option_names(request.method_options)
    except UserError as error:
        raise UserError(f"{file}: {error}") from None
    return request, own_values


def request_toml(request: RunRequest, own: Mapping[str, Any] | None = None) -> str:
    """The TOML text of the options ``request`` sets (``--dump-config``), then a command's ``own`` options
    (:func:`read_config_file`); reading it back gives the same request. Validated as a run validates it (an
    option no method declares is the run's ``UserError``), and with secrets masked: a key named like one
    (``api_key``, ``token``, ...) and any configured or key-shaped value (``agents/redaction.py``) is written
    ``[redacted]``."""
    from debate_eval.debates.base import check_option_names

    check_option_names(name for name, value in request.method_options.items() if value is not None)
    values = [(name, value) for name, value in request.given().items() if name != "method_options"]  # field order
    values += [(name, value) for name, value in request.method_options.items() if value is not None]
    values += list((own or {}).items())
    return "\n".join(f"{_key(name)} = {_value(_masked(name, value))}" for name, value in values) + "\n"


_SECRET_KEY = re.compile(r"(api_?key|token|secret|password|passwd)$", re.IGNORECASE)


def _masked(name: str, value: Any) -> Any:
    """``value`` as ``--dump-config`` may print it: ``[redacted]`` under a secret's name, else with every
    secret in its text masked."""
    if _SECRET_KEY.search(name) and isinstance(value, str) and value:
        return REDACTED
    if isinstance(value, str):
        text = redact(value)
        for secret in url_secrets(value):  # a ``--base-url``'s credentials, which a run registers as secrets
            text = text.replace(secret, REDACTED)
        return text
    if isinstance(value, Mapping):
        return {key: _masked(str(key), item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(name, item) for item in value]
    return value


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} to TOML")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML's basic-string escapes
    if isinstance(value, os.PathLike):
        return json.dumps(os.fspath(value), ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ValueError(f"cannot write {type(value).__name__} to TOML")
