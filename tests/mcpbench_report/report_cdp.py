"""A minimal headless-Chromium driver over the DevTools protocol on a pipe (--remote-debugging-pipe).

No websocket and no third-party package: Chromium reads JSON commands from fd 3 and writes replies and
events to fd 4, each message terminated by a NUL byte. Enough to load a page, collect console errors and
exceptions, evaluate JavaScript and take a screenshot.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars")


class CDPError(RuntimeError):
    pass


def _high(fd: int) -> int:
    """The same pipe end on a descriptor number >= 10 (the original is closed)."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


class Chromium:
    def __init__(self, user_data_dir: Path, binary: Path = CHROMIUM, timeout: float = 60.0):
        self.timeout = timeout
        cmd_r, self._cmd_w = os.pipe()     # we write commands, chromium reads them on fd 3
        self._evt_r, evt_w = os.pipe()     # chromium writes on fd 4, we read
        # the child's ends must not themselves be 3 or 4, or moving them there would clobber one another
        cmd_r, evt_w = (_high(fd) for fd in (cmd_r, evt_w))
        args = [str(binary), *FLAGS, f"--user-data-dir={user_data_dir}", "--remote-debugging-pipe", "about:blank"]
        # bash (dash only knows one-digit descriptors) moves the pipe ends to fds 3 and 4, then execs chromium
        script = f'exec "$0" "$@" 3<&{cmd_r} 4>&{evt_w} {cmd_r}<&- {evt_w}>&-'
        self.stderr_path = user_data_dir / "chromium-stderr.log"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(["/bin/bash", "-c", script, *args], pass_fds=(cmd_r, evt_w),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._stderr)
        os.close(cmd_r)
        os.close(evt_w)
        self._next_id = 0
        self._replies: dict[int, queue.Queue] = {}
        self.events: list[dict] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session: str | None = None

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._evt_r, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._lock:
                        q = self._replies.get(msg["id"])
                    if q is not None:
                        q.put(msg)
                else:
                    with self._lock:
                        self.events.append(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = "default") -> dict:
        with self._lock:
            self._next_id += 1
            mid = self._next_id
            q: queue.Queue = queue.Queue()
            self._replies[mid] = q
        msg: dict = {"id": mid, "method": method, "params": params or {}}
        sid = self.session if session == "default" else session
        if sid:
            msg["sessionId"] = sid
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        try:
            reply = q.get(timeout=self.timeout)
        except queue.Empty:
            raise CDPError(f"no reply to {method} within {self.timeout} s") from None
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open_page(self, width: int = 1280, height: int = 900) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=None)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=None)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def navigate(self, url: str) -> None:
        start = len(self.events)
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            with self._lock:
                if any(e.get("method") == "Page.loadEventFired" for e in self.events[start:]):
                    return
            time.sleep(0.05)
        raise CDPError(f"{url} did not finish loading within {self.timeout} s")

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise CDPError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Uncaught exceptions, console.error/assert calls and error-level log entries (failed loads…)."""
        out = []
        with self._lock:
            events = list(self.events)
        for e in events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append("console." + params["type"] + ": " + json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                out.append(f"log: {entry.get('text')} ({entry.get('url', '')})")
        return out

    def screenshot(self, path: Path, full_page: bool = False, height: int | None = None) -> None:
        """PNG of the viewport, of the top `height` CSS pixels of the page, or of the whole page."""
        params: dict = {"format": "png"}
        if full_page or height:
            metrics = self.send("Page.getLayoutMetrics")
            size = metrics["cssContentSize"]
            width = metrics["cssLayoutViewport"]["clientWidth"]
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": width,
                              "height": size["height"] if full_page else min(height, size["height"]), "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", session=None)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._cmd_w, self._evt_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
