"""The verifier against the arena's real Trac, in real Chromium: behind the fault proxy a
comment post answers 500, a priority change answers "Saved!" while storing nothing, and
a sign-in sets no cookie. An agent that stops as soon as the page looks right (the trap's
plan, replayed) is refuted every time, and the same plan without the faults is verified
(the database or the cookies confirm both)."""

from __future__ import annotations

import httpx
import pytest

from colorbrowser.arena.faults import Fault, FaultProxy
from colorbrowser.arena.traps import arena_traps, run_trap
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def env():
    with BrowserEnv(BrowserSettings(action_timeout_ms=5000)) as browser:
        yield browser


def test_the_proxy_passes_requests_through_and_fails_only_the_chosen_ones(trac):
    faults = [Fault("POST", r"/ticket/\d+$", "fail")]
    with FaultProxy(trac.port("trac"), faults) as proxy, \
            httpx.Client(base_url=proxy.url, trust_env=False, timeout=20) as client:
        assert client.get("/ticket/33").status_code == 200
        assert client.post("/ticket/33", data={"comment": "x"}).status_code == 500
        assert proxy.hits == [("POST", "/ticket/33", "fail")]
        other = client.get("/ticket/33", headers={"Host": "evil.example"})
        assert other.status_code == 421


@pytest.mark.parametrize("index", [0, 1, 2], ids=["post-500", "saved-but-not-stored",
                                                  "login-without-cookie"])
def test_each_trap_is_refuted_and_its_plan_without_the_fault_is_verified(trac, env, index,
                                                                         tmp_path):
    trap = arena_traps(trac)[index]
    assert trap.trap
    caught = run_trap(trap, trac, env, run_dir=tmp_path / "trap")
    assert caught.hits >= 1 and not caught.done
    assert caught.verdict == "refuted", caught.reasons
    control = run_trap(trap, trac, env, faulty=False, run_dir=tmp_path / "control")
    assert control.hits == 0 and control.done
    assert control.verdict == "verified", control.reasons
    expected = {"write_failed": "answered 500", "nothing_stored": "nothing changed in its "
                "database", "no_session": "no cookie was set for 127.0.0.1"}[trap.kind]
    assert expected in "; ".join(caught.reasons)


def test_a_change_to_shop_data_counts_though_sessions_and_logs_do_not(tmp_path):
    import sqlite3

    from colorbrowser.arena.traps import db_changed

    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as con:
        con.executescript("create table catalogue_product (title text);"
                          "create table django_session (key text);"
                          "create table django_admin_log (what text);"
                          "insert into catalogue_product values ('Mug');")
    changed = db_changed(db)
    with sqlite3.connect(db) as con:
        con.execute("insert into django_session values ('abc')")
        con.execute("insert into django_admin_log values ('viewed')")
    assert changed() is False
    with sqlite3.connect(db) as con:
        con.execute("update catalogue_product set title = 'Blue mug'")
    assert changed() is True


@pytest.mark.parametrize("headers, status", [
    ("Content-Length: lots\r\n", 400),
    ("Content-Length: -5\r\n", 400),
    ("Transfer-Encoding: chunked\r\n", 411),
])
def test_a_request_whose_body_cannot_be_read_is_refused_in_one_answer(headers, status):
    """No app behind it is needed: the proxy answers before forwarding."""
    import socket

    with FaultProxy(9, []) as proxy, \
            socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall((f"POST /x HTTP/1.1\r\nHost: 127.0.0.1:{proxy.port}\r\n{headers}"
                      "\r\n5\r\nhello\r\n0\r\n\r\n").encode())
        answer = sock.recv(4096).decode("latin-1")
    assert answer.startswith(f"HTTP/1.0 {status}") or answer.startswith(f"HTTP/1.1 {status}")
