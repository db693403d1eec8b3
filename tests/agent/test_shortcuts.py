"""URL shortcuts: shown for their own site, and filled values are encoded for their position."""

import pytest

from colorbrowser.agent.operator import Decision
from colorbrowser.agent.shortcuts import Shortcut, ShortcutHook, expand, match, validate_template
from colorbrowser.agent.state import StepContext
from colorbrowser.errors import UserError
from colorbrowser.types import Action, Observation

SEARCH = Shortcut("search", "http://127.0.0.1:8000/search.html?q={query}", "site search")
USER = Shortcut("profile", "http://127.0.0.1:8000/users/{name}/repos")
OTHER = Shortcut("map", "http://127.0.0.1:9000/find?where={place}")


@pytest.mark.parametrize(
    ("template", "values", "url"),
    [
        (SEARCH.url_template, {"query": "blue socks & more"},
         "http://127.0.0.1:8000/search.html?q=blue+socks+%26+more"),
        (SEARCH.url_template, {"query": "C++ 50%"},
         "http://127.0.0.1:8000/search.html?q=C%2B%2B+50%25"),
        (USER.url_template, {"name": "Jane Doe/x"},
         "http://127.0.0.1:8000/users/Jane%20Doe%2Fx/repos"),
    ],
)
def test_the_shortcut_is_encoded(template, values, url):
    assert expand(template, values) == url


def test_a_missing_value_is_a_clear_error():
    with pytest.raises(UserError, match="'query' is missing"):
        expand(SEARCH.url_template, {})


@pytest.mark.parametrize("bad", ["http://h/s?q={}", "http://h/s?q={1x}", "ftp://h/{q}",
                                 "http://h/s?q={query", "http://h/s"])
def test_broken_templates_are_rejected(bad):
    with pytest.raises(UserError):
        validate_template(bad)


def test_plain_or_already_encoded_values_are_recognised():
    assert match("http://127.0.0.1:8000/search.html?q=blue socks", SEARCH) == (
        {"query": "blue socks"}, "")
    assert match("http://127.0.0.1:8000/search.html?q=blue%20socks&page=2", SEARCH) == (
        {"query": "blue socks"}, "&page=2")
    assert match("http://127.0.0.1:8000/cart.html", SEARCH) is None


def test_hook_shows_only_this_sites_shortcuts_and_rewrites_goto():
    hook = ShortcutHook(source=lambda url: [SEARCH, USER, OTHER])
    ctx = StepContext(step=1)
    obs = Observation(url="http://127.0.0.1:8000/index.html", title="", axtree="")
    hook.before_decide(None, ctx, obs)
    assert ctx.shortcuts == [SEARCH.line(), USER.line()]

    goto = Action("goto", ["http://127.0.0.1:8000/search.html?q=wool socks & hats"])
    decision = hook.review(None, ctx, Decision("search", goto, ""))
    assert decision.action.args[0] == "http://127.0.0.1:8000/search.html?q=wool+socks+%26+hats"
    assert ctx.extra["shortcut"]["name"] == "search"
    assert ctx.extra["shortcut"]["values"] == {"query": "wool socks & hats"}


def test_hook_leaves_other_actions_alone():
    hook = ShortcutHook(source=lambda url: [SEARCH])
    ctx = StepContext(step=1)
    hook.before_decide(None, ctx, Observation(url="http://127.0.0.1:8000/", title="", axtree=""))
    click = Decision("", Action("click", ["3", "left"]), "")
    assert hook.review(None, ctx, click).action.args == ["3", "left"]
    assert "shortcut" not in ctx.extra
