"""Which Chromium gets launched, and the errors when none can be."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from colorbrowser.browser import launch
from colorbrowser.browser.launch import find_chromium, launch_options
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import BrowserError, BrowserUnavailable, UserError


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def no_system(monkeypatch, tmp_path):
    """Pretend the Debian Chromium is not installed (paths point into tmp_path)."""
    monkeypatch.setattr(launch, "SYSTEM_WRAPPER", tmp_path / "usr/bin/chromium")
    monkeypatch.setattr(launch, "SYSTEM_REAL", tmp_path / "usr/lib/chromium/chromium")
    return tmp_path


def test_explicit_executable_wins(no_system):
    exe = _exe(no_system / "custom/chrome")
    _exe(no_system / "usr/bin/chromium")
    assert find_chromium(BrowserSettings(executable=str(exe)), environ={}) == str(exe)


def test_chromium_path_variable_is_used_when_settings_have_none(no_system):
    exe = _exe(no_system / "env/chrome")
    assert find_chromium(BrowserSettings(), environ={"CHROMIUM_PATH": str(exe)}) == str(exe)


def test_missing_explicit_executable_is_a_clear_error(no_system):
    with pytest.raises(BrowserError, match=r"Chromium not found at .*nope \(from CHROMIUM_PATH\)"):
        find_chromium(BrowserSettings(), environ={"CHROMIUM_PATH": str(no_system / "nope")})


def test_a_bad_chromium_path_variable_is_named_even_after_settings_loaded_it(no_system):
    from colorbrowser.config import load_settings

    environ = {"CHROMIUM_PATH": str(no_system / "nope"), "XDG_CONFIG_HOME": str(no_system)}
    settings = load_settings(None, environ=environ).browser  # the variable lands in settings
    with pytest.raises(BrowserError, match=r"\(from CHROMIUM_PATH\)"):
        find_chromium(settings, environ=environ)
    with pytest.raises(BrowserError, match=r"\(from settings\)"):
        find_chromium(BrowserSettings(executable=str(no_system / "x")), environ=environ)


def test_real_binary_is_preferred_over_the_debian_wrapper(no_system):
    wrapper = _exe(no_system / "usr/bin/chromium")
    assert find_chromium(BrowserSettings(), environ={"PATH": ""}) == str(wrapper)
    real = _exe(no_system / "usr/lib/chromium/chromium")
    assert find_chromium(BrowserSettings(), environ={"PATH": ""}) == str(real)


def test_falls_back_to_path_then_to_playwright_browsers(no_system):
    assert find_chromium(BrowserSettings(), environ={"PATH": str(no_system / "empty")}) is None
    found = _exe(no_system / "bin/chromium-browser")
    assert find_chromium(BrowserSettings(), environ={"PATH": str(found.parent)}) == str(found)
    options = launch_options(BrowserSettings(), environ={"PATH": ""})
    assert "executable_path" not in options  # Playwright picks its own download


def test_launch_options_are_headless_and_quiet_by_default(no_system):
    options = launch_options(BrowserSettings(), environ={"PATH": ""})
    assert options["headless"] is True
    for flag in ("--disable-background-networking", "--disable-component-update",
                 "--no-first-run"):
        assert flag in options["args"]
    assert not any(a.startswith("--disable-features") for a in options["args"])
    headed = launch_options(BrowserSettings(headless=False), environ={"PATH": ""})
    assert headed["headless"] is False


def test_session_with_a_broken_executable_fails_with_one_line(tmp_path):
    broken = _exe(tmp_path / "fake-chromium")  # a shell script, not a browser
    session = BrowserSession(BrowserSettings(executable=str(broken)))
    with pytest.raises(BrowserError) as info:
        session.start()
    assert str(info.value).startswith(f"cannot launch Chromium ({broken}): ")
    assert "\n" not in str(info.value)
    assert not session.started


def test_two_sessions_in_one_thread_share_the_driver(shared_env, pages_url):
    """A second browser (e.g. a CLI command run in-process) works next to the shared one."""
    from colorbrowser.browser.env import BrowserEnv
    shared_env.reset(f"{pages_url}/browser/page1.html")
    with BrowserEnv() as other:
        obs = other.reset(f"{pages_url}/browser/page2.html")
        assert obs.title == "Page two"
    assert shared_env.observe().title == "Page one"  # the first one still works
    state = shared_env.session.storage_state()
    assert set(state) == {"cookies", "origins"}


def test_a_fresh_context_keeps_the_browser_and_nothing_of_the_old_context(pages_url):
    """Many independent sessions in a row (the capture benchmark) pay one launch: the
    new context starts with the given cookies only, on one blank tab."""
    session = BrowserSession(BrowserSettings(action_timeout_ms=3000)).start()
    try:
        pid = session.browser_pid
        session.page.goto(f"{pages_url}/browser/page1.html")
        session.context.add_cookies([{"name": "old", "value": "1", "url": pages_url}])
        session.new_tab(f"{pages_url}/browser/page2.html")
        old = session.context
        given = {"cookies": [{"name": "given", "value": "2", "domain": "127.0.0.1",
                              "path": "/", "expires": -1, "httpOnly": False,
                              "secure": False, "sameSite": "Lax"}], "origins": []}
        session.fresh_context(given)
        assert session.context is not old and not old.pages
        assert session.browser_pid == pid and session.is_alive
        assert [p.url for p in session.pages] == ["about:blank"]
        assert [c["name"] for c in session.context.cookies()] == ["given"]
        session.page.goto(f"{pages_url}/browser/page2.html")
        assert session.page.title() == "Page two"
    finally:
        session.close()


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / "nope",
    lambda tmp: tmp,  # a folder
    lambda tmp: (tmp / "notes.txt", (tmp / "notes.txt").write_text("x"))[0],  # not executable
], ids=["missing", "folder", "not-executable"])
def test_a_configured_browser_that_is_not_there_is_the_users_mistake(no_system, make):
    path = make(no_system)
    with pytest.raises(BrowserUnavailable) as info:
        find_chromium(BrowserSettings(), environ={"CHROMIUM_PATH": str(path)})
    assert isinstance(info.value, UserError)
    assert f"{path}" in str(info.value) and "(from CHROMIUM_PATH)" in str(info.value)


def test_a_configured_executable_that_is_not_a_browser_is_the_users_mistake(tmp_path):
    session = BrowserSession(BrowserSettings(executable="/bin/true"))
    with pytest.raises(BrowserUnavailable) as info:
        session.start()
    message = str(info.value)
    assert message.startswith("cannot launch Chromium (/bin/true): ")
    assert "not a browser" in message and "\n" not in message


def test_a_chromium_that_fails_to_launch_is_a_browser_failure_not_a_mistake(tmp_path):
    # It answers --version like Chromium, then dies: the browser failed, not the user.
    broken = tmp_path / "chromium"
    broken.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "Chromium 120.0.6099.224" '
                      "&& exit 0\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(BrowserError) as info:
        BrowserSession(BrowserSettings(executable=str(broken))).start()
    assert not isinstance(info.value, UserError)
