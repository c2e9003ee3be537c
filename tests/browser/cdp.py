"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (no dependencies).

Chromium reads commands from fd 3 and writes replies and events to fd 4, each a JSON object
followed by a NUL byte. One page target, attached in flat mode (commands carry a sessionId).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


KEY_CODES = {"Escape": 27, "Tab": 9, "Enter": 13, "ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40}


def find_chromium():
    """The browser binary: $CHROMIUM, else the first of CANDIDATES on PATH; None if absent."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    return next((path for path in map(shutil.which, CANDIDATES) if path), None)


class Browser:
    def __init__(self, binary, profile_dir, timeout=30.0):
        self.timeout = timeout
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # The child gets our pipe ends as fds 3 (its input) and 4 (its output).
        def child_fds():
            # move both out of the way first: either may itself be fd 3 or 4
            high_r, high_w = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)
        self.process = subprocess.Popen(
            [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile_dir}", "about:blank"],
            # close_fds would run after preexec_fn and close the fds 3 and 4 it set up
            preexec_fn=child_fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        self.session = None

    def close(self):
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, session=True, **params):
        """Send a command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open_page(self, width, height):
        target = self.send("Target.createTarget", session=False, url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", session=False, targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable")
        self.send("Network.enable")
        self.send("Runtime.enable")
        self.resize(width, height)

    def navigate(self, url):
        self.events.clear()
        started = time.monotonic()
        self.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")
        return time.monotonic() - started

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def key(self, key, code, shift=False):
        """Press and release a key (Enter with its text, so a focused button is activated)."""
        for kind in ("keyDown", "keyUp"):
            extra = {"text": "\r"} if key == "Enter" and kind == "keyDown" else {}
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=code, modifiers=8 if shift else 0,
                      windowsVirtualKeyCode=KEY_CODES.get(key, 0), **extra)

    def accessible(self, selector):
        """(role, name) of the first element matching `selector` in the accessibility tree."""
        root = self.send("DOM.getDocument", depth=0)["root"]["nodeId"]
        node = self.send("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        ax = self.send("Accessibility.getPartialAXTree", nodeId=node, fetchRelatives=False)["nodes"][0]
        return ax.get("role", {}).get("value"), ax.get("name", {}).get("value")

    def resize(self, width, height):
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))

    def requests(self):
        """URLs of every request the page made (Network.requestWillBeSent events seen so far)."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]
