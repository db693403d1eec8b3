"""Log in through an app's real login form over HTTP and keep the cookies as a
Playwright storage state.

The form is read from the page (hidden CSRF fields included), so every app's own
login code runs. Cookies are saved as session cookies (no expiry): the seeded
sessions live in the snapshot's database, which every reset restores, so a state
made at build time stays valid in every instance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import httpx

from colorbrowser.errors import ColorBrowserError


@dataclass(frozen=True)
class Account:
    """A seeded login. These are test fixtures: printing them is fine."""

    username: str
    password: str
    role: str  # e.g. admin, staff, customer, member
    name: str = ""  # the person's full name, as pages may show it
    email: str = ""


@dataclass(frozen=True)
class LoginForm:
    """How to log in through the app's real login form, and how to see that it worked."""

    path: str  # the page that holds the form
    user_field: str
    password_field: str
    check_path: str  # a page that names the user when logged in
    marker: str = "{username}"  # formatted with the Account's fields
    extra: Mapping[str, str] = field(default_factory=dict)
    login_with: str = "username"  # which Account field goes in user_field


class _Forms(HTMLParser):
    """Every form on the page: action, method and the fields a browser would send."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "method": a.get("method", "get"),
                               "fields": {}, "names": set(), "submit": None})
        elif self.forms and tag in ("input", "button") and a.get("name"):
            form = self.forms[-1]
            kind = a.get("type", "submit" if tag == "button" else "text").lower()
            form["names"].add(a["name"])
            if kind == "submit":
                form["submit"] = form["submit"] or (a["name"], a.get("value", ""))
            elif kind not in ("checkbox", "radio") or "checked" in a:
                form["fields"][a["name"]] = a.get("value", "")


def page_text(html: str) -> str:
    text = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", html)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(text.replace("&nbsp;", " ").split())


def shows(html: str, form: LoginForm, account: Account) -> bool:
    marker = form.marker.format(**account.__dict__)
    return marker.lower() in page_text(html).lower()


def find_form(html: str, field: str) -> dict:
    """The first form on the page that has an input called ``field``."""
    parser = _Forms()
    parser.feed(html)
    for found in parser.forms:
        if field in found["names"]:
            return found
    raise ColorBrowserError(f"no form with a {field!r} field on the page")


def storage_state(jar: httpx.Cookies) -> dict:
    cookies = []
    for c in jar.jar:
        cookies.append({"name": c.name, "value": c.value or "",
                        "domain": c.domain.removesuffix(".local"), "path": c.path or "/",
                        "expires": -1, "httpOnly": bool(c.has_nonstandard_attr("HttpOnly")),
                        "secure": bool(c.secure), "sameSite": "Lax"})
    return {"cookies": cookies, "origins": []}


def log_in(base_url: str, form: LoginForm, account: Account, timeout: float = 30.0) -> dict:
    """Log ``account`` in; returns the storage state. Raises when the app refuses."""
    with httpx.Client(base_url=base_url, follow_redirects=True, timeout=timeout,
                      trust_env=False) as client:
        page = client.get(form.path)
        found = find_form(page.text, form.password_field)
        data = dict(found["fields"])
        if found["submit"]:
            data.setdefault(*found["submit"])
        data[form.user_field] = getattr(account, form.login_with)
        data[form.password_field] = account.password
        data.update(form.extra)
        target = urljoin(str(page.url), found["action"] or str(page.url))
        client.post(target, data=data, headers={"Referer": str(page.url)})
        check = client.get(form.check_path)
        if not shows(check.text, form, account):
            raise ColorBrowserError(f"login of {account.username!r} at {base_url} did not "
                                    f"work: {form.check_path} does not show "
                                    f"{form.marker.format(**account.__dict__)!r}")
        return storage_state(client.cookies)


def state_works(base_url: str, form: LoginForm, account: Account, state: Path) -> bool:
    """Does the saved state still show the user as logged in?"""
    cookies = httpx.Cookies()
    for c in json.loads(state.read_text("utf-8"))["cookies"]:
        cookies.set(c["name"], c["value"], domain=c["domain"], path=c["path"])
    with httpx.Client(base_url=base_url, cookies=cookies, follow_redirects=True, timeout=15,
                      trust_env=False) as client:
        return shows(client.get(form.check_path).text, form, account)


def save_state(path: Path, state: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=1), "utf-8")
    return path
