"""Logging in to WebArena's sites with their known accounts, against local imitations of
their login forms (no real WebArena deployment is reachable from the tests)."""

from __future__ import annotations

import json
from contextlib import ExitStack

import pytest

from colorbrowser.errors import ColorBrowserError
from colorbrowser.evaluation.configured import ConfiguredTask
from colorbrowser.evaluation.taskfiles import load_webarena
from colorbrowser.evaluation.webarena_login import (
    LOGINS,
    addresses,
    ensure_state,
    log_in_site,
    sites_of,
)

from .fake_webarena import fake_site


@pytest.fixture
def sites():
    with ExitStack() as stack:
        yield {name: stack.enter_context(fake_site(name)) for name in LOGINS}


@pytest.mark.parametrize("name", sorted(LOGINS))
def test_each_site_logs_in_with_its_known_account(sites, name):
    state = log_in_site(name, sites[name])
    assert state["cookies"] and all(c["domain"] == "127.0.0.1" for c in state["cookies"])


def test_a_refused_login_is_one_line_naming_the_site(sites):
    with pytest.raises(ColorBrowserError, match=r"^WebArena login to gitlab at .*: no form"):
        log_in_site("gitlab", sites["reddit"])  # the wrong site: no GitLab form there


def test_state_names_map_to_sites_we_can_log_in_to():
    assert sites_of("gitlab.reddit_state.json") == ["gitlab", "reddit"]
    assert sites_of("shopping_admin_state.json") == ["shopping_admin"]
    assert sites_of("map_state.json") is None and sites_of("gitlab.json") is None
    assert addresses("gitlab_state.json", {"WA_GITLAB": "http://g/"}) == {"gitlab": "http://g"}
    assert addresses("gitlab_state.json", {}) is None


def test_a_two_site_state_holds_both_logins(sites, tmp_path):
    path = ensure_state(tmp_path / "gitlab.reddit_state.json",
                        {"gitlab": sites["gitlab"], "reddit": sites["reddit"]})
    names = {c["name"] for c in json.loads(path.read_text())["cookies"]}
    assert names == {"_gitlab_session", "PHPSESSID"}
    stamp = path.stat().st_mtime_ns
    ensure_state(path, {"gitlab": "http://127.0.0.1:9"})  # kept: no second login
    assert path.stat().st_mtime_ns == stamp


def task_file(tmp_path, state: str, start: str):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{
        "task_id": 7, "sites": ["gitlab", "reddit"], "require_login": True,
        "storage_state": f"./.auth/{state}", "start_url": start,
        "intent": "Open my profile", "eval": {"eval_types": ["url_match"],
                                              "reference_url": "__GITLAB__/-/profile"}}]))
    return path


def test_a_task_needing_a_missing_state_logs_in_at_setup(sites, tmp_path, page):
    env = {"WA_GITLAB": sites["gitlab"], "WA_REDDIT": sites["reddit"],
           "WA_AUTH_DIR": str(tmp_path / "auth")}
    path = task_file(tmp_path, "gitlab.reddit_state.json", "__GITLAB__/-/profile")
    definition = load_webarena(path, env=env)[0]
    assert definition.unsupported == []
    assert not (tmp_path / "auth" / "gitlab.reddit_state.json").exists()
    task = ConfiguredTask(definition)
    task.setup(page)
    assert (tmp_path / "auth" / "gitlab.reddit_state.json").is_file()
    assert "Sign out" in page.content()
    page.goto(sites["reddit"] + "/")
    assert "Log out" in page.content()


def test_without_the_site_address_the_task_says_what_is_missing(tmp_path):
    path = task_file(tmp_path, "gitlab.reddit_state.json", "__GITLAB__/-/profile")
    definition = load_webarena(path, env={"WA_GITLAB": "http://127.0.0.1:9",
                                          "WA_AUTH_DIR": str(tmp_path)})[0]
    assert any("login state" in r for r in definition.unsupported)
    assert "WA_REDDIT not set" not in definition.unsupported  # not used by the URLs
