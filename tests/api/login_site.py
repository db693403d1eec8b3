"""A small real sign-in site on 127.0.0.1 for the secrets and login-profile tests.

``/login`` holds a form (user name in a text field, password in a password field);
a right pair sets a session cookie and redirects to ``/account``, which greets the
user by name; a wrong one says whose password was wrong (so a page echoes what was
typed). ``forget()`` drops every session, as a site does when a session expires.
"""

from __future__ import annotations

import html
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from colorbrowser.testing import start_loopback, stop_loopback

FORM = """<!doctype html><title>Sign in</title>
<h1>Sign in</h1>{message}
<form method="post" action="/login">
<label>User <input name="user" autofocus></label>
<label>Password <input name="password" type="password"></label>
<button>Sign in</button></form>"""


class LoginSite:
    def __init__(self, user: str, password: str, *, max_age: int = 3600) -> None:
        self.user, self.password, self.max_age = user, password, max_age
        self.sessions: dict[str, str] = {}
        self.signed_in = threading.Event()
        self.bodies: list[str] = []  # every form body posted, as sent
        self._server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    def url(self, path: str = "/login", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def forget(self) -> None:
        self.sessions.clear()

    def __enter__(self) -> LoginSite:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def _page(self, body: str, status: int = 200, headers: dict | None = None):
                data = body.encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _session_user(self) -> str | None:
                for part in (self.headers.get("Cookie") or "").split(";"):
                    name, _, value = part.strip().partition("=")
                    if name == "sid" and value in site.sessions:
                        return site.sessions[value]
                return None

            def do_GET(self) -> None:
                if self.path.startswith("/account"):
                    user = self._session_user()
                    if user is None:
                        self._page("", 303, {"Location": "/login"})
                    else:
                        self._page(f"<!doctype html><title>Account</title>"
                                   f"<h1>Welcome, {html.escape(user)}</h1>")
                    return
                self._page(FORM.format(message=""))

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                site.bodies.append(body)
                form = {k: v[0] for k, v in parse_qs(body).items()}
                user, password = form.get("user", ""), form.get("password", "")
                if (user, password) == (site.user, site.password):
                    sid = secrets.token_hex(16)
                    site.sessions[sid] = user
                    site.signed_in.set()
                    self._page("", 303, {
                        "Location": "/account",
                        "Set-Cookie": f"sid={sid}; Max-Age={site.max_age}; Path=/; HttpOnly"})
                    return
                self._page(FORM.format(
                    message=f"<p>Wrong password for {html.escape(user)}</p>"))

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = start_loopback(Handler)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        stop_loopback(self._server)
