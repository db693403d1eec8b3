"""Where the agent may go: web pages only, and only allowed hosts when a list is set.

A model that reads hostile page text can be talked into ``goto('file:///...')`` or
into sending what it read to a host of the attacker's choosing. Three layers keep it
on the web:

- the model's own navigations (``goto``, ``new_tab``, a watchdog's reload) are
  checked here before they run: http(s) pages and ``about:blank`` only, on an
  allowed host;
- with a host list, Chromium itself resolves no other host (``--host-resolver-rules``),
  and no other port of a host whose entry names one (``127.0.0.1:8103``), so
  redirects, pop-ups, forms and sub-resources cannot reach one either, and WebRTC,
  which needs no name to send UDP, sends none;
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
ERROR_PAGE = "chrome-error://"  # where Chromium shows a load that failed
WEBRTC_NO_UDP = "--webrtc-ip-handling-policy=disable_non_proxied_udp"


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
    def host_allowed(self, host: str, port: int | None = None) -> bool:
        """Whether ``host`` (at ``port``) is on the list; an entry without a port covers
        every port, one with a port (``127.0.0.1:8103``) that port only."""
        if not self.allow_hosts:
            return True
        host = host.strip("[]").lower()
        for entry in self.allow_hosts:
            name, wanted = entry_parts(entry)
            if wanted is not None and port != wanted:
                continue
            if name.startswith("*."):
                if host.endswith(name[1:]):
                    return True
            elif host == name:
                return True
        return False

    def _host_reason(self, url: str) -> str | None:
        if not self.allow_hosts:  # every host is fine: only the scheme mattered
            return None
        host = _host_of(url)
        if host is None:
            return f"{_short(url)} is not a plain web address the agent may open"
        port = web_port(url)
        if not self.host_allowed(host, port):
            shown = f"[{host}]" if ":" in host else host
            ported = any(entry_parts(e)[1] is not None for e in self.allow_hosts)
            where = f"{shown}:{port}" if ported else shown
            return (f"{where} is not an allowed host (allowed: "
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
        if url in _BROWSER_PAGES or url.startswith(ERROR_PAGE):
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
        """Chromium resolves no host but the allowed ones (redirects and pop-ups included).

        An entry with a port maps that host and port to itself ahead of the rule that
        sends everything else nowhere (Chromium's first matching MAP wins); EXCLUDE,
        which Chromium checks before any MAP, matches a host at every port."""
        if not self.allow_hosts:
            return []
        ported = [e for e in self.allow_hosts if entry_parts(e)[1] is not None]
        whole = [e for e in self.allow_hosts if entry_parts(e)[1] is None]
        rules = [*(f"MAP {e} {e}" for e in ported), "MAP * ~NOTFOUND",
                 *(f"EXCLUDE {e}" for e in whole)]
        # WebRTC sends UDP (STUN, TURN with a username of the page's choosing) straight
        # to an address, resolving no name: with a host list it sends no UDP at all.
        return [f"--host-resolver-rules={' , '.join(rules)}", WEBRTC_NO_UDP]


def entry_parts(entry: str) -> tuple[str, int | None]:
    """``127.0.0.1:8103`` -> (``127.0.0.1``, 8103); ``[::1]:80`` -> (``::1``, 80); an
    entry without a port (a bare IPv6 address included) -> (name, None)."""
    if entry.startswith("["):
        inside, _, rest = entry[1:].partition("]")
        return inside, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    if entry.count(":") == 1:
        name, _, port = entry.partition(":")
        return name, int(port) if port.isdigit() else None
    return entry, None


def web_port(url: str) -> int | None:
    """The port a web address reaches: its own, else its scheme's (80, 443)."""
    try:
        parts = urlsplit(url.strip())
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return None


def url_host_entries(url: str) -> list[str]:
    """Allowed-host entries for exactly the host and port a web address names; an
    address without a port names both web ports (a site may move from http to https).
    Nothing for an address that is not a plain web one."""
    if _scheme(url.strip()) not in WEB_SCHEMES:
        return []
    host = _host_of(url.strip())
    if host is None:
        return []
    shown = f"[{host}]" if ":" in host else host
    try:
        explicit = urlsplit(url.strip()).port
    except ValueError:
        return []
    ports = [explicit] if explicit else [80, 443]
    return [f"{shown}:{port}" for port in ports]


def start_pages(url: str, *, allow_file: bool) -> list[str]:
    """Pages to trust for a start address a person typed: a local page only when they
    said so (``--allow-file-url``), since trusting it lets the agent read it."""
    return [url.strip()] if allow_file and _scheme(url) == "file" else []


def start_refusal(url: str, allow_hosts: list[str], trusted: list[str], *,
                  file_flag: bool = True) -> str | None:
    """Why a person's start address cannot be used, with what to do about it.

    ``file_flag``: whether the command has ``--allow-file-url`` to suggest."""
    reason = NavigationPolicy.of(allow_hosts, trusted).refuse_start(url)
    if reason and _scheme(url) == "file":
        reason += ("; pass --allow-file-url to let the agent read this local page" if file_flag
                   else "; this command opens web pages only: serve the file over http "
                        "(python -m http.server) and give its http:// address")
    return reason


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def _short(url: str, limit: int = 80) -> str:
    text = repr(url)
    return text if len(text) <= limit else text[: limit - 1] + "…"


NO_LIMITS = NavigationPolicy()
