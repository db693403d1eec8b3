"""Local pages that imitate the login forms of WebArena's four sites (Magento's shop and
admin, GitLab, Postmill): the same field names, hidden CSRF fields, a session cookie,
and an account page that shows a logout link only when logged in."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

from colorbrowser.testing import start_loopback, stop_loopback


@dataclass(frozen=True)
class Kind:
    prefix: str  # the site lives under this path ("/admin" for the shop admin)
    login: str
    post: str
    csrf: str
    user: str
    password: str
    account: str
    creds: tuple[str, str]
    cookie: str
    logout: str


KINDS = {
    "shopping": Kind("", "/customer/account/login/", "/customer/account/loginPost/",
                     "form_key", "login[username]", "login[password]", "/customer/account/",
                     ("emma.lopez@gmail.com", "Password.123"), "PHPSESSID", "Sign Out"),
    "shopping_admin": Kind("/admin", "/admin/", "/admin/", "form_key", "login[username]",
                           "login[password]", "/admin/dashboard/", ("admin", "admin1234"),
                           "admin", "Sign Out"),
    "gitlab": Kind("", "/users/sign_in", "/users/sign_in", "authenticity_token",
                   "user[login]", "user[password]", "/-/profile", ("byteblaze", "hello1234"),
                   "_gitlab_session", "Sign out"),
    "reddit": Kind("", "/login", "/login_check", "_csrf_token", "_username", "_password", "/",
                   ("MarvelsGrantMan136", "test1234"), "PHPSESSID", "Log out"),
}


def handler(kind: Kind) -> type[BaseHTTPRequestHandler]:
    sessions: dict[str, bool] = {}  # session id -> logged in
    tokens: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _session(self) -> str | None:
            for part in self.headers.get("Cookie", "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == kind.cookie and value in sessions:
                    return value
            return None

        def _send(self, code: int, body: str = "", headers: dict[str, str] | None = None):
            self.send_response(code)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body.encode())

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            logged = sessions.get(self._session() or "", False)
            if path == kind.login and not logged:
                token = secrets.token_hex(8)
                tokens.add(token)
                self._send(200, f'<form method="post" action="{kind.post}">'
                                f'<input type="hidden" name="{kind.csrf}" value="{token}">'
                                f'<input name="{kind.user}"><input type="password" '
                                f'name="{kind.password}"><button>Sign in</button></form>')
            elif path == kind.account and logged:
                self._send(200, f"<h1>Welcome</h1><a href='/logout'>{kind.logout}</a>")
            elif path == kind.account or path == kind.login:
                self._send(302, headers={"Location": kind.login if not logged
                                         else kind.account})
            else:
                self._send(200, f"<p>page {path}</p>" + (
                    f"<a href='/logout'>{kind.logout}</a>" if logged else "<a>Sign in</a>"))

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", "0"))
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(size).decode()).items()}
            ok = (form.get(kind.csrf) in tokens and
                  (form.get(kind.user), form.get(kind.password)) == kind.creds)
            if self.path.split("?")[0] != kind.post or not ok:
                self._send(403, "<p>Invalid login or form key</p>")
                return
            session = secrets.token_hex(8)
            sessions[session] = True
            self._send(302, headers={"Location": kind.account,
                                     "Set-Cookie": f"{kind.cookie}={session}; Path=/"})

    return Handler


@contextmanager
def fake_site(name: str) -> Iterator[str]:
    """Serve one imitated site on 127.0.0.1; yields its address as WebArena sets it."""
    kind = KINDS[name]
    server = start_loopback(handler(kind))
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{kind.prefix}"
    finally:
        stop_loopback(server)
