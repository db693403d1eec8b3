"""In real Chromium: whatever the model writes, it cannot read local files or reach a
host that is not allowed, and every refusal is an action error it can read."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import BrowserError
from colorbrowser.static_server import StaticServer
from colorbrowser.testing import send_html

SECRET = "TOP-SECRET-LINE-7731"


@pytest.fixture
def secret_file(tmp_path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(f"{SECRET}\n")
    return path


@pytest.fixture
def other_site(tmp_path):
    """A second site, reached as http://localhost:PORT; it counts every request."""
    hits: list[str] = []

    def count(req):
        hits.append(req.path)
        send_html(req, f"<title>Other</title><p>{SECRET}</p>")

    root = tmp_path / "other"
    root.mkdir()
    with StaticServer(root, token="", routes={"/leak": count, "/pop": count}) as server:
        yield f"http://localhost:{server.port}", hits


@pytest.fixture
def home(tmp_path, other_site):
    """The allowed site (127.0.0.1), with a redirect and links to the other site."""
    other, _ = other_site

    def redirect(req):
        req.send_response(302)
        req.send_header("Location", f"{other}/leak?data=stolen")
        req.end_headers()

    root = tmp_path / "home"
    root.mkdir()
    (root / "index.html").write_text(
        "<title>Home</title><a href='/redirect'>Redirected</a> "
        f"<a target='_blank' href='{other}/pop'>Pop-up</a> "
        f"<form action='{other}/leak' method='get'><button>Send</button></form>")
    with StaticServer(root, token="", routes={"/redirect": redirect}) as server:
        yield f"http://127.0.0.1:{server.port}"


def open_env(**settings) -> BrowserEnv:
    return BrowserEnv(BrowserSettings(action_timeout_ms=2000, navigation_timeout_ms=5000,
                                      network_retries=0, **settings))


def bid_of(obs, role: str, name: str) -> str:
    return next(e.bid for e in obs.elements.values() if e.role == role and e.name == name)


@pytest.mark.parametrize("action", [
    "goto('file:///etc/passwd')", "goto('FILE:///etc/passwd')", "new_tab('file:///etc/hosts')",
    "goto('data:text/html,<h1>hi</h1>')", "goto('chrome://version')",
    "goto('view-source:http://127.0.0.1/')", "goto('about:config')",
])
def test_the_model_cannot_leave_the_web(home, action):
    with open_env() as env:
        env.reset(f"{home}/index.html")
        tabs = len(env.session.pages)
        result = env.step(action)
        obs = env.observe()
    assert not result.ok
    assert "off limits" in result.error or "unsupported URL scheme" in result.error
    assert obs.url == f"{home}/index.html" and len(obs.tabs) == tabs
    assert "root:" not in obs.axtree


def test_a_refused_goto_never_shows_the_file_in_the_next_observation(home, secret_file):
    with open_env() as env:
        env.reset(f"{home}/index.html")
        env.step(f"goto('{secret_file.as_uri()}')")
        obs = env.observe()
    assert SECRET not in obs.axtree and "off limits" in (obs.last_error or "")


def test_a_person_may_start_on_a_local_page_but_its_links_lead_nowhere(tmp_path, secret_file):
    start = tmp_path / "report.html"
    start.write_text(f"<title>Report</title><a href='{secret_file.as_uri()}'>notes</a>")
    with open_env(trusted_pages=[start.as_uri()]) as env:
        obs = env.reset(start.as_uri())
        assert obs.title == "Report"
        result = env.step(f"click('{bid_of(obs, 'link', 'notes')}')")
        after = env.observe()
        again = env.step(f"goto('{start.as_uri()}')")
    assert not result.ok and "left unread" in result.error
    assert SECRET not in after.axtree and after.url in (start.as_uri(), "about:blank")
    assert not again.ok and "refused" in again.error  # the model's goto: web only, even here


def test_a_local_page_that_moves_on_just_before_a_look_is_never_read(tmp_path, secret_file):
    """The tab's address follows the driver's events, which arrive only once the look
    has begun: a navigation started just before it commits while the page is read.
    (The test's evaluate stands in for the trusted page's own script moving on.)"""
    start = tmp_path / "report.html"
    start.write_text("<title>Report</title><p>The report</p>")
    with open_env(trusted_pages=[start.as_uri()]) as env:
        env.reset(start.as_uri())
        env.page.evaluate(f"location.href = {secret_file.as_uri()!r}")
        obs = env.observe()
    assert SECRET not in obs.axtree and "left unread" in (obs.last_error or "")
    assert obs.url in (start.as_uri(), "about:blank")


def test_a_local_start_page_needs_the_person_to_trust_it(tmp_path):
    start = tmp_path / "report.html"
    start.write_text("<title>Report</title>")
    with open_env() as env, pytest.raises(BrowserError, match="off limits"):
        env.reset(start.as_uri())


def test_with_a_host_list_goto_elsewhere_is_refused_before_any_request(home, other_site):
    other, hits = other_site
    with open_env(allow_hosts=["127.0.0.1"]) as env:
        env.reset(f"{home}/index.html")
        result = env.step(f"goto('{other}/leak?data=stolen')")
    assert not result.ok and "localhost is not an allowed host" in result.error
    assert hits == []


@pytest.mark.parametrize("name", ["Redirected", "Pop-up", "Send"])
def test_with_a_host_list_no_redirect_popup_or_form_reaches_another_host(home, other_site,
                                                                        name):
    _, hits = other_site
    with open_env(allow_hosts=["127.0.0.1"]) as env:
        obs = env.reset(f"{home}/index.html")
        role = "button" if name == "Send" else "link"
        result = env.step(f"click('{bid_of(obs, role, name)}')")
        after = env.observe()
    assert hits == []  # the other host never saw a request
    assert not result.ok and "not an allowed host" in result.error, result.error
    assert after.url == f"{home}/index.html" and len(after.tabs) == 1
    assert SECRET not in after.axtree


def test_without_a_host_list_other_hosts_are_fine(home, other_site):
    other, hits = other_site
    with open_env() as env:
        env.reset(f"{home}/index.html")
        result = env.step(f"goto('{other}/leak')")
    assert result.ok and hits == ["/leak"]


def test_a_start_page_off_the_host_list_is_refused(other_site):
    other, hits = other_site
    with open_env(allow_hosts=["127.0.0.1"]) as env, pytest.raises(BrowserError,
                                                                   match="not an allowed"):
        env.reset(f"{other}/leak")
    assert hits == []


def test_a_restored_browser_does_not_reopen_a_local_file(home, secret_file):
    with open_env() as env:
        env.reset(f"{home}/index.html")
        obs = env.restore({"tabs": [f"{home}/index.html", secret_file.as_uri()], "active": 1,
                           "storage": {}})
    assert SECRET not in obs.axtree
    assert all(not t.url.startswith("file:") for t in obs.tabs)
