"""Login profiles: a person signs in once (``colorbrowser login SITE --url URL``), the
browser's storage state is saved under a name, and ``run --profile NAME`` starts
signed in.

Profiles hold live sessions, so they live in the person's data folder, never in a run
folder (which is shared), and are written owner-only (0600). Saving checks that the
session cookies were actually written: other tools save an empty state and report
success, and the failure shows up only in the next run. A profile whose cookies ran
out, or whose site sends the agent back to the sign-in page, is reported as expired.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from colorbrowser.agent.trajectory import MASK
from colorbrowser.datafile import one_line
from colorbrowser.errors import Aborted, UserError
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import StepContext
from colorbrowser.types import Observation

MIN_TOKEN_CHARS = 8
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # whole name: fullmatch


class ProfileExpired(Aborted):
    """The site sent the agent to its sign-in page: the saved session is gone."""

    reason = "profile_expired"


def profiles_dir() -> Path:
    """``$XDG_DATA_HOME/colorbrowser/profiles`` (default ~/.local/share/...)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "colorbrowser" / "profiles"


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):  # ``$`` would let "shop\n" through
        raise UserError(f"profile name {one_line(repr(name), 80)}: use letters, digits, "
                        "_ . - (up to 64)")
    return name


@dataclass
class Profile:
    """One saved sign-in: the storage state and where the sign-in page was."""

    name: str
    login_url: str
    saved: str
    state: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def path(self) -> Path:
        return profiles_dir() / f"{self.name}.json"

    def expired_cookies(self, now: float | None = None) -> bool:
        """Every cookie with an expiry has passed it (session cookies never do)."""
        now = time.time() if now is None else now
        cookies = self.state.get("cookies") or []
        dated = [c for c in cookies if float(c.get("expires", -1)) > 0]
        return bool(cookies) and len(dated) == len(cookies) and all(
            float(c["expires"]) <= now for c in dated)

    def at_login_page(self, url: str) -> bool:
        """``url`` is the sign-in page again (same host and path): the site no longer
        knows the session."""
        a, b = urlsplit(url), urlsplit(self.login_url)
        return (a.hostname, a.port, a.path.rstrip("/")) == (b.hostname, b.port,
                                                             b.path.rstrip("/"))

    def session_values(self) -> set[str]:
        """Cookie and local-storage values long enough to be tokens: a run's redactor
        masks them, so a run folder (its checkpoints hold the browser's cookies) never
        carries the saved session. Short values ("1", "true") would mask ordinary text."""
        values = {str(c.get("value", "")) for c in self.state.get("cookies") or []}
        for origin in self.state.get("origins") or []:
            values |= {str(i.get("value", "")) for i in origin.get("localStorage") or []}
        return {v for v in values if len(v) >= MIN_TOKEN_CHARS}

    def seal(self) -> str | None:
        """A mark of this very sign-in, keyed by its session values: a run folder records
        it, and ``resume`` uses the profile of that name again only when the mark fits,
        so a folder from someone else cannot sign a resumed run in. None when the
        profile holds no value long enough to key it."""
        values = sorted(self.session_values())
        if not values:
            return None
        return hmac.new("\0".join(values).encode(), self.name.encode(),
                        hashlib.sha256).hexdigest()[:32]

    def expired_message(self) -> str:
        return (f"profile {self.name!r} has expired (saved {self.saved}); sign in again "
                f"with `colorbrowser login {self.name} --url {self.login_url}`")


def cookie_for(cookie: dict[str, Any], host: str) -> bool:
    """The browser sends ``cookie`` to ``host``."""
    domain = str(cookie.get("domain", "")).lstrip(".").lower()
    return bool(host and domain) and (host == domain or host.endswith("." + domain))


class ProfileCheck(Hook):
    """Ends the run when the first page is the sign-in page though the run did not
    start there: the site no longer knows the saved session."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        if episode.step == 0 and self.profile.at_login_page(obs.url) and \
                not self.profile.at_login_page(episode.start_url or ""):
            raise ProfileExpired(self.profile.expired_message())


def with_profile(snapshot: dict[str, Any] | None, profile: Profile) -> dict[str, Any] | None:
    """A checkpoint's browser with the profile's sign-in put back for a resume.

    The checkpoint holds the session's cookies masked (a run folder never carries
    them), and restoring it replaces the browser's storage: so each cookie and storage
    item of the profile takes the place of the checkpoint's own of the same name, and
    masked values are dropped. The result lives in memory only."""
    if not snapshot:
        return snapshot
    storage = snapshot.get("storage")
    storage = dict(storage) if isinstance(storage, dict) else {}

    def key(cookie: dict[str, Any]) -> tuple[Any, ...]:
        return cookie.get("name"), str(cookie.get("domain", "")).lstrip("."), \
            cookie.get("path", "/")

    mine = [c for c in profile.state.get("cookies") or [] if isinstance(c, dict)]
    taken = {key(c) for c in mine}
    kept = [c for c in storage.get("cookies") or [] if isinstance(c, dict)
            and key(c) not in taken and MASK not in str(c.get("value", ""))]
    origins = {str(o.get("origin")): o for o in storage.get("origins") or []
               if isinstance(o, dict)}
    for origin in profile.state.get("origins") or []:
        old = origins.get(str(origin.get("origin")), {})
        items = {i.get("name"): i for i in old.get("localStorage") or []
                 if isinstance(i, dict) and MASK not in str(i.get("value", ""))}
        items |= {i.get("name"): i for i in origin.get("localStorage") or []}
        origins[str(origin.get("origin"))] = {**old, **origin,
                                              "localStorage": list(items.values())}
    storage |= {"cookies": kept + mine, "origins": list(origins.values())}
    return {**snapshot, "storage": storage}


def profile_for_resume(meta: dict[str, Any], named: str | None) -> tuple[Profile | None, str]:
    """The login profile a resumed run starts with, and a note for the person.

    The one named now (``resume --profile NAME``) wins. Otherwise the run folder's
    profile only when its seal shows it is this person's very sign-in (their own killed
    run): a folder is data and never chooses a session on its own."""
    if named is not None:
        return load_profile(named), ""
    recorded = meta.get("profile")
    if not isinstance(recorded, dict) or not isinstance(recorded.get("name"), str):
        return None, ""
    name, seal = recorded["name"], recorded.get("seal")
    again = (f"the run started signed in with login profile {name!r}; resuming signed out "
             f"(pass --profile {name} to sign in)")
    try:
        profile = load_profile(check_name(name), check_expiry=False)
    except UserError:
        return None, again
    mine = profile.seal()
    if mine is None or not isinstance(seal, str) or not hmac.compare_digest(mine, seal):
        return None, again.replace("resuming", "it is not the same sign-in as yours; "
                                   "resuming", 1)
    if profile.expired_cookies():
        raise UserError(profile.expired_message())
    return profile, ""


def use_profile(env: Any, profile: Profile) -> None:
    """Start the browser with the profile's cookies and storage (a real browser only)."""
    session = getattr(env, "session", None)
    if session is None or session.started:
        raise UserError("a login profile needs a browser that has not started yet")
    session.start(storage_state=profile.state)


def save_profile(name: str, login_url: str, state: dict[str, Any]) -> Profile:
    """Write the profile owner-only; refuse a state without cookies for the site."""
    check_name(name)
    host = urlsplit(login_url).hostname or ""
    cookies = [c for c in state.get("cookies") or [] if cookie_for(c, host)]
    if not cookies:
        raise UserError(f"no cookies for {host or login_url} were written: the sign-in did "
                        "not finish, or the site keeps its session elsewhere; nothing saved")
    profile = Profile(name, login_url, datetime.now(UTC).isoformat(timespec="seconds"), state)
    folder = profiles_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = folder / f".{name}.json.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"name": name, "login_url": login_url, "saved": profile.saved,
                   "state": state}, fh)
    os.replace(tmp, profile.path)
    reread = load_profile(name, check_expiry=False)  # what a run will read, read back
    if not reread.state.get("cookies"):
        raise UserError(f"profile {name!r} was written without its cookies")
    return reread


def load_profile(name: str, *, check_expiry: bool = True) -> Profile:
    """A saved profile; UserError when there is none, it is unreadable or expired."""
    path = profiles_dir() / f"{check_name(name)}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"no login profile named {name!r}; make one with "
                        f"`colorbrowser login {name} --url URL`") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"login profile {path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or not _state_shape(data.get("state")):
        raise UserError(f"login profile {path} is damaged; sign in again")
    profile = Profile(name, str(data.get("login_url", "")), str(data.get("saved", "")),
                      data["state"])
    if check_expiry and profile.expired_cookies():
        raise UserError(profile.expired_message())
    return profile


def _state_shape(state: Any) -> bool:
    """A storage state as the browser writes it: cookies and origins are lists of
    mappings, a cookie's expiry is a number."""
    if not isinstance(state, dict):
        return False
    cookies, origins = state.get("cookies") or [], state.get("origins") or []
    if not isinstance(cookies, list) or not isinstance(origins, list):
        return False
    for cookie in cookies:
        if not isinstance(cookie, dict) or not isinstance(cookie.get("name", ""), str):
            return False
        expires = cookie.get("expires", -1)
        if isinstance(expires, bool) or not isinstance(expires, int | float):
            return False
    for origin in origins:
        if not isinstance(origin, dict) or not isinstance(origin.get("localStorage") or [],
                                                         list):
            return False
        if not all(isinstance(i, dict) for i in origin.get("localStorage") or []):
            return False
    return True
