"""``colorbrowser observe`` run as a real subprocess, the way a person runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               COLORBROWSER_CONFIG=os.devnull)  # an empty config, whatever the user has
    return subprocess.run(
        [sys.executable, "-c", "from colorbrowser.cli import main; main()", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )


@pytest.fixture(scope="module")
def basic(pages_url):
    return f"{pages_url}/browser/basic.html"


def test_observe_prints_header_and_bid_lines(basic):
    done = run_cli("observe", basic)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"URL: {basic}" and lines[1] == "Title: Basic page"
    assert lines[2] == "Tabs: *[0] Basic page"
    assert any(line.strip().startswith("[") and "] heading 'Welcome' level=1" in line
               for line in lines)
    assert "checkbox 'I agree' checked" in done.stdout
    assert "] list" in done.stdout


def test_observe_interactive_only_drops_structure(basic):
    done = run_cli("observe", basic, "--interactive-only")
    assert done.returncode == 0, done.stderr
    assert "] list\n" not in done.stdout and "] table" not in done.stdout
    assert "textbox 'Email' required" in done.stdout and "First item" in done.stdout


def test_observe_json_and_screenshot(basic, tmp_path):
    shot = tmp_path / "som.png"
    done = run_cli("observe", basic, "--json", "--screenshot", str(shot))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["title"] == "Basic page" and data["url"] == basic
    roles = {e["role"] for e in data["elements"].values()}
    assert {"heading", "checkbox", "combobox", "button", "link"} <= roles
    assert all(line in data["axtree"] for line in ("heading 'Welcome'",))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unreachable_url_is_one_line_error(free_port):
    done = run_cli("observe", f"http://127.0.0.1:{free_port}/")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (f"error: could not open http://127.0.0.1:{free_port}/: connection "
                           "refused (net::ERR_CONNECTION_REFUSED)\n")


def test_bad_url_is_one_line_error():
    done = run_cli("observe", "not a url")
    assert done.returncode == 2
    assert done.stderr == "error: not a URL: 'not a url'\n"


@pytest.fixture
def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_package_exports_load_lazily():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, colorbrowser.browser as b; "
         "assert 'playwright' not in sys.modules; b.BrowserEnv; "
         "assert 'playwright.sync_api' in sys.modules; print(sorted(b.__all__))"],
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHONPATH=str(SRC)),
    )
    assert done.returncode == 0, done.stderr
    assert "BrowserEnv" in done.stdout
