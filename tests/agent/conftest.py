"""Fixtures for episode tests: the demo shop on loopback and a shared real browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from colorbrowser.browser.env import BrowserEnv

from colorbrowser.config import BrowserSettings
from colorbrowser.static_server import serve_directory
from colorbrowser.types import Message

SHOP = Path(__file__).resolve().parents[2] / "src" / "colorbrowser" / "demo" / "site"


@pytest.fixture(scope="module")
def shop_url():
    with serve_directory(SHOP) as url:
        yield url


@pytest.fixture(scope="module")
def browser_env():
    env = BrowserEnv(BrowserSettings(action_timeout_ms=1500))
    yield env
    env.close()


def page_text(messages: list[Message]) -> str:
    """The user prompt the Operator sent: what a scripted reply may look at."""
    return messages[-1].content


def bid_of(messages: list[Message], role: str, name: str) -> str:
    """Find an element's id in the prompt, as a model would."""
    m = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", page_text(messages))
    assert m, f"{role} {name!r} not in the prompt"
    return m.group(1)


def act(thought: str, action: str) -> str:
    return f"<think>{thought}</think>\n<action>{action}</action>"
