"""A minimal headless-Chromium driver over the DevTools protocol on a pipe (``--remote-debugging-pipe``), for
the report's browser tests (tests/tasks/analysis/test_report_browser.py) and the docs' screenshots
(``scripts/demos/report_demo.py --screenshot``). A test and demo tool: it does not ship in the package.

Why this and not selenium or playwright: Chromium itself speaks the protocol on file descriptors 3 and 4,
so the test needs only the Debian ``chromium`` package and the standard library: no Python dependency, no
driver binary whose version must match the browser, no browser download. The protocol is the one
Puppeteer and Playwright drive Chromium with; this uses a handful of its commands.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium() -> str | None:
    """The browser executable (``$CHROMIUM`` first), or None when there is none that can run."""
    if os.environ.get("CHROMIUM"):
        return shutil.which(os.environ["CHROMIUM"])
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


class Browser:
    """One headless Chromium with one page; ``events`` collects the protocol events seen so far."""

    def __init__(self, executable: str, timeout_s: float = 60.0) -> None:
        self.timeout_s = timeout_s
        self.events: list[dict[str, Any]] = []
        self._profile = tempfile.mkdtemp(prefix="report-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds() -> None:  # the protocol pipes on fds 3 (in) and 4 (out), as Chromium expects
            reading, writing = os.dup(to_browser_r), os.dup(from_browser_w)  # neither can be 3 or 4 any more
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        args = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-dev-shm-usage", "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
                "--window-size=1400,1000", "about:blank"]  # fmt: skip
        self._process = subprocess.Popen(
            args, preexec_fn=child_fds, pass_fds=(3, 4),  # kept open after preexec_fn (subprocess closes the rest)
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.session: str | None = None
        target = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    # ------------------------------------------------------------------------------------------ protocol

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("no answer from Chromium in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the protocol pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command (to the page session once attached) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for_event(self, name: str) -> dict[str, Any]:
        """Wait for the next event called ``name`` (one already received counts)."""
        deadline = time.monotonic() + self.timeout_s
        for event in self.events:
            if event["method"] == name and not event.get("_seen"):
                event["_seen"] = True
                return event
        while True:
            event = self._read_message(deadline)
            if "method" in event:
                self.events.append(event)
                if event["method"] == name:
                    event["_seen"] = True
                    return event

    # ------------------------------------------------------------------------------------------ helpers

    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event."""
        for event in self.events:  # a load event of the previous page does not count
            event["_seen"] = True
        uri = path.resolve().as_uri()
        self.call("Page.navigate", url=uri)
        self.wait_for_event("Page.loadEventFired")
        self.wait_until(f"document.URL === {json.dumps(uri)} && document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (exceptions raise)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, expression: str) -> None:
        """Poll a JavaScript expression until it is truthy (``TimeoutError`` after the browser's timeout)."""
        deadline = time.monotonic() + self.timeout_s
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} never became true")
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the centre of the first element matching ``selector``."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def type_into(self, selector: str, text: str) -> None:
        """Focus an input and type ``text`` as keyboard input."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)

    def resize(self, width: int, height: int) -> None:
        """Set the viewport size in CSS pixels."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def screenshot(self, path: Path) -> Path:
        """Save a PNG of the viewport."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (CSP violations among them)."""
        out = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                out.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(json.dumps(params.get("args", []))[:500])
            elif event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", "")[:500])
        return out

    def close(self) -> None:
        """Close the browser (killed if it does not exit in 10 s) and remove its profile."""
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close")
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
