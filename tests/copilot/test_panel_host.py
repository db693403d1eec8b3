"""The panel answers only requests addressed to itself: a page that points its own name
at 127.0.0.1 (DNS rebinding) reaches the port, but carries a foreign Host header."""

from __future__ import annotations

import httpx
import pytest

from colorbrowser.copilot.channel import Channel
from colorbrowser.copilot.panel import PanelServer


@pytest.fixture
def panel():
    with PanelServer(Channel()) as server:
        yield server


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1",
                                  "localhost.evil.example:{port}", ""])
def test_a_request_with_the_token_but_a_foreign_host_is_refused(panel, host):
    for path in ("/", "/state", "/events"):
        reply = httpx.get(f"{panel.base}{path}?token={panel.token}",
                          headers={"Host": host.format(port=panel.port)})
        assert reply.status_code == 403, path
        assert "addressed to itself" in reply.text
    posted = httpx.post(f"{panel.base}/command/stop", headers={
        "Host": host.format(port=panel.port), "X-Token": panel.token})
    assert posted.status_code == 403
    assert panel.channel.poll() is None  # the command never reached the agent


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST"])
def test_the_panel_answers_its_own_loopback_names_with_the_token(panel, name):
    reply = httpx.get(f"{panel.base}/state?token={panel.token}",
                      headers={"Host": f"{name}:{panel.port}"})
    assert reply.status_code == 200
    assert httpx.get(f"{panel.base}/state", headers={"Host": f"{name}:{panel.port}"}
                     ).status_code == 403  # the token is still needed


@pytest.mark.parametrize("body", [
    b"[" * 30_000,  # nesting Python's parser gives up on, within the size cap
    b'{"kind": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    b"\x00\xff not UTF-8",
    b'{"kind": "note", "text": "' + b"x" * 70_000 + b'"}',  # past the cap
])
def test_a_hostile_command_body_is_a_clear_refusal_and_the_panel_goes_on(panel, body):
    posted = httpx.post(f"{panel.base}/command", content=body,
                        headers={"X-Token": panel.token})
    assert posted.status_code in (400, 413) and posted.json()["ok"] is False
    assert "\n" not in posted.json()["error"]
    assert panel.channel.poll() is None
    assert httpx.get(f"{panel.base}/state?token={panel.token}").status_code == 200
