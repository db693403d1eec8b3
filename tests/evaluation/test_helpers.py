"""func: helpers are parsed, never evaluated; ours run, the others are named as missing."""

from __future__ import annotations

import pytest

from colorbrowser.evaluation.helpers import (
    PageArg,
    parse_helper,
    reddit_post_url,
    resolve_url,
    unsupported_reason,
)


def test_helper_call_is_parsed_into_name_and_literal_arguments():
    call = parse_helper("func:gitlab_get_project_memeber_role(__page__, 'yjlou')")
    assert call.name == "gitlab_get_project_memeber_role"
    assert isinstance(call.args[0], PageArg) and call.args[1] == "yjlou"


@pytest.mark.parametrize("expr", [
    "func:__import__('os').system('true')",
    "func:os.system('true')",
    "func:f(x)",
    "func:f(1 + 2)",
    "func:f(key='v')",
    "func:not valid(",
])
def test_anything_but_a_plain_call_with_string_arguments_is_refused(expr):
    with pytest.raises(ValueError):
        parse_helper(expr)


def test_reddit_post_url_cuts_a_comment_url_back_to_its_post():
    assert (reddit_post_url("http://r:9999/f/books/59421/the-title/-/comment/1235250")
            == "http://r:9999/f/books/59421/")
    assert reddit_post_url("http://r:9999/forums") == "http://r:9999/forums"
    assert reddit_post_url("http://r:9999/user/x/y") == "http://r:9999/user/x/y"


def test_reddit_helper_url_uses_the_agents_last_url():
    expr = "func:reddit_get_post_url('__last_url__')"
    assert resolve_url(expr, "http://r/f/books/12/a-post") == "http://r/f/books/12/"
    # a quote in the agent's URL cannot break out of the argument
    assert resolve_url(expr, "http://r/f/b/1/it's") == "http://r/f/b/1/"


def test_an_unknown_name_parses_but_is_only_ever_reported():
    assert parse_helper("func:open('/etc/passwd')").name == "open"
    assert unsupported_reason("func:open('/etc/passwd')", where="url") == "needs func:open"
    with pytest.raises(ValueError, match="needs func:open"):
        resolve_url("func:open('/etc/passwd')", "http://x")


def test_supported_and_unsupported_helpers_are_told_apart():
    assert unsupported_reason("func:reddit_get_post_url('__last_url__')", where="url") is None
    assert unsupported_reason("func:gitlab_get_project_memeber_role(__page__, 'a')",
                              where="locator") is None
    assert (unsupported_reason("func:shopping_get_latest_order_url()", where="url")
            == "needs func:shopping_get_latest_order_url")
    assert (unsupported_reason("func:shopping_get_sku_latest_review_author('B0')",
                               where="locator")
            == "needs func:shopping_get_sku_latest_review_author")
    # a helper used in the wrong place, or with the wrong arguments, is not run
    assert unsupported_reason("func:reddit_get_post_url('x')", where="locator") is not None
    assert unsupported_reason("func:reddit_get_post_url()", where="url") is not None
    assert unsupported_reason("document.title", where="locator") is None
