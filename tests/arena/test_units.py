"""Pure parts of the arena: ports, forms, markup, snapshots and hashes."""

from __future__ import annotations

import sqlite3
import time

import pytest

from colorbrowser.arena.content.markup import to_markdown, to_trac
from colorbrowser.arena.ports import DEFAULT_PORTS, STRIDE, parse_ports, port_for
from colorbrowser.arena.snapshot import content_hash, restore_db, sync_dir
from colorbrowser.browser.weblogin import find_form, page_text
from colorbrowser.errors import UserError


def test_instances_shift_every_port_by_the_stride():
    assert port_for("shop", 0) == 8101 and port_for("tracker", 0) == 8108
    assert port_for("trac", 2) == DEFAULT_PORTS["trac"] + 2 * STRIDE
    ports = {port_for(app, n) for app in DEFAULT_PORTS for n in range(10)}
    assert len(ports) == 50  # no two apps of any two instances share a port


def test_port_overrides_are_parsed_and_checked():
    assert parse_ports("shop=9101, trac=9103", set(DEFAULT_PORTS)) == {"shop": 9101, "trac": 9103}
    assert port_for("trac", 1, {"trac": 9103}) == 9103 + STRIDE
    for bad in ("shop", "nope=9000", "shop=x", "shop=80"):
        with pytest.raises(UserError):
            parse_ports(bad, set(DEFAULT_PORTS))


def test_find_form_takes_hidden_fields_and_skips_unchecked_boxes():
    html = """<form action="/search"><input name="q"></form>
    <form method="post" action="/login"><input type="hidden" name="token" value="abc">
    <input name="user"><input type="password" name="pw">
    <input type="checkbox" name="remember" value="1"><button name="go" value="in">Go</button>
    </form>"""
    form = find_form(html, "pw")
    assert form["action"] == "/login"
    assert form["fields"] == {"token": "abc", "user": "", "pw": ""}
    assert form["submit"] == ("go", "in")


def test_page_text_drops_scripts_and_tags():
    assert page_text("<p>logged in as <b>Emma</b></p><script>var x = 1</script>") == \
        "logged in as Emma"


def test_markup_renders_for_trac_and_markdown():
    blocks = [("h", "Install"), ("p", "See [[ReleaseProcess]] and **notes**."),
              ("ol", ["one", "two"]), ("code", "pip install x")]
    trac = to_trac(blocks)
    assert "== Install ==" in trac and "[wiki:ReleaseProcess]" in trac and "'''notes'''" in trac
    assert " 1. one" in trac and "{{{\npip install x\n}}}" in trac
    md = to_markdown(blocks)
    assert "## Install" in md and "1. one\n2. two" in md and "```\npip install x\n```" in md


def make_db(path, rows):
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE IF NOT EXISTS item "
                    "(id INTEGER PRIMARY KEY, name TEXT, salt TEXT)")
        con.execute("DELETE FROM item")
        con.executemany("INSERT INTO item VALUES (?, ?, ?)", rows)


def test_content_hash_ignores_left_out_columns_and_row_order(tmp_path):
    make_db(tmp_path / "a.db", [(1, "kettle", "x1"), (2, "mug", "x2")])
    make_db(tmp_path / "b.db", [(2, "mug", "y2"), (1, "kettle", "y1")])
    make_db(tmp_path / "c.db", [(1, "kettle", "x1"), (2, "cup", "x2")])
    spec = {"item": ("salt",)}
    assert content_hash(tmp_path / "a.db", spec) == content_hash(tmp_path / "b.db", spec)
    assert content_hash(tmp_path / "a.db", spec) != content_hash(tmp_path / "c.db", spec)


def test_restore_db_rewrites_a_database_that_is_open_elsewhere(tmp_path):
    make_db(tmp_path / "snap.db", [(1, "kettle", "")])
    make_db(tmp_path / "live.db", [(1, "kettle", ""), (2, "added by a task", "")])
    reader = sqlite3.connect(tmp_path / "live.db")  # a server's open connection
    restore_db(tmp_path / "snap.db", tmp_path / "live.db")
    assert reader.execute("SELECT count(*) FROM item").fetchone()[0] == 1
    reader.close()


def test_sync_dir_restores_changed_and_removes_added_files(tmp_path):
    snap, live = tmp_path / "snap", tmp_path / "live"
    (snap / "index").mkdir(parents=True)
    (snap / "index" / "seg1").write_text("one")
    sync_dir(snap, live)
    assert (live / "index" / "seg1").read_text() == "one"
    (live / "index" / "seg1").write_text("changed!")
    (live / "upload.png").write_text("new")
    assert sync_dir(snap, live) == 2
    assert (live / "index" / "seg1").read_text() == "one"
    assert not (live / "upload.png").exists()
    started = time.perf_counter()
    assert sync_dir(snap, live) == 0  # nothing changed: nothing copied
    assert time.perf_counter() - started < 0.05


def test_an_app_whose_first_page_is_slower_than_one_request_limit_is_still_up(monkeypatch):
    """On a busy machine a page can take longer than the per-request limit; the wait
    lets a slow answer finish instead of starting the same slow page again."""
    from http.server import BaseHTTPRequestHandler

    from colorbrowser.arena import process
    from colorbrowser.testing import start_loopback, stop_loopback

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self):
            time.sleep(1.5)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    monkeypatch.setattr(process, "REQUEST_SECONDS", 0.5)
    server = start_loopback(Slow)
    try:
        url = f"http://127.0.0.1:{server.server_port}/"
        assert 1.4 < process.wait_http(url, None, timeout=10) < 10
        with pytest.raises(process.ColorBrowserError, match="did not answer within 1 s"):
            process.wait_http(url, None, timeout=1)
    finally:
        stop_loopback(server)
