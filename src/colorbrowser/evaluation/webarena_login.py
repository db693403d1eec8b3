"""Logging in to a WebArena deployment the way its own harness does, so tasks with
``"storage_state": "./.auth/gitlab_state.json"`` run without hand-made cookie files.

WebArena's sites ship with known test accounts (published in its ``env_config.py``):
the shopping customer, the shop admin, the GitLab user and the forum user. For each
site we know the login page, its form fields and a page that shows the user is logged
in. The form is read from the page (hidden CSRF fields included) and posted; the
cookies become a Playwright storage state, written where the task looks for it. A
state named for two sites (``gitlab.reddit_state.json``) holds both logins.

Not checked against a real WebArena deployment (none is reachable here); the forms
are imitated by local test pages. A site that refuses the login is one error line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from colorbrowser.errors import ColorBrowserError

STATE_SUFFIX = "_state.json"


@dataclass(frozen=True)
class SiteLogin:
    var: str  # the environment variable with the site's address
    path: str  # the login page, under the site's address
    user_field: str
    password_field: str
    username: str
    password: str
    check_path: str  # a page that shows a logged-in user
    marker: str  # text that page shows only then


LOGINS: dict[str, SiteLogin] = {
    "shopping": SiteLogin("WA_SHOPPING", "/customer/account/login/", "login[username]",
                          "login[password]", "emma.lopez@gmail.com", "Password.123",
                          "/customer/account/", "Sign Out"),
    "shopping_admin": SiteLogin("WA_SHOPPING_ADMIN", "/", "login[username]",
                                "login[password]", "admin", "admin1234", "/dashboard/",
                                "Sign Out"),
    "gitlab": SiteLogin("WA_GITLAB", "/users/sign_in", "user[login]", "user[password]",
                        "byteblaze", "hello1234", "/-/profile", "Sign out"),
    "reddit": SiteLogin("WA_REDDIT", "/login", "_username", "_password",
                        "MarvelsGrantMan136", "test1234", "/", "Log out"),
}


def sites_of(state_name: str) -> list[str] | None:
    """``gitlab.reddit_state.json`` -> ``["gitlab", "reddit"]``; None if we cannot log in
    to one of them."""
    if not state_name.endswith(STATE_SUFFIX):
        return None
    sites = state_name[: -len(STATE_SUFFIX)].split(".")
    return sites if sites and all(s in LOGINS for s in sites) else None


def addresses(state_name: str, env: Mapping[str, str]) -> dict[str, str] | None:
    """{site: address} for a state we can make from this environment, else None."""
    sites = sites_of(state_name)
    if sites is None:
        return None
    found = {s: env.get(LOGINS[s].var, "").strip().rstrip("/") for s in sites}
    return found if all(found.values()) else None


def log_in_site(site: str, base_url: str) -> dict:
    """Log in to one site; its storage state. Raises ColorBrowserError when refused."""
    from colorbrowser.browser.weblogin import Account, LoginForm, log_in

    spec = LOGINS[site]
    form = LoginForm(path=spec.path, user_field=spec.user_field,
                     password_field=spec.password_field, check_path=spec.check_path,
                     marker=spec.marker)
    try:
        return log_in(base_url, form, Account(spec.username, spec.password, site))
    except ColorBrowserError as exc:
        raise ColorBrowserError(f"WebArena login to {site} at {base_url}: {exc}") from None
    except Exception as exc:  # the site is down, refuses the connection, ...
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ColorBrowserError(f"WebArena login to {site} at {base_url}: {line}") from None


def ensure_state(path: Path, sites: Mapping[str, str]) -> Path:
    """Write the storage state at ``path`` unless it is there already."""
    if path.is_file():
        return path
    cookies: list[dict] = []
    for site, base_url in sites.items():
        cookies += log_in_site(site, base_url)["cookies"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cookies": cookies, "origins": []}, indent=1), "utf-8")
    return path
