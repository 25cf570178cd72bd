"""Headless Chromium driven over the DevTools protocol, for the served app (tests/tui/test_serve.py).

The page draws the terminal on a canvas (xterm.js with its WebGL / canvas renderers), so the
screen is read from xterm.js's own buffer: a script run before the page's sets a one-shot
setter for `fitAddon` on Object.prototype, which textual-serve's client assigns in its
constructor, and so hands over the client (and its `terminal`) as `window.__textualClient`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

CATCH_CLIENT = """
Object.defineProperty(Object.prototype, "fitAddon", {
  configurable: true,
  set(value) {
    window.__textualClient = this;
    Object.defineProperty(this, "fitAddon", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""

SCREEN_TEXT = """(() => {
  const client = window.__textualClient;
  if (!client || !client.terminal) return null;
  const buffer = client.terminal.buffer.active, rows = [];
  for (let y = 0; y < client.terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()"""


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium with a fresh profile; `async with Browser() as b: await b.open(url)`."""

    def __init__(self, width: int = 1400, height: int = 900) -> None:
        self.size = (width, height)
        self.process: subprocess.Popen[bytes] | None = None
        self._profile = tempfile.TemporaryDirectory(prefix="scriptorium-chromium-")
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._next_id = 0

    async def __aenter__(self) -> Browser:
        binary = chromium_binary()
        assert binary is not None
        profile = Path(self._profile.name)
        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
             f"--window-size={self.size[0]},{self.size[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            assert self.process.poll() is None, "chromium exited before it listened"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port in 60 s"
            await asyncio.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        self._session = aiohttp.ClientSession()
        async with self._session.get(f"http://127.0.0.1:{port}/json/list") as response:
            pages = [t for t in await response.json() if t.get("type") == "page"]
        self._ws = await self._session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
        await self.call("Page.enable")
        await self.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_CLIENT)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._session is not None:
            await self._session.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Chromium's helper processes (crashpad, the GPU and network services) outlive the
        # browser by a moment and may still write into the profile: a removal can meet a
        # folder that filled again ("Directory not empty"). Retry, then leave what is left.
        for _ in range(20):
            try:
                self._profile.cleanup()
                return
            except OSError:
                await asyncio.sleep(0.1)
        shutil.rmtree(self._profile.name, ignore_errors=True)

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        assert self._ws is not None
        self._next_id += 1
        await self._ws.send_str(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads((await self._ws.receive(timeout=60)).data)
            if message.get("id") == self._next_id:
                assert "error" not in message, message
                return message.get("result", {})

    async def open(self, url: str) -> None:
        await self.call("Page.navigate", url=url)

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def screen_text(self) -> str | None:
        """The terminal's rows as xterm.js holds them, or None before the client started."""
        return await self.evaluate(SCREEN_TEXT)

    async def wait_for_screen(self, *wanted: str, timeout: float = 90) -> str:
        """The terminal's text once it holds every one of `wanted`."""
        deadline = time.monotonic() + timeout
        text: str | None = None
        while time.monotonic() < deadline:
            text = await self.screen_text()
            if text is not None and all(w in text for w in wanted):
                return text
            await asyncio.sleep(0.25)
        raise AssertionError(f"the browser's terminal never showed {wanted!r}; last:\n{text}")

    async def screenshot(self, path: Path) -> None:
        data = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(data["data"]))
