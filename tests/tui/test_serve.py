"""`scriptorium serve`: the same app in a browser, loopback by default, behind a token.

The first test loads the served app in headless Chromium and reads its first screen from
the browser's own terminal. Chromium comes from Debian (`apt-get install chromium`; .ci/run
installs it where it can); without it that test is skipped, saying why."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from scriptorium.tui.entry import main

from .browser import Browser, chromium_binary

pytestmark = pytest.mark.anyio

TOKEN = "t" * 24


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def _serving(state: Path, *args: str) -> Iterator[tuple[str, int]]:
    """`scriptorium serve` running in its own process: (the URL it printed, its port)."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "scriptorium.tui", "--state", str(state), "serve",
                                "--port", str(port), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "COLUMNS": "100"})
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"(http://\S+)", line)
        assert found, f"no URL printed: {line!r} {process.stderr.read() if process.poll() is not None else ''}"
        yield found.group(1), port
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0  # Ctrl+C / SIGTERM stop it cleanly


@pytest.mark.skipif(chromium_binary() is None, reason="chromium is not installed: `apt-get install chromium` "
                                                      "(.ci/run installs it when it runs as root with apt)")
async def test_the_browser_shows_the_apps_first_screen(demo_state: Path, tmp_path: Path) -> None:
    with _serving(demo_state) as (url, port):
        assert url.startswith(f"http://127.0.0.1:{port}/?token=")
        async with Browser() as browser:
            await browser.open(url)
            text = await browser.wait_for_screen("1 Sessions", "9 Agents", "Checkout latency regression")
            await browser.screenshot(Path(os.environ.get("SCRIPTORIUM_SERVE_SHOT", tmp_path / "served.png")))
            await browser.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            await browser.call("Input.dispatchKeyEvent", type="char", text="2")  # keys reach the app: Core
            await browser.wait_for_screen("Token budget", "Injected at session start", "canonical", "injected")
        assert "Pending" in text and "12 · 280" in text  # the demo's sessions, with their pending turns


async def test_without_the_token_nothing_is_served(demo_state: Path) -> None:
    with _serving(demo_state, "--token", TOKEN) as (url, port):
        base = f"http://127.0.0.1:{port}"
        assert url == f"{base}/?token={TOKEN}"
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:  # unsafe: IP hosts
            for path in ("/", "/ws", "/static/js/textual.js", f"/?token={'x' * 24}"):
                async with http.get(base + path) as response:
                    assert response.status == 403, path
                    assert "needs the token" in await response.text()
            async with http.get(url) as response:  # the printed URL: the page, and a cookie for the rest
                assert response.status == 200 and "textual-terminal" in await response.text()
            async with http.get(f"{base}/static/js/textual.js") as response:
                assert response.status == 200
            async with http.get(f"{base}/ws", headers={"Origin": "http://evil.example"}) as response:
                assert response.status == 403 and "another origin" in await response.text()
            async with http.get(url, headers={"Host": f"evil.example:{port}"}) as response:
                assert response.status == 403 and "loopback" in await response.text()  # DNS rebinding


async def test_no_token_on_loopback_still_guards_the_origin_and_host(demo_state: Path) -> None:
    with _serving(demo_state, "--no-token") as (url, port):
        assert url == f"http://127.0.0.1:{port}/"
        async with aiohttp.ClientSession() as http:
            async with http.get(url) as response:
                assert response.status == 200
            async with http.get(f"{url}ws", headers={"Origin": "http://evil.example"}) as response:
                assert response.status == 403
            async with http.get(url, headers={"Host": f"rebound.example:{port}"}) as response:
                assert response.status == 403


def test_off_loopback_a_token_is_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(tmp_path / "s"), "serve", "--host", "0.0.0.0", "--no-token"]) == 2
    err = capsys.readouterr().err
    assert "--no-token with --host 0.0.0.0" in err and "a token is required" in err
    assert main(["--state", str(tmp_path / "s"), "serve", "--token", "short"]) == 2
    assert "at least 16 characters" in capsys.readouterr().err
    assert main(["--state", str(tmp_path / "s"), "serve", "--port", "70000"]) == 2
    assert not (tmp_path / "s").exists()


def test_a_port_in_use_says_so(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "scriptorium.tui", "--state", str(tmp_path / "s"), "serve",
                               "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and f"port {port} on 127.0.0.1 is in use" in done.stderr, done.stderr


def test_without_the_extra_it_says_the_install_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "textual_serve" else real(name, *rest))
    assert main(["--state", str(tmp_path / "s"), "serve"]) == 1
    assert "pip install 'scriptorium-memory[serve]'" in capsys.readouterr().err
