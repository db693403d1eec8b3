"""Checks of where the episode ended up: signed in to the site (a session cookie), or
on the page the goal names (not an error page, not the start page, not one link short)."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from colorbrowser.agent.verify.effects import documents, in_browser, writes
from colorbrowser.agent.verify.proof import FinalPage, Proof
from colorbrowser.agent.verify.values import Observed, contains, flat, values_in
from colorbrowser.evidence import CheckNote


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def check_sign_in(proof: Proof) -> CheckNote:
    steps = [s for s in proof.steps if s.executed]
    posts = [(s, r) for s in steps for r in writes(s, sign_in=True)]
    host = _host(posts[-1][1].url) if posts else _host(proof.final.url)
    cookies: dict[str, bool] = {}
    for step in steps:
        for change in (step.evidence.cookies if step.evidence else []):
            if host == change.site or host.endswith("." + change.site):
                for name in change.set:
                    cookies[name] = True
                for name in change.removed:
                    cookies[name] = False
    alive = [name for name, on in cookies.items() if on]
    if alive:
        return CheckNote(name="session", passed=True,
                         reason=f"cookie {alive[-1]} set for {host}")
    if posts:
        return CheckNote(name="no_session", passed=False,
                         reason=f"signing in gave no session: no cookie was set for {host} "
                                "after the sign-in form was sent")
    return CheckNote(name="session_unknown", passed=False,
                     reason=f"no sign-in was seen in this episode and no cookie was set for "
                            f"{host or 'the site'}; sign in first")


_ERROR_PAGE = re.compile(r"\b(?:[45]\d\d|not found|forbidden|internal server error|"
                         r"bad request|service unavailable|unauthori[sz]ed|error)\b", re.I)


def check_open(proof: Proof) -> CheckNote:
    final = proof.final
    if final.url.startswith(("chrome-error://", "about:blank")) or not final.url:
        return CheckNote(name="error_page", passed=False,
                         reason=f"the final page is not a page of the site ({final.url or 'none'})")
    docs = [r for s in proof.steps if s.executed for r in documents(s)]
    if docs and docs[-1].error:
        return CheckNote(name="error_page", passed=False,
                         reason=f"the final page is an error page: {docs[-1].line()}")
    last = next((s.evidence for s in reversed(proof.steps) if s.executed and documents(s)),
                None)
    if last is not None and any(_ERROR_PAGE.search(t) for t in last.page_errors) \
            and _ERROR_PAGE.search(final.title):
        return CheckNote(name="error_page", passed=False,
                         reason=f"the final page is an error page: {final.title!r}")
    if not any(in_browser(s) for s in proof.steps):
        return CheckNote(name="not_moved", passed=False,
                         reason="you stopped before taking any action, on the page you "
                                "started on; open the page the goal asks for")
    moved = [s for s in proof.steps if s.executed and s.url and s.url != proof.steps[0].url]
    if proof.steps and final.url == proof.steps[0].url and not moved:
        return CheckNote(name="not_moved", passed=False,
                         reason="you are still on the page you started on; open the page "
                                "the goal asks for")
    page = Observed()
    page.add(final.title + "\n" + final.text)
    named = [v for v in values_in(proof.goal) if v.kind != "phrase" and not page.holds(v)]
    if named:
        return CheckNote(name="page_named", passed=False,
                         reason=f"the final page does not show {named[0].text!r}, which the "
                                "goal names; open the page the goal asks for")
    link = link_to_target(proof.goal, final)
    if link is not None:
        return CheckNote(name="page_linked", passed=False,
                         reason=f"the final page only links to {link!r}, which the goal "
                                "names; open that page")
    return CheckNote(name="page", passed=True, reason=f"ended on {final.url}")


_LINK = re.compile(r"^\s*\*?\[[A-Za-z0-9_]{1,32}\]\s+link\s+(?:'((?:[^'\\]|\\.)*)'|"
                   r"\"((?:[^\"\\]|\\.)*)\")", re.M)
_TARGET = re.compile(r"\b([A-Za-z]{3,})\s+#?(\d[\w.-]*\w|\d)")


def targets(goal: str) -> list[tuple[str, str]]:
    """What a page the goal asks for is named by: (noun, value) pairs such as
    ("milestone", "1.3"), and quoted titles as ("", title)."""
    found = [("", str(v.key)) for v in values_in(goal) if v.kind == "quoted"]
    found += [(m.group(1).lower(), m.group(2).lower()) for m in _TARGET.finditer(goal)]
    return found


def link_to_target(goal: str, final: FinalPage) -> str | None:
    """A link on the final page to the very thing the goal names, when the page itself
    is not that thing (its title and address do not name it): a list or search page
    one click short of the goal. None when there is no such link."""
    named = targets(goal)
    if not named:
        return None
    own = flat(final.title + " " + unquote(final.url))
    links = [(a or b).replace("\\'", "'").replace('\\"', '"')
             for a, b in _LINK.findall(final.text)]
    for noun, value in named:
        if contains(own, value):
            continue
        for text in links:
            said = flat(text)
            if contains(said, value) and (not noun or contains(said, noun)):
                return text
    return None

