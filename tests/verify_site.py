"""A small real site for the evidence and verifier tests: a shop page to read, forms
whose posts succeed, answer 500, or answer "Saved!" while storing nothing, a login
that sets a session cookie and one that sets none, an error page, a download.
Served on 127.0.0.1 from tests/pages/verify with routes for what needs behaviour."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl

from colorbrowser.testing import send_html, serve_directory

ROOT = Path(__file__).parent / "pages" / "verify"
SLOW_S = 0.5


@dataclass
class Site:
    url: str
    stored: list[str] = field(default_factory=list)  # titles the server really saved


def _form(req) -> dict[str, str]:
    length = int(req.headers.get("Content-Length") or 0)
    return dict(parse_qsl(req.rfile.read(length).decode(), keep_blank_values=True))


def _redirect(req, where: str, cookie: str | None = None) -> None:
    req.send_response(303)
    req.send_header("Location", where)
    if cookie:
        req.send_header("Set-Cookie", cookie)
    req.send_header("Content-Length", "0")
    req.end_headers()


@contextmanager
def verify_site() -> Iterator[Site]:
    site = Site(url="")

    def save(req) -> None:
        if req.command != "POST":
            send_html(req, "<h1>Method not allowed</h1>", 405)
            return
        site.stored.append(_form(req).get("title", ""))
        _redirect(req, "/saved")

    def saved(req) -> None:
        last = site.stored[-1] if site.stored else ""
        # Trac's way to say it: a notice in the same box as its warnings, so no error.
        send_html(req, f"<title>Saved</title><div class='system-message notice'>Product "
                       f"{last} saved.</div>"
                       "<a href='/shop.html'>Back to the shop</a>")

    def broken(req) -> None:
        _form(req)
        send_html(req, "<title>Internal Server Error</title><h1>Internal Server Error</h1>"
                       "<p>The server could not store the product.</p>", 500)

    def broken_slowly(req) -> None:
        time.sleep(SLOW_S)  # a busy server: the browser is still waiting when it is read
        broken(req)

    def fake(req) -> None:
        _form(req)  # read and dropped: nothing is stored
        send_html(req, "<title>Saved</title><p class='flash'>Saved!</p>")

    def login(req) -> None:
        _form(req)
        _redirect(req, "/shop.html", "session=s3cr3t-session-id; Path=/; HttpOnly")

    def login_nocookie(req) -> None:
        _form(req)
        _redirect(req, "/shop.html")

    def logout(req) -> None:
        _redirect(req, "/shop.html", "session=; Path=/; Max-Age=0")

    def card(req) -> None:
        length = int(req.headers.get("Content-Length") or 0)
        req.rfile.read(length)
        body = b'{"error": "declined"}'
        req.send_response(402)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        req.wfile.write(body)

    def download(req) -> None:
        body = b"invoice 42\n"
        req.send_response(200)
        req.send_header("Content-Type", "application/octet-stream")
        req.send_header("Content-Disposition", 'attachment; filename="invoice.txt"')
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        req.wfile.write(body)

    def missing(req) -> None:
        send_html(req, "<title>404 Not Found</title><h1>Not Found</h1>"
                       "<p>No such page.</p>", 404)

    routes = {"/save": save, "/saved": saved, "/save-broken": broken, "/save-fake": fake,
              "/save-broken-slowly": broken_slowly,
              "/login": login, "/login-nocookie": login_nocookie, "/logout": logout,
              "/api/card": card, "/download": download, "/missing-page": missing}
    with serve_directory(ROOT, routes, token="") as url:
        site.url = url
        yield site
