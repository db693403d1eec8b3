"""WebRTC needs no host name to send UDP: a page's STUN or TURN server (with a username
of its choosing) is reached straight by address, past the resolver rules that hold the
browser to its host list. With a host list, Chromium sends no WebRTC UDP at all."""

from __future__ import annotations

import socket
import threading

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.static_server import StaticServer

SEND_BY_WEBRTC = """async (port) => {
  for (const transport of ['udp', 'tcp']) {
    const pc = new RTCPeerConnection({iceServers: [
      {urls: `turn:127.0.0.1:${port}?transport=${transport}`, username: 'page-secret',
       credential: 'x'},
      {urls: `stun:127.0.0.1:${port}`}]});
    pc.createDataChannel('leak');
    await pc.setLocalDescription(await pc.createOffer());
  }
  await new Promise((done) => setTimeout(done, 3000));  // ICE gathering sends meanwhile
  return 'gathered';
}"""


@pytest.fixture
def listener():
    """UDP and TCP on one loopback port the host list does not name; what arrives."""
    got: list[str] = []
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    port = udp.getsockname()[1]
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", port))
    tcp.listen()

    def receive_udp() -> None:
        while True:
            try:
                udp.recvfrom(4096)
            except OSError:
                return
            got.append("udp")

    def accept_tcp() -> None:
        while True:
            try:
                conn, _ = tcp.accept()
            except OSError:
                return
            got.append("tcp")
            conn.close()

    threading.Thread(target=receive_udp, daemon=True).start()
    threading.Thread(target=accept_tcp, daemon=True).start()
    yield port, got
    udp.close()
    tcp.close()


@pytest.fixture
def site(tmp_path):
    (tmp_path / "index.html").write_text("<title>Shop</title><h1>Shop</h1>")
    with StaticServer(tmp_path, token="") as server:
        yield server


def gather(site, allow_hosts: list[str], port: int) -> str:
    with BrowserEnv(BrowserSettings(allow_hosts=allow_hosts)) as env:
        env.reset(f"{site.url}/index.html")
        return env.page.evaluate(SEND_BY_WEBRTC, port)


def test_with_a_host_list_a_page_sends_nothing_by_webrtc(site, listener):
    port, got = listener
    assert gather(site, [f"127.0.0.1:{site.port}"], port) == "gathered"
    assert got == []


def test_without_a_host_list_webrtc_is_left_alone(site, listener):
    """The same page does reach the listener when the browser has no host list: the test
    above would see it."""
    port, got = listener
    assert gather(site, [], port) == "gathered"
    assert "udp" in got
