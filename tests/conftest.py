"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The repository's parent folder holds ``shared/data`` in the development checkout (tests/ -> repo -> parent).
_DEFAULT_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _require_data() -> bool:
    return os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1"


def _packaged_copies(folder: Path) -> Path:
    """Write the verified packaged copies (SummEval, Topical-Chat) into ``folder`` in the data layout."""
    from debate_eval.tasks.data.datasets import all_datasets
    from debate_eval.tasks.data.packaged import packaged_bytes

    for spec in all_datasets().values():
        if spec.shipped:
            path = folder / spec.relative_path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(packaged_bytes(spec))
    return folder


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder with the real dataset files: ``$DEBATE_EVAL_DATA_DIR``, else ``../shared/data``, else the
    folder ``debate-eval data download`` fills (``~/.cache/debate-eval/data``).

    When none has SummEval, the packaged copies of SummEval and Topical-Chat (verified against their git blob
    ids) are written to a temporary folder and that is used, so no test skips for want of them; the other
    sets are then missing and their tests skip (see ``dataset_path``). With ``DEBATE_EVAL_REQUIRE_DATA=1``
    (CI) a missing folder fails instead.
    """
    from debate_eval.tasks.data.datasets import default_data_dir

    candidates = [Path(os.environ["DEBATE_EVAL_DATA_DIR"])] if os.environ.get("DEBATE_EVAL_DATA_DIR") else []
    candidates += [_DEFAULT_SHARED_DATA, default_data_dir()]
    found = next((c for c in candidates if (c / "summeval" / "summeval.json").is_file()), None)
    if found is not None:
        return found
    if _require_data():
        pytest.fail(
            f"DEBATE_EVAL_REQUIRE_DATA=1 but no data folder has summeval/summeval.json (looked in "
            f"{', '.join(map(str, candidates))}); set DEBATE_EVAL_DATA_DIR to the shared data folder"
        )
    return _packaged_copies(tmp_path_factory.mktemp("packaged-data"))


@pytest.fixture(scope="session")
def dataset_path(shared_data_dir: Path) -> Callable[[str], Path]:
    """``dataset_path(name)``: the real file of a registered dataset under ``shared_data_dir``.

    Outside CI a set that is not there (FED, xDial, FairEval, PandaLM, Auto-J do not ship) skips the test
    with the reason; with ``DEBATE_EVAL_REQUIRE_DATA=1`` it fails.
    """
    from debate_eval.tasks.data.datasets import get_dataset

    def find(name: str) -> Path:
        spec = get_dataset(name)
        path = shared_data_dir / spec.relative_path
        if not path.is_file():
            reason = (
                f"dataset {name}: {path} not found (it does not ship with the package); set "
                f"DEBATE_EVAL_DATA_DIR to the shared data folder or run `debate-eval data download --dataset {name}`"
            )
            if _require_data():
                pytest.fail(reason)
            pytest.skip(reason)
        return path

    return find


# Proxy settings of the machine's environment: every test server is on 127.0.0.1, and a proxy there would
# carry (or refuse) the tests' requests; a test of proxies sets its own.
PROXY_VARIABLES = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
)  # fmt: skip


@pytest.fixture(autouse=True)
def independent_test(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What every test starts without, for itself and the processes it starts:

    - a proxy of the environment the suite runs in (every test server is on 127.0.0.1; a test of proxies sets
      its own);
    - an answer cached by an earlier test or an earlier run of the suite: the model calls are cached in a
      folder of the test's own, never in ``~/.cache/debate-eval`` (a cache hit would make a call the test
      counts on a server vanish);
    - a rate limiter a judge of an earlier test registered: that registry is process-wide and keyed on the
      endpoint's URL, and a test server may get the port an earlier test's server had.

    A ``MonkeyPatch`` of its own (not the ``monkeypatch`` fixture), so the fixtures of a test and its own
    ``monkeypatch`` are set up and torn down in the order they would be without this one.
    """
    from debate_eval.agents.models import shared_limits

    patch = pytest.MonkeyPatch()
    for name in PROXY_VARIABLES:
        patch.delenv(name, raising=False)
    patch.setenv("DEBATE_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("llm-cache")))
    patch.setattr(shared_limits, "_LIMITERS", {})
    try:
        yield
    finally:
        patch.undo()


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shared_data_dir: Path) -> Path:
    """A clean environment for command-line runs: no model settings from the developer's environment or
    .env, the real data, a private response cache, and ``tmp_path`` as the working directory."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "DEBATE_EVAL_")) and name != "DEBATE_EVAL_REQUIRE_DATA":
            monkeypatch.delenv(name)
    monkeypatch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))
    monkeypatch.setenv("DEBATE_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# Forms of a marker that only look like it: a test that takes the ``disguise`` argument runs
# once per form, with a function that writes a text in that form.
_CYRILLIC = str.maketrans("ABCEHIKMOPSTXacopsxy", "АВСЕНІКМОРЅТХасорѕху")
_GREEK = str.maketrans("ABEHIKMNOPTXYZov", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖον")


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


def _zero_width(text: str) -> str:
    """ "NO ISSUE" -> "NO\u200bIS\u200dSUE": the space becomes a zero-width space, the last word gets a joiner."""
    head, _, last = text.rpartition(" ")
    middle = max(1, len(last) // 2)
    return (head + "\u200b" if head else "") + last[:middle] + "\u200d" + last[middle:]


def _bidi(text: str) -> str:
    """Bidi controls around and inside: an isolate, a right-to-left mark, an embedding."""
    return "\u2067" + text[:1] + "\u200f" + text[1:].replace(" ", " \u202a", 1) + "\u202c\u2069"


DISGUISES: dict[str, Callable[[str], str]] = {
    "fullwidth": _fullwidth,
    "zero_width": _zero_width,
    "bidi": _bidi,
    "cyrillic": lambda text: text.translate(_CYRILLIC),
    "greek": lambda text: text.translate(_GREEK),
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that asks for ``disguise`` over ``DISGUISES``."""
    if "disguise" in metafunc.fixturenames:
        metafunc.parametrize("disguise", list(DISGUISES.values()), ids=list(DISGUISES))


@pytest.fixture(scope="session")
def disguises() -> dict[str, Callable[[str], str]]:
    """All of ``DISGUISES`` at once, by name (for a test that plants every form in one run)."""
    return dict(DISGUISES)


# ------------------------------------------------------------------------------------- a recording proxy


class RecordingProxy:
    """A CONNECT-less HTTP forward proxy on 127.0.0.1 that records what passes (use as a context manager).

    Clients configured with ``HTTP_PROXY=proxy.url`` send it ``POST http://host:port/path`` requests; it
    forwards each to its target, which must be on the loopback (anything else is answered 502, never sent),
    and appends ``(method, url)`` to ``requests``. ``CONNECT`` (HTTPS through a proxy) is answered 405.
    Bounded: at most ``max_requests`` forwarded and ``lifetime_s`` seconds, then it stops by itself.
    """

    LOOPBACK = ("127.0.0.1", "localhost", "::1")

    def __init__(self, max_requests: int = 500, lifetime_s: float = 600.0) -> None:
        import threading

        self.max_requests, self.lifetime_s = max_requests, lifetime_s
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.url = ""
        self._server: Any = None

    def urls(self) -> list[str]:
        """The URLs of the requests that passed, in order."""
        with self.lock:
            return [url for _, url in self.requests]

    def __enter__(self) -> RecordingProxy:
        from debate_eval.agents.models.providers.local_server import FAKE_SERVING, LocalServer

        self._server = LocalServer(_proxy_handler(self), lifetime_s=self.lifetime_s, **FAKE_SERVING)
        self.url = self._server.root
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        if self._server is not None:
            self._server.stop()


def _proxy_handler(proxy: RecordingProxy) -> type:
    import http.client
    import urllib.parse

    from debate_eval.agents.models.providers.local_server import QuietHandler

    hop_by_hop = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}

    class Handler(QuietHandler):
        def _reply(self, status: int, body: bytes, headers: Iterable[tuple[str, str]] = ()) -> None:
            kept = [(k, v) for k, v in headers if k.lower() not in hop_by_hop and k.lower() != "content-length"]
            self.send_bytes(status, body, None, kept)

        def do_CONNECT(self) -> None:
            self._reply(405, b"this test proxy does not tunnel (no CONNECT)")

        def _forward(self) -> None:
            target = urllib.parse.urlsplit(self.path)
            body = self.read_body()
            with proxy.lock:
                full = len(proxy.requests) >= proxy.max_requests
                if not full:
                    proxy.requests.append((self.command, self.path))
            if full or target.scheme != "http" or target.hostname not in RecordingProxy.LOOPBACK:
                self._reply(502, b"refused by the test proxy")
                return
            upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in hop_by_hop}
                path = target.path + (f"?{target.query}" if target.query else "")
                upstream.request(self.command, path, body=body or None, headers=headers)
                answer = upstream.getresponse()
                self._reply(answer.status, answer.read(), answer.getheaders())
            except OSError as exc:
                self._reply(502, f"test proxy: {exc}".encode())
            finally:
                upstream.close()

        do_GET = do_POST = do_PUT = do_DELETE = _forward

    return Handler


@pytest.fixture
def recording_proxy() -> Iterator[RecordingProxy]:
    """A started ``RecordingProxy`` (``.url``, ``.urls()``), stopped after the test. Point a client at it with
    ``monkeypatch.setenv("HTTP_PROXY", recording_proxy.url)``."""
    with RecordingProxy() as proxy:
        yield proxy
