"""Where the agent may go: web pages only, and only allowed hosts when a list is set.

A model that reads hostile page text can be talked into ``goto('file:///...')`` or
into sending what it read to a host of the attacker's choosing. Three layers keep it
on the web:

- the model's own navigations (``goto``, ``new_tab``, a watchdog's reload) are
  checked here before they run: http(s) pages and ``about:blank`` only, on an
  allowed host;
- with a host list, Chromium itself resolves no other host (``--host-resolver-rules``),
  so redirects, pop-ups, forms and sub-resources cannot reach one either;
- a page the agent is about to look at is checked again (``refuse_page``), so whatever
  slipped past (a link between local files a person opened) is never observed.

A person may open a ``file:`` page on purpose (``--allow-file-url``); that exact page
becomes trusted, and the model's own actions still never open one.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from colorbrowser.config import check_host_entry

WEB_SCHEMES = ("http", "https")
BLANK = "about:blank"
# Pages that are the browser's own and carry nothing from outside the web.
_BROWSER_PAGES = ("about:blank", "about:srcdoc")
_ERROR_PAGE = "chrome-error://"


def _scheme(url: str) -> str:
    return url.split(":", 1)[0].strip().lower() if ":" in url else ""


def _host_of(url: str) -> str | None:
    """The host as Chromium will use it, or None when the URL is ambiguous.

    Browsers read a backslash as a slash and percent-decode hosts; Python's parser
    does neither. Anything where the two could disagree is refused rather than
    guessed, so an allowlist cannot be tricked by ``http://evil\\@good/``.
    """
    if any(c in url for c in "\\\t\r\n ") or any(ord(c) < 32 or ord(c) == 127 for c in url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
        _ = parts.port  # a malformed port raises here
    except ValueError:
        return None
    if not host or "%" in host or parts.username is not None or parts.password is not None:
        return None
    return host.rstrip(".").lower()


def plain_host(url: str) -> str | None:
    """The host of ``url`` as Chromium reads it; None when it could be read two ways."""
    return _host_of(url)


@dataclass(frozen=True)
class NavigationPolicy:
    allow_hosts: tuple[str, ...] = ()  # empty: every host of the web
    trusted_pages: tuple[str, ...] = ()  # pages a person opened on purpose (file: ones)

    @classmethod
    def of(cls, allow_hosts: list[str] | tuple[str, ...] = (),
           trusted_pages: list[str] | tuple[str, ...] = ()) -> NavigationPolicy:
        return cls(tuple(check_host_entry(h) for h in allow_hosts),
                   tuple(_without_fragment(p) for p in trusted_pages))

    # -- hosts --------------------------------------------------------------------
    def host_allowed(self, host: str) -> bool:
        if not self.allow_hosts:
            return True
        host = host.strip("[]").lower()
        for entry in self.allow_hosts:
            entry = entry.strip("[]")
            if entry.startswith("*."):
                if host.endswith(entry[1:]):
                    return True
            elif host == entry:
                return True
        return False

    def _host_reason(self, url: str) -> str | None:
        if not self.allow_hosts:  # every host is fine: only the scheme mattered
            return None
        host = _host_of(url)
        if host is None:
            return f"{_short(url)} is not a plain web address the agent may open"
        if not self.host_allowed(host):
            return (f"{host} is not an allowed host (allowed: "
                    f"{', '.join(self.allow_hosts)})")
        return None

    # -- the three checks ---------------------------------------------------------
    def refuse_target(self, url: str) -> str | None:
        """Why the model may not open ``url`` (goto, new_tab, a reload); None if it may."""
        text = url.strip()
        if text.lower() == BLANK:
            return None
        scheme = _scheme(text)
        if scheme not in WEB_SCHEMES:
            label = f"{scheme}:" if scheme else "this"
            return (f"{label} addresses are off limits for the agent; only http(s) pages "
                    "and about:blank can be opened")
        return self._host_reason(text)

    def refuse_start(self, url: str) -> str | None:
        """Why a person's start page may not be opened: trusted pages may, besides the web."""
        if _without_fragment(url.strip()) in self.trusted_pages:
            return None
        return self.refuse_target(url)

    def refuse_page(self, url: str) -> str | None:
        """Why the agent may not look at a page that is open; None if it may."""
        if url in _BROWSER_PAGES or url.startswith(_ERROR_PAGE):
            return None
        if _without_fragment(url) in self.trusted_pages:
            return None
        if _scheme(url) == "blob":  # made by the page itself; judged by its origin
            return self.refuse_page(url[5:])
        return self.refuse_target(url)

    def reloadable(self, url: str) -> bool:
        """Whether a watchdog may open ``url`` again for the agent."""
        if url.strip().lower() == BLANK:
            return False
        return self.refuse_start(url) is None  # the web, or a page a person trusted

    # -- the browser's own layer -------------------------------------------------------
    def launch_args(self) -> list[str]:
        """Chromium resolves no host but the allowed ones (redirects and pop-ups included)."""
        if not self.allow_hosts:
            return []
        rules = ["MAP * ~NOTFOUND", *(f"EXCLUDE {h}" for h in self.allow_hosts)]
        return [f"--host-resolver-rules={' , '.join(rules)}"]


def start_pages(url: str, *, allow_file: bool) -> list[str]:
    """Pages to trust for a start address a person typed: a local page only when they
    said so (``--allow-file-url``), since trusting it lets the agent read it."""
    return [url.strip()] if allow_file and _scheme(url) == "file" else []


def start_refusal(url: str, allow_hosts: list[str], trusted: list[str]) -> str | None:
    """Why a person's start address cannot be used, with what to do about it."""
    reason = NavigationPolicy.of(allow_hosts, trusted).refuse_start(url)
    if reason and _scheme(url) == "file":
        reason += "; pass --allow-file-url to let the agent read this local page"
    return reason


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def _short(url: str, limit: int = 80) -> str:
    text = repr(url)
    return text if len(text) <= limit else text[: limit - 1] + "…"


NO_LIMITS = NavigationPolicy()
