"""browser_observe, browser_act and browser_screenshot through the SDK's in-process
client, against local pages in real Chromium."""

from __future__ import annotations

import ast
import base64
import re

from colorbrowser.agent.secrets import Secret
from colorbrowser.llm.prompts import fenced_spans, outside_fences
from colorbrowser.llm.tokens import count_tokens
from colorbrowser.mcp.server import ServerConfig
from colorbrowser.testing import run_async
from tests.mcp_server.conftest import client, quick_settings, text


def bid(observation: str, role: str, name: str) -> str:
    found = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", observation)
    assert found, f"{role} {name!r} not in:\n{observation}"
    return found.group(1)


def test_observe_fences_the_page_and_acting_changes_it(mcp_url):
    async def body():
        async with client() as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert {"browser_observe", "browser_act", "browser_screenshot", "tips_search",
                    "tips_add"} <= tools
            assert not tools & {"arena_up", "arena_reset", "arena_env"}  # not asked for

            went = await c.call_tool("browser_act", {"action": f"goto('{mcp_url('form.html')}')"})
            assert not went.isError, text(went)
            assert "Order form" in text(went)

            seen = text(await c.call_tool("browser_observe", {}))
            # Everything the page wrote sits inside a fence.
            assert fenced_spans(seen)
            assert "Order socks" not in outside_fences(seen)
            assert "Order form" not in outside_fences(seen)
            first_id = re.match(r"Observation (o\d+)", seen).group(1)

            colour = bid(seen, "textbox", "Colour")
            size = bid(seen, "combobox", "Size")
            for action in (f"fill('{colour}', 'blue')", f"select_option('{size}', 'Large')",
                           f"click('{bid(seen, 'button', 'Add to basket')}')"):
                done = await c.call_tool("browser_act", {"action": action})
                assert not done.isError, text(done)

            changed = text(await c.call_tool("browser_observe", {"diff_since": first_id}))
            body = "\n".join(changed.splitlines()[1:])
            assert "+ " in body and "blue socks, Large" in body
            assert "1 items" in body
            # Only what changed: the unchanged heading is not repeated.
            assert "Order socks" not in body

            again = text(await c.call_tool("browser_observe", {"diff_since": "last"}))
            assert "no change since" in again

            await c.call_tool("browser_act", {"action": f"goto('{mcp_url('list.html')}')"})
            moved = text(await c.call_tool("browser_observe", {"diff_since": first_id}))
            assert f"another page than {first_id}" in moved
            assert "heading 'Catalogue'" in moved and "- " not in moved.split(">>>")[1][:200]
    run_async(body)


def test_observe_is_capped_and_can_be_searched_paged_and_cut_by_depth(mcp_url):
    async def body():
        async with client() as c:
            await c.call_tool("browser_act", {"action": f"goto('{mcp_url('list.html')}')"})
            full = text(await c.call_tool("browser_observe", {"max_tokens": 100_000}))
            assert "Buy 600" in full

            capped = text(await c.call_tool("browser_observe", {}))
            assert 3500 < count_tokens(capped) <= 4000  # the whole answer, header included
            assert "Buy 1'" in capped and "Buy 600" not in capped
            follow = re.search(r"from_line=(\d+)", capped)
            assert follow, capped
            more = {"from_line": int(follow.group(1)), "max_tokens": 50_000}
            rest = text(await c.call_tool("browser_observe", more))
            assert "Buy 600" in rest and "Buy 1'" not in rest

            found = text(await c.call_tool("browser_observe", {"find": "Buy 417"}))
            assert "Buy 417" in found and "Buy 416" not in found
            assert "table 'Products'" in found  # the match is shown inside what holds it
            assert count_tokens(found) < 200

            top = text(await c.call_tool("browser_observe", {"depth": 1}))
            assert "heading 'Catalogue'" in top and "Buy" not in top

            bad = await c.call_tool("browser_observe", {"diff_since": "o999"})
            assert bad.isError and "o999" in text(bad)
    run_async(body)


LANGUAGES = [f"Language {i}" for i in range(1, 121)]


def options_of(observation: str, name: str) -> tuple[list[str], str]:
    """The options a select's line lists, and what follows the list."""
    line = re.search(rf"^ *\[\w+\] combobox '{name}'.*$", observation, re.M)
    assert line, f"no select {name!r} in:\n{observation}"
    listed = re.search(r"options=(\[.*?\])(.*)$", line.group(0))
    assert listed, line.group(0)
    return ast.literal_eval(listed.group(1)), listed.group(2)


def test_observe_lists_every_option_of_a_long_select_when_it_fits(mcp_url):
    async def body():
        async with client() as c:
            await c.call_tool("browser_act", {"action": f"goto('{mcp_url('languages.html')}')"})
            seen = text(await c.call_tool("browser_observe", {}))
            assert count_tokens(seen) <= 4000
            # All 120, not the first 50 the agent reads at each step.
            assert options_of(seen, "Language") == (LANGUAGES, "")
            assert "more)" not in seen and "Not every option" not in seen

            language = bid(seen, "combobox", "Language")
            chosen = await c.call_tool("browser_act",
                                       {"action": f"select_option('{language}', 'Language 117')"})
            assert not chosen.isError, text(chosen)
            assert "value='Language 117'" in text(await c.call_tool("browser_observe", {}))
    run_async(body)


def test_a_page_over_the_budget_cuts_long_option_lists_and_says_how_to_see_them(mcp_url):
    async def body():
        async with client() as c:
            url = mcp_url("languages.html?rows=400")
            await c.call_tool("browser_act", {"action": f"goto('{url}')"})
            capped = text(await c.call_tool("browser_observe", {}))
            assert count_tokens(capped) <= 4000  # the budget holds
            listed, after = options_of(capped, "Language")
            assert listed == LANGUAGES[:50] and after.startswith(" (+70 more)")
            assert "find= with an option's text" in capped  # what was left out, and how
            assert "from_line=" in capped and "Undo 400" not in capped
            total = re.search(r"lines 1-\d+ of (\d+)", capped).group(1)

            found = text(await c.call_tool("browser_observe", {"find": "Language 117"}))
            assert options_of(found, "Language") == (LANGUAGES, "")
            assert "Not every option" not in found and "Undo" not in found

            whole = text(await c.call_tool("browser_observe", {"max_tokens": 100_000}))
            assert options_of(whole, "Language") == (LANGUAGES, "")
            assert "Undo 400" in whole and "Not every option" not in whole
            # Cut lists or not, line numbers are those of one tree.
            assert f"lines 1-{total} of {total}" in whole
    run_async(body)


def test_failures_are_error_results_and_the_session_goes_on(mcp_url):
    async def body():
        config = ServerConfig(settings=quick_settings(allow_hosts=["127.0.0.1"]))
        async with client(config) as c:
            await c.call_tool("browser_act", {"action": f"goto('{mcp_url('form.html')}')"})
            cases = {
                "click('9999')": "not on the page",
                "click(": "bad action",
                "explode('3')": "bad action",
                "stop('done')": "agent loop",
                "goto('http://example.com/')": "not an allowed host",
                "goto('file:///etc/passwd')": "off limits",
            }
            for action, why in cases.items():
                result = await c.call_tool("browser_act", {"action": action})
                assert result.isError, f"{action} did not fail"
                assert why in text(result), text(result)
            seen = text(await c.call_tool("browser_observe", {}))
            assert "Order socks" in seen and "root:" not in seen
            bad_depth = await c.call_tool("browser_observe", {"depth": 0})
            assert bad_depth.isError
    run_async(body)


def test_screenshot_is_an_image_with_optional_marks_and_secrets_covered(mcp_url):
    secret = "sk-mcp-SECRET-4242"

    async def body():
        config = ServerConfig(settings=quick_settings(),
                              secrets={"api_key": Secret(secret, ("127.0.0.1",))})
        async with client(config) as c:
            went = await c.call_tool("browser_act", {"action": f"goto('{mcp_url('secret.html')}')"})
            plain = await c.call_tool("browser_screenshot", {})
            marked = await c.call_tool("browser_screenshot", {"marks": True})
            seen = await c.call_tool("browser_observe", {})
            for result in (went, plain, marked, seen):
                assert not result.isError
                assert secret not in text(result)
            assert "Welcome back" in text(seen)
            assert "{{secret:api_key}}" in text(seen)  # the field holds it: named, not shown
            images = [next(c for c in r.content if c.type == "image") for r in (plain, marked)]
            pngs = [base64.b64decode(i.data) for i in images]
            assert all(i.mimeType == "image/png" for i in images)
            assert all(p.startswith(b"\x89PNG") for p in pngs)
            assert pngs[0] != pngs[1]  # the marks are drawn on the second only
    run_async(body)


def test_each_session_has_its_own_browser(mcp_url):
    async def body():
        async with client() as one, client() as two:
            await one.call_tool("browser_act", {"action": f"goto('{mcp_url('form.html')}')"})
            await two.call_tool("browser_act", {"action": f"goto('{mcp_url('list.html')}')"})
            first = text(await one.call_tool("browser_observe", {"depth": 2}))
            second = text(await two.call_tool("browser_observe", {"depth": 2}))
            assert "Title: Order form" in first and "Title: Catalogue" in second
            # A tab opened in one session does not appear in the other.
            await one.call_tool("browser_act", {"action": f"new_tab('{mcp_url('list.html')}')"})
            tabs = re.compile(r"^Tabs: .*\[1\]", re.M)
            assert tabs.search(text(await one.call_tool("browser_observe", {"depth": 1})))
            assert not tabs.search(text(await two.call_tool("browser_observe", {"depth": 1})))
    run_async(body)


def test_a_secret_is_typed_by_its_placeholder_on_its_hosts_only(mcp_url):
    value = "blue-secret-sock-77"
    secrets = {"colour": Secret(value, ("127.0.0.1",)),
               "elsewhere": Secret("xyz-123", ("shop.example",))}

    async def body():
        async with client(ServerConfig(settings=quick_settings(), secrets=secrets)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            about = tools["browser_act"].description
            assert "{{secret:colour}} (only on 127.0.0.1)" in about and value not in about

            await c.call_tool("browser_act", {"action": f"goto('{mcp_url('form.html')}')"})
            seen = text(await c.call_tool("browser_observe", {}))
            colour = bid(seen, "textbox", "Colour")
            refused = await c.call_tool("browser_act",
                                        {"action": f"fill('{colour}', '{{{{secret:elsewhere}}}}')"})
            assert refused.isError and "only be typed on shop.example" in text(refused)
            typed = await c.call_tool("browser_act",
                                      {"action": f"fill('{colour}', '{{{{secret:colour}}}}')"})
            assert not typed.isError, text(typed)
            add = bid(seen, "button", "Add to basket")
            added = await c.call_tool("browser_act", {"action": f"click('{add}')"})
            basket = text(await c.call_tool("browser_observe", {"find": "socks,"}))
            # The page echoes what was typed: the value went in, the client sees its name.
            assert "{{secret:colour}} socks, Small" in basket
            for result in (typed, added):
                assert value not in text(result)
            assert value not in basket
    run_async(body)
