"""A page opened in real headless Chromium, driven over the DevTools protocol
(``--remote-debugging-pipe``: JSON messages ending in NUL on fds 3 and 4).

:func:`open_page` loads a file, waits for its load event, and returns what
the page requested (the page's own network requests, not the browser's
background ones), what it logged as errors (console errors, exceptions,
Content-Security-Policy refusals) and a full-page PNG screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


class Opened(NamedTuple):
    requests: list[str]  # URLs the page asked for, the document first
    errors: list[str]
    png: bytes
    title: str


def browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


class _Pipe:
    def __init__(self, proc: subprocess.Popen[bytes], send: int, recv: int) -> None:
        self.proc, self.send_fd, self.recv_fd = proc, send, recv
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.send_fd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._read())
        raise TimeoutError(method)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            chunk = os.read(self.recv_fd, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return dict(json.loads(raw))


def _errors(events: list[dict[str, Any]]) -> list[str]:
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(str(params.get("exceptionDetails", {}).get("text")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append(json.dumps(params.get("args")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            found.append(str(params["entry"].get("text")))
        elif method == "Network.loadingFailed":
            found.append(f"failed to load: {params.get('errorText')}")
    return found


def open_page(path: Path, width: int = 1100) -> Opened:
    exe = browser()
    assert exe, "no Chromium: install it (apt-get install chromium; .ci/run does)"
    to_browser, from_us = os.pipe()
    from_browser, to_us = os.pipe()

    def onto_3_and_4() -> None:  # in the child: the browser reads fd 3, writes fd 4
        os.dup2(to_browser, 3)
        os.dup2(to_us, 4)

    with tempfile.TemporaryDirectory() as profile:
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                f"--user-data-dir={profile}", "--no-first-run", "--hide-scrollbars",
                "--disable-background-networking", "about:blank"]  # fmt: skip
        proc = subprocess.Popen(
            args,
            preexec_fn=onto_3_and_4,
            pass_fds=(3, 4),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for fd in (to_browser, to_us):
            os.close(fd)
        pipe = _Pipe(proc, from_us, from_browser)
        try:
            return _visit(pipe, path, width)
        finally:
            try:
                pipe.call("Browser.close")
            except (RuntimeError, OSError):
                pass
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            os.close(from_us)
            os.close(from_browser)


def _visit(pipe: _Pipe, path: Path, width: int) -> Opened:
    targets = pipe.call("Target.getTargets")["targetInfos"]
    page = next(t["targetId"] for t in targets if t["type"] == "page")
    session = pipe.call("Target.attachToTarget", targetId=page, flatten=True)["sessionId"]
    for domain in ("Page", "Network", "Runtime", "Log"):
        pipe.call(f"{domain}.enable", session)
    pipe.call(
        "Emulation.setDeviceMetricsOverride",
        session,
        width=width,
        height=900,
        deviceScaleFactor=1,
        mobile=False,
    )
    pipe.events.clear()
    pipe.call("Page.navigate", session, url=path.resolve().as_uri())
    pipe.wait_for("Page.loadEventFired")
    time.sleep(0.5)  # anything the page would fetch late
    pipe.call("Runtime.evaluate", session, expression="1")  # drain the events so far
    size = pipe.call("Page.getLayoutMetrics", session)["cssContentSize"]
    shot = pipe.call(
        "Page.captureScreenshot",
        session,
        format="png",
        captureBeyondViewport=True,
        clip={"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1},
    )
    title = pipe.call("Runtime.evaluate", session, expression="document.title")
    requests = [
        e["params"]["request"]["url"]
        for e in pipe.events
        if e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == session
    ]
    return Opened(
        requests,
        _errors([e for e in pipe.events if e.get("sessionId") == session]),
        base64.b64decode(shot["data"]),
        str(title["result"].get("value")),
    )
