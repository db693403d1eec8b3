"""The Trac arena end to end: real tracd, real SQLite, real Chromium."""

from __future__ import annotations

import json
import sqlite3
import time

import httpx
import psutil
import pytest

from colorbrowser.arena import Arena
from colorbrowser.arena.ports import port_busy
from colorbrowser.arena.process import group_alive
from colorbrowser.browser.weblogin import find_form, page_text

from .conftest import cli

pytestmark = pytest.mark.slow


def client_as(arena: Arena, user: str) -> httpx.Client:
    cookies = httpx.Cookies()
    for c in json.loads(arena.login_state("trac", user).read_text())["cookies"]:
        cookies.set(c["name"], c["value"], domain=c["domain"], path=c["path"])
    return httpx.Client(base_url=arena.base_url("trac"), cookies=cookies, follow_redirects=True,
                        trust_env=False, timeout=20)


def create_ticket(arena: Arena, user: str, summary: str) -> None:
    """File a ticket through Trac's own new-ticket form, as a logged-in person would."""
    with client_as(arena, user) as client:
        page = client.get("/newticket")
        form = find_form(page.text, "field_summary")
        data = {**form["fields"], "field_summary": summary, "field_type": "defect",
                "field_description": "Written by the test.", "submit": "Create ticket"}
        answer = client.post("/newticket", data=data)
        assert answer.status_code == 200, answer.text[:300]


def ticket_count(arena: Arena, summary: str) -> int:
    with sqlite3.connect(f"file:{arena.db_path('trac')}?mode=ro", uri=True) as con:
        return con.execute("SELECT count(*) FROM ticket WHERE summary=?", (summary,)).fetchone()[0]


def test_install_is_idempotent(arena_cache):
    started = time.monotonic()
    assert Arena(cache=arena_cache).install(["trac"]) == {"trac": False}
    assert time.monotonic() - started < 5


def test_snapshot_is_realistic_in_size(arena):
    snap_db = arena.layout.snap("trac") / "data" / "env/db/trac.db"
    with sqlite3.connect(snap_db) as con:
        count = dict(con.execute(
            "SELECT 'tickets', count(*) FROM ticket UNION ALL "
            "SELECT 'changes', count(*) FROM ticket_change UNION ALL "
            "SELECT 'revisions', count(*) FROM revision UNION ALL "
            "SELECT 'milestones', count(*) FROM milestone").fetchall())
        refs = con.execute("SELECT count(*) FROM revision WHERE message LIKE '%#%'").fetchone()[0]
    assert count["tickets"] == 120
    assert count["changes"] > 200
    assert count["revisions"] > 40 and refs == count["revisions"] - 1  # all but the import
    assert count["milestones"] == 5


def test_two_builds_give_the_same_content_hash(arena_cache, tmp_path):
    first = Arena(cache=arena_cache).content_hash("trac", snapshot=True)
    other = Arena(cache=tmp_path)
    (tmp_path / "arena" / "venv").mkdir(parents=True)
    (tmp_path / "arena" / "venv" / "trac").symlink_to(arena_cache / "arena" / "venv" / "trac")
    other.build(["trac"])
    assert other.content_hash("trac", snapshot=True) == first


def test_up_serves_trac_on_loopback_only(trac):
    url = trac.base_url("trac")
    assert httpx.get(url + "/ticket/1", trust_env=False).status_code == 200
    pgid = trac.status(["trac"])[0].pgid
    listening = [c.laddr for p in [psutil.Process(pgid), *psutil.Process(pgid).children(True)]
                 for c in p.net_connections("tcp") if c.status == psutil.CONN_LISTEN]
    assert listening and all(addr.ip == "127.0.0.1" for addr in listening)


def test_login_state_shows_the_user_in_chromium(trac, browser):
    context = browser.new_context(storage_state=str(trac.login_state("trac", "admin")))
    try:
        page = context.new_page()
        page.goto(trac.base_url("trac") + "/prefs")
        assert "logged in as Trac Admin" in page.inner_text("#metanav")
    finally:
        context.close()


def test_reset_removes_a_ticket_created_after_up(trac):
    user = trac.accounts("trac")[1].username
    create_ticket(trac, user, "Written during the episode")
    assert ticket_count(trac, "Written during the episode") == 1
    assert trac.content_hash("trac") != trac.content_hash("trac", snapshot=True)
    seconds = trac.reset(["trac"])["trac"]
    assert ticket_count(trac, "Written during the episode") == 0
    assert seconds < 0.1
    with client_as(trac, user) as client:  # the server kept running and sees the old rows
        assert "Written during the episode" not in client.get("/report/1").text
    assert trac.content_hash("trac") == trac.content_hash("trac", snapshot=True)


def test_login_state_still_works_after_reset(trac):
    trac.reset(["trac"])
    with client_as(trac, "admin") as client:
        assert "logged in as Trac Admin" in page_text(client.get("/prefs").text)


def test_a_sign_out_in_chromium_is_undone_by_the_next_reset(trac, browser):
    """The random agent signs out now and then; every later task starts from the
    snapshot's own sign-in state, so the reset must bring that session back (and no
    fresh sign-in state is made that a later reset would not keep)."""
    state = str(trac.login_state("trac", "hugo"))
    prefs = trac.base_url("trac") + "/prefs"

    def signed_in() -> bool:
        context = browser.new_context(storage_state=state)
        try:
            page = context.new_page()
            page.goto(prefs)
            return "logged in as" in page.inner_text("#metanav")
        finally:
            context.close()

    context = browser.new_context(storage_state=state)
    try:
        page = context.new_page()
        page.goto(trac.base_url("trac") + "/")
        page.get_by_role("button", name="Logout").click()
        page.wait_for_load_state()
        assert "Login" in page.inner_text("#metanav")
    finally:
        context.close()
    assert not signed_in()  # the server forgot the session: the state is dead now
    trac.reset(["trac"])
    assert signed_in()
    assert trac.login_state("trac", "hugo") == trac.layout.snap("trac") / "auth" / "hugo.json"
    assert not (trac.layout.instance(trac.instance) / "auth").exists()


def test_down_leaves_no_process_and_frees_the_port(trac):
    pgid = trac.status(["trac"])[0].pgid
    port = trac.port("trac")
    assert group_alive(pgid) and port_busy(port)
    assert trac.down() == ["trac"]
    assert not group_alive(pgid)
    assert not port_busy(port)
    assert trac.status(["trac"])[0].running is False


def test_up_refuses_a_running_server_in_one_line(trac, arena_cache):
    port = trac.port("trac")
    done = cli(arena_cache, "up", "trac", "--ports", f"trac={port}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: trac is already running")


def test_two_instances_run_side_by_side_with_separate_data(arena, arena_cache, trac_port):
    second = Arena(1, cache=arena_cache, ports={"trac": trac_port})
    try:
        arena.up(["trac"])
        second.up(["trac"])
        assert arena.port("trac") != second.port("trac")
        assert arena.db_path("trac") != second.db_path("trac")
        create_ticket(second, "admin", "Only in the second copy")
        assert ticket_count(second, "Only in the second copy") == 1
        assert ticket_count(arena, "Only in the second copy") == 0
    finally:
        second.down()
