"""Every action leaves evidence from the browser's own events, in real Chromium: the
requests it caused with their statuses (form posts with field names, never values),
error responses, the page's error texts, dialogs, cookies set and removed, downloads."""

from __future__ import annotations

import json

import pytest

from tests.verify_site import verify_site

from .browser_helpers import find


@pytest.fixture(scope="module")
def site():
    with verify_site() as running:
        yield running


def _fill_and_submit(env, site, page: str, fields: dict[str, str], button: str):
    obs = env.reset(f"{site.url}/{page}")
    for label, value in fields.items():
        assert env.step(f"fill('{find(obs, label).bid}', {value!r})").ok
    return env.step(f"click('{find(obs, button, 'button').bid}')")


def test_a_form_post_is_kept_with_its_status_and_field_names_but_no_values(env, site):
    result = _fill_and_submit(env, site, "form.html",
                              {"Title": "Gaiters", "Shop password": "hunter22"}, "Save")
    posts = [r for r in result.evidence.requests if r.method == "POST"]
    assert [(p.url, p.status, p.fields) for p in posts] == [
        (f"{site.url}/save", 303, ["title", "secret"])]
    assert any(r.url.endswith("/saved") and r.status == 200 for r in result.evidence.requests)
    assert result.evidence.error_responses == [] and result.evidence.page_errors == []
    saved = json.dumps(result.evidence.model_dump())
    assert "Gaiters" not in saved and "hunter22" not in saved
    assert site.stored[-1] == "Gaiters"


def test_an_error_response_and_the_error_page_that_followed_are_kept(env, site):
    result = _fill_and_submit(env, site, "form.html", {"Broken title": "Boots"},
                              "Save on the broken server")
    [error] = result.evidence.error_responses
    assert (error.method, error.status, error.fields) == ("POST", 500, ["title"])
    assert "Internal Server Error" in result.evidence.page_errors


def test_a_form_that_posts_into_a_new_tab_keeps_its_post(env, site):
    """The new tab is announced once the page the post led to has loaded: the post was
    made before the tab had a listener of its own."""
    result = _fill_and_submit(env, site, "newtab.html", {"Tab title": "Gloves"},
                              "Save in a new tab")
    assert site.stored[-1] == "Gloves"
    assert [(r.method, r.url, r.status, r.fields) for r in result.evidence.requests
            if r.writes] == [("POST", f"{site.url}/save", 303, ["title"])]
    assert any(r.url == f"{site.url}/saved" and r.kind == "document" and r.status == 200
               for r in result.evidence.requests)
    assert len(env.session.pages) == 2 and env.page.url == f"{site.url}/saved"


def test_an_xhr_error_the_error_text_it_shows_and_its_dialog_are_kept(env, site):
    obs = env.reset(f"{site.url}/alert.html")
    result = env.step(f"click('{find(obs, 'Pay', 'button').bid}')")
    evidence = result.evidence
    assert [(r.method, r.status, r.kind, r.fields) for r in evidence.error_responses] == [
        ("POST", 402, "fetch", ["card"])]
    # The page reacts to the answer a moment later; on a loaded machine that moment may
    # fall after the click's window: then it is the click's late news, not lost.
    env.page.wait_for_function("document.getElementById('msg').textContent !== ''")
    late = env.late_evidence()
    dialogs = evidence.dialogs + (late.dialogs if late else [])
    errors = set(evidence.page_errors + (late.page_errors if late else []))
    assert dialogs == ["alert 'Card declined' was accepted"]
    assert errors == {"Payment failed: card declined"}


def test_a_success_banner_in_an_alert_region_is_not_an_error(env):
    from colorbrowser.browser.evidence import error_texts

    env.reset("about:blank")
    env.page.set_content(
        '<div class="alert alert-success" role="alert">Your order has been placed</div>'
        '<div class="alert alert-info" role="alert">Basket saved</div>'
        '<div class="alert alert-danger" role="alert">Card declined</div>'
        '<p role="alert">Session expired</p>'
        '<p class="notice error">Stock too low</p>')
    assert error_texts(env.page) == ["Card declined", "Session expired", "Stock too low"]


def test_cookies_set_and_removed_are_kept_by_name_per_site(env, site):
    env.page.context.clear_cookies()
    result = _fill_and_submit(env, site, "login.html", {"User": "ann", "Password": "pw-123"},
                              "Sign in")
    [change] = result.evidence.cookies
    assert (change.site, change.set, change.removed) == ("127.0.0.1", ["session"], [])
    assert "s3cr3t-session-id" not in json.dumps(result.evidence.model_dump())
    again = env.step(f"goto('{site.url}/shop.html')")
    assert again.evidence.cookies == []  # the same cookie, unchanged
    obs = env.observe()
    out = env.step(f"click('{find(obs, 'Sign out', 'link').bid}')")
    assert [(c.site, c.set, c.removed) for c in out.evidence.cookies] == [
        ("127.0.0.1", [], ["session"])]


def test_a_login_that_sets_no_cookie_leaves_no_cookie_evidence(env, site):
    env.page.context.clear_cookies()
    result = _fill_and_submit(env, site, "login.html", {"Other user": "bob"},
                              "Sign in without a session")
    assert result.ok and result.evidence.cookies == []
    assert [r.status for r in result.evidence.requests if r.method == "POST"] == [303]


def test_a_download_is_kept(env, site):
    obs = env.reset(f"{site.url}/alert.html")
    result = env.step(f"click('{find(obs, 'Invoice', 'link').bid}')")
    assert result.evidence.downloads == [f"invoice.txt from {site.url}/download"]


def test_an_error_page_reached_by_a_link_is_kept_as_error_response_and_text(env, site):
    obs = env.reset(f"{site.url}/shop.html")
    result = env.step(f"click('{find(obs, 'Old catalogue', 'link').bid}')")
    assert [(r.status, r.kind) for r in result.evidence.error_responses] == [(404, "document")]
    assert "Not Found" in result.evidence.page_errors


def _release_late_post(env) -> None:
    """Let late.html's armed form post now, and wait until the page it led to loaded."""
    env.page.evaluate("window.go = true")
    env.page.wait_for_url("**/saved")


def test_a_post_that_starts_after_the_action_window_is_carried_not_lost(env, site):
    obs = env.reset(f"{site.url}/late.html")
    assert env.step(f"fill('{find(obs, 'Late title').bid}', 'Anklets')").ok
    click = env.step(f"click('{find(obs, 'Save later', 'button').bid}')")
    assert not [r for r in click.evidence.requests if r.method == "POST"]  # not yet
    _release_late_post(env)
    assert site.stored[-1] == "Anklets"
    # A stop now: the verifier is handed the post as the last action's late news...
    late = env.late_evidence()
    assert [(r.method, r.url, r.status, r.fields) for r in late.requests if r.writes] == [
        ("POST", f"{site.url}/save", 303, ["title"])]
    assert any(r.url.endswith("/saved") and r.kind == "document" for r in late.requests)
    assert late.page_errors == [] and late.dialogs == []
    # ...and if the agent acts instead, the next action's evidence carries it, once.
    then = env.step("scroll(0, 100)")
    assert then.evidence.requests == []
    assert [r for r in then.evidence.late.requests if r.writes] == [
        r for r in late.requests if r.writes]
    assert "Anklets" not in json.dumps(then.evidence.model_dump())
    again = env.step("scroll(0, 100)")
    assert again.evidence.late is None and env.late_evidence() is None


def test_a_post_sent_and_answered_while_the_evidence_reads_the_page_is_kept(env, site):
    """On a loaded machine a submit's post can start after the step's last look at its
    requests, and its navigation holds the page until the post is answered: reading the
    page's error texts then delivers the post's request and its answer at once.
    while-read.html forces that order: it posts, synchronously, while it is read."""
    result = _fill_and_submit(env, site, "while-read.html", {"Read title": "Puttees"},
                              "Save when read")
    assert site.stored[-1] == "Puttees"
    assert [(r.method, r.url, r.status, r.fields) for r in result.evidence.requests
            if r.writes] == [("POST", f"{site.url}/save", 303, ["title"])]
    assert env.late_evidence() is None  # told once, in its own step


def test_a_post_delivered_as_the_next_action_begins_is_that_action_s_late_news(env, site):
    """The next action's start reads the page too (the last one's late news came with a
    dialog); a post delivered by that read is carried, not dropped."""
    result = _fill_and_submit(env, site, "while-read.html?writes=2", {"Read title": "Spats"},
                              "Save when read")
    env.page.wait_for_function("window.alerted === true")  # the dialog is news now
    then = env.step("scroll(0, 100)")
    assert site.stored[-2:] == ["Spats", "Spats"]
    assert [r.status for r in result.evidence.requests if r.writes] == [303]
    assert then.evidence.requests == []  # the scroll itself sent nothing
    late = then.evidence.late
    assert [(r.method, r.status) for r in late.requests if r.writes] == [("POST", 303)]
    assert late.dialogs == ["alert 'Saved; saving again' was accepted"]


def test_a_read_a_navigation_cuts_short_is_made_again_on_the_page_it_brought(env, site):
    """A read whose document a navigation takes away (a post the step did not see start,
    on a loaded machine) reads the page the navigation brought, here the error page the
    post led to, which the verifier refutes a save by. The read itself starts the post,
    so the navigation always lands mid-call."""
    from colorbrowser.browser.reads import evaluate_settled

    env.reset(f"{site.url}/form.html")
    shown = evaluate_settled(env.page, """() => {
        if (!location.pathname.endsWith('/form.html')) return document.body.innerText;
        const form = document.forms[1];
        form.action = '/save-broken-slowly';
        setTimeout(() => form.submit(), 0);
        return new Promise(() => {});  // never answers on this page
    }""")
    assert "Internal Server Error" in shown


def test_nothing_from_before_an_episode_counts_as_late(env, site):
    env.page.context.clear_cookies()
    env.reset(f"{site.url}/shop.html")  # the start page's own requests
    assert env.late_evidence() is None
    first = env.step("scroll(0, 100)")
    assert first.evidence.late is None


def test_a_look_waits_for_page_loads_and_writes_never_for_reads_that_stay_open():
    """A long poll or an event stream may stay open for minutes: waiting for its answer
    would add the whole wait to every step."""
    from types import SimpleNamespace

    from colorbrowser.browser.evidence import _awaited, _Seen

    def seen(kind: str, method: str) -> _Seen:
        return _Seen(SimpleNamespace(resource_type=kind, method=method))

    assert _awaited(seen("document", "GET")) and _awaited(seen("fetch", "POST"))
    assert _awaited(seen("xhr", "DELETE"))
    assert not _awaited(seen("fetch", "GET")) and not _awaited(seen("xhr", "GET"))
    assert not _awaited(seen("eventsource", "GET"))
