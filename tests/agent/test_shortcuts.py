"""URL shortcuts: shown for their own site, and filled values are encoded for their position."""

import pytest

from colorbrowser.agent.shortcuts import ShortcutHook, file_source, shortcut_line
from colorbrowser.knowledge import make_tip
from colorbrowser.knowledge.shortcuts import ShortcutError, fill_template, match_template
from colorbrowser.steps import Decision, StepContext
from colorbrowser.types import Action, Observation

SEARCH_T = "http://127.0.0.1:8000/search.html?q={query}"
SEARCH = make_tip(id="search", site="127.0.0.1:8000", kind="shortcut", url_template=SEARCH_T,
                  text="site search")
USER = make_tip(id="profile", site="127.0.0.1:8000", kind="shortcut", text="a user's repos",
                url_template="http://127.0.0.1:8000/users/{name}/repos")
OTHER = make_tip(id="map", site="127.0.0.1:9000", kind="shortcut", text="find a place",
                 url_template="http://127.0.0.1:9000/find?where={place}")


@pytest.mark.parametrize(
    ("template", "values", "url"),
    [
        (SEARCH_T, {"query": "blue socks & more"},
         "http://127.0.0.1:8000/search.html?q=blue+socks+%26+more"),
        (SEARCH_T, {"query": "C++ 50%"}, "http://127.0.0.1:8000/search.html?q=C%2B%2B+50%25"),
        (USER.url_template, {"name": "Jane Doe/x"},
         "http://127.0.0.1:8000/users/Jane%20Doe%2Fx/repos"),
    ],
)
def test_the_shortcut_is_encoded(template, values, url):
    assert fill_template(template, values) == url


def test_a_missing_value_is_a_clear_error():
    with pytest.raises(ShortcutError, match="query"):
        fill_template(SEARCH_T, {})


def test_plain_or_already_encoded_values_are_recognised():
    assert match_template("http://127.0.0.1:8000/search.html?q=blue socks", SEARCH_T) == (
        {"query": "blue socks"}, "")
    assert match_template("http://127.0.0.1:8000/search.html?q=blue%20socks&page=2",
                          SEARCH_T) == ({"query": "blue socks"}, "&page=2")
    assert match_template("http://127.0.0.1:8000/search.html?q=C++", SEARCH_T) == (
        {"query": "C++"}, "")
    assert match_template("http://127.0.0.1:8000/cart.html", SEARCH_T) is None


def test_hook_shows_only_this_sites_shortcuts_and_rewrites_goto():
    hook = ShortcutHook(source=lambda url: [SEARCH, USER, OTHER])
    ctx = StepContext(step=1)
    obs = Observation(url="http://127.0.0.1:8000/index.html", title="", axtree="")
    hook.before_decide(None, ctx, obs)
    assert ctx.shortcuts == [shortcut_line(SEARCH), shortcut_line(USER)]

    goto = Action("goto", ["http://127.0.0.1:8000/search.html?q=wool socks & hats"])
    decision = hook.review(None, ctx, Decision("search", goto, "")).decision  # a gate edit
    assert decision.action.args[0] == "http://127.0.0.1:8000/search.html?q=wool+socks+%26+hats"
    assert ctx.shortcut.model_dump() == {"id": "search", "values": {"query": "wool socks & hats"},
                                         "url": decision.action.args[0]}


def test_hook_leaves_other_actions_alone():
    hook = ShortcutHook(source=lambda url: [SEARCH])
    ctx = StepContext(step=1)
    hook.before_decide(None, ctx, Observation(url="http://127.0.0.1:8000/", title="", axtree=""))
    click = Decision("", Action("click", ["3", "left"]), "")
    assert hook.review(None, ctx, click) is None  # no opinion: the click runs as decided
    assert click.action.args == ["3", "left"] and ctx.shortcut is None


def test_shortcuts_can_come_from_a_tips_file(tmp_path):
    path = tmp_path / "shortcuts.yaml"
    path.write_text(
        "- id: search\n  site: 127.0.0.1:8000\n  kind: shortcut\n  text: site search\n"
        f"  url_template: '{SEARCH_T}'\n"
        "- id: note\n  site: 127.0.0.1:8000\n  text: a plain tip is not a shortcut\n"
    )
    source = file_source(path)
    assert [t.id for t in source("http://127.0.0.1:8000/a")] == ["search"]
    assert source("http://127.0.0.1:9999/a") == []
