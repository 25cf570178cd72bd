"""The app in a browser: textual-serve runs `python -m scriptorium.tui` for each browser tab
and relays its screen over a websocket; this adds the guard its server lacks.

textual-serve answers anyone who reaches it. Here every request (the page, its scripts, the
websocket, downloads) must carry the token: `?token=` on the printed URL, then a cookie the
page's own requests send (HttpOnly, SameSite=Strict, so another site's page cannot use it).
The websocket must come from the page's own origin (a page elsewhere cannot drive the app),
and on loopback the Host must be a loopback name (a DNS-rebinding page cannot pose as it).
Imported only by `scriptorium serve`, once textual-serve is known to be installed.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

import aiohttp_jinja2
from aiohttp import web
from textual_serve.server import Server

TITLE = "Scriptorium"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def app_command(state_dir: Path) -> str:
    """The shell command textual-serve starts for each tab: this interpreter, this state."""
    return f"{shlex.quote(sys.executable)} -m scriptorium.tui --state {shlex.quote(str(Path(state_dir).absolute()))}"


class GuardedServer(Server):
    """textual-serve's server behind a token, an origin check and (on loopback) a Host check."""

    def __init__(self, state_dir: Path, host: str, port: int, token: str | None, *, loopback: bool) -> None:
        super().__init__(app_command(state_dir), host=host, port=port, title=TITLE)
        self.token = token
        self.loopback = loopback
        self.cookie = f"scriptorium-serve-{port}"

    def url(self) -> str:
        """The address to open: loopback names as given, the token in the query."""
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "[::]") else host
        return f"http://{shown}:{self.port}/" + (f"?token={self.token}" if self.token else "")

    def _refusal(self, request: web.Request) -> str | None:
        """Why `request` is refused, or None."""
        host_name = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
        if self.loopback and host_name.lower() not in LOOPBACK_NAMES:
            return f"this server answers only to a loopback address, not to Host {request.host!r}"
        if request.path == "/ws":
            origin = request.headers.get("Origin")
            if origin is not None and origin != f"{request.scheme}://{request.host}":
                return f"a websocket from another origin ({origin}) may not drive the app"
        if self.token is None:
            return None
        given = request.query.get("token") or request.cookies.get(self.cookie) or ""
        if not hmac.compare_digest(given.encode("utf-8"), self.token.encode("utf-8")):
            return "this address needs the token: open the URL `scriptorium serve` printed"
        return None

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        refusal = self._refusal(request)
        if refusal is not None:
            return web.Response(status=403, text=f"Scriptorium: {refusal}\n")
        response = await handler(request)
        if self.token is not None and request.query.get("token") and not response.prepared:
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
        return response

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        return app

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        """The page, with its websocket and static addresses on the host the browser used
        (textual-serve builds them from the bound address: 0.0.0.0 would be no address)."""
        base = f"{request.scheme}://{request.host}"
        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        return {
            "font_size": font_size,
            "app_websocket_url": ("wss" if request.scheme == "https" else "ws") + f"://{request.host}/ws",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }

    def initialize_logging(self) -> None:
        """Warnings and errors only: textual-serve logs each connection at INFO."""
        logging.basicConfig(level=logging.WARNING, format="scriptorium serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: textual-serve prints its logo here, before it listens; `_listen` says where."""

    async def _listen(self) -> None:
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()  # a bind failure raises OSError here
            print(f"Scriptorium in the browser: {self.url()}", flush=True)
            print("Each tab runs its own app on this state. Ctrl+C stops.", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()  # closes the websockets: each tab's app is told to quit

    def serve(self, debug: bool = False) -> None:
        """Listen until Ctrl+C or SIGTERM."""
        self.debug = debug
        self.initialize_logging()
        asyncio.run(self._listen())


def serve_app(state_dir: Path, host: str, port: int, token: str | None) -> int:
    """`scriptorium serve`: serve the app on `state_dir` until stopped."""
    from scriptorium.core.cli.serve import is_loopback

    GuardedServer(state_dir, host, port, token, loopback=is_loopback(host)).serve()
    return 0
