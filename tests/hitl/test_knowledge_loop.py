"""Knowledge in the loop on a real browser: on, off and frozen, shortcuts, tip checks."""

from __future__ import annotations

import contextlib
import os

import pytest

from colorbrowser.agent.knowledge import KnowledgeHook
from colorbrowser.agent.trajectory import read_steps
from colorbrowser.demo.cli import shop_aliases, shop_tips
from colorbrowser.errors import UserError
from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.run.factory import build_episode
from colorbrowser.testing import act

from .helpers import bid, prompts, scripted, settings, summary

GOAL = "What is the price of the wool hiking socks?"
SIZE_TIP = "choose a size in the Size box"


def stocked_kb(path):
    """The demo shop's tips, which name the shop http://shop.local/."""
    with KnowledgeBase.open(path, embeddings=False) as kb:
        kb.add_many(shop_tips())


def shop_operator(shop_url):
    """Uses the search shortcut, opens the socks, answers once the price is on screen."""
    def reply(prompt: str) -> str:
        if "Title: Wool hiking socks" in prompt and "$14.50" in prompt:
            return act("The price is shown.", "stop('$14.50')")
        if "Search results" in prompt:
            return act("Open the product.", f"click('{bid(prompt, 'link', 'Wool hiking socks')}')")
        if "demo-search:" in prompt:
            return act("Jump to the search.", f"goto('{shop_url}/search.html?q=wool hiking')")
        return act("Look around.", "scroll(0, 200)")
    return reply


def run(settings_, model, env, url, run_dir, goal=GOAL, **build):
    """One episode; the shop is served at ``url``'s base, which the tips know as shop.local."""
    build.setdefault("site_aliases", shop_aliases(url.rsplit("/", 1)[0]))
    with contextlib.ExitStack() as stack:
        episode = build_episode(goal, url, settings_, stack, run_dir=run_dir, model=model,
                                env=env, **build)
        result = episode.run()
    return episode, result


def test_knowledge_on_shows_page_tips_and_shortcuts_and_learns_their_usage(
        browser_env, shop_url, kb_path, tmp_path):
    stocked_kb(kb_path)
    model = scripted(shop_operator(shop_url))
    _, result = run(settings(tmp_path, kb_path), model, browser_env,
                    f"{shop_url}/index.html", tmp_path / "run")
    assert result.status == "done" and result.answer == "$14.50"
    steps = read_steps(tmp_path / "run")
    # The shortcut was offered, used, and its blank encoded by the hook.
    assert steps[0]["url"].endswith("/index.html") and "shortcut" in steps[0]
    assert steps[1]["url"].endswith("/search.html?q=wool+hiking")
    # The size tip belongs to product pages: absent on the home page, shown on the product.
    assert SIZE_TIP not in prompts(model)[0]
    assert steps[-1]["tip_ids"] == ["demo-size-first"]
    assert SIZE_TIP in prompts(model)[-1]
    assert "url pattern" in steps[-1]["tips_why"][0]["why"]
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        size, search = kb.get("demo-size-first").stats, kb.get("demo-search").stats
    assert (size.retrieved, size.successes, size.failures) == (1, 1, 0)
    assert (search.retrieved, search.successes) == (1, 1)


def test_a_failed_episode_counts_as_a_failure_for_the_tips_it_saw(
        browser_env, shop_url, kb_path, tmp_path):
    stocked_kb(kb_path)
    model = scripted(lambda p: act("Look.", "scroll(0, 100)"))
    _, result = run(settings(tmp_path, kb_path, max_steps=2), model, browser_env,
                    f"{shop_url}/product.html?id=3", tmp_path / "run")
    assert result.status == "step_limit"
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        stats = kb.get("demo-size-first").stats
    assert (stats.retrieved, stats.successes, stats.failures) == (1, 0, 1)  # once per episode


def test_knowledge_off_opens_no_store_and_shows_no_tips(browser_env, shop_url, kb_path,
                                                         tmp_path):
    model = scripted(lambda p: act("Done.", "stop('$14.50')"))
    episode, result = run(settings(tmp_path, kb_path, knowledge="off"), model, browser_env,
                          f"{shop_url}/product.html?id=3", tmp_path / "run")
    assert result.status == "done"
    assert not kb_path.exists() and not os.path.exists(os.environ["COLORBROWSER_KB"])
    assert not any(isinstance(h, KnowledgeHook) for h in episode.hooks)
    prompt = prompts(model)[0]
    assert "Site tips" not in prompt and "URL shortcuts" not in prompt


def test_frozen_retrieves_but_never_writes_even_embeddings(browser_env, shop_url, kb_path,
                                                           tmp_path):
    stocked_kb(kb_path)
    before = (kb_path.read_bytes(), kb_path.stat().st_mtime_ns)
    model = scripted(lambda p: act("Done.", "stop('$14.50')"))
    episode, result = run(settings(tmp_path, kb_path, knowledge="frozen", embeddings=True),
                          model, browser_env, f"{shop_url}/product.html?id=3",
                          tmp_path / "run", goal="Put a pair of wool socks in the cart")
    assert result.status == "done"
    hook = next(h for h in episode.hooks if isinstance(h, KnowledgeHook))
    assert hook.kb.readonly and hook.frozen
    assert SIZE_TIP in prompts(model)[0] and "demo-search:" in prompts(model)[0]
    why = read_steps(tmp_path / "run")[0]["tips_why"][0]["why"]
    assert "url pattern" in why and "embedding" in why  # the whole cascade ran
    assert (kb_path.read_bytes(), kb_path.stat().st_mtime_ns) == before
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        assert kb.get("demo-size-first").stats.empty


def test_frozen_without_a_store_is_one_clear_error_before_anything_starts(tmp_path):
    missing = tmp_path / "nothing.db"
    with pytest.raises(UserError, match="no knowledge base at"), contextlib.ExitStack() as st:
        build_episode(GOAL, "http://127.0.0.1:9/", settings(tmp_path, missing,
                                                            knowledge="frozen"), st,
                      run_dir=tmp_path / "run", model=scripted(lambda p: ""), env=object())
    assert not missing.exists() and not (tmp_path / "run").exists()


def test_the_summarizer_checks_the_last_action_against_the_retrieved_tips(
        browser_env, shop_url, kb_path, tmp_path):
    stocked_kb(kb_path)

    def summarizer(prompt: str) -> str:
        recent = prompt.split("# Last actions")[1] if "# Last actions" in prompt else ""
        pressed_add = f"click('{bid(prompt, 'button', 'Add to cart')}')" in recent.split("#")[0]
        if SIZE_TIP in prompt and pressed_add:
            return summary("opened the socks", on_track=False,
                           tip_violations=["choose a size before Add to cart"],
                           guidance="Pick a size in the Size box, then add to cart.")
        return summary("opened the socks")

    def operator(prompt: str) -> str:
        if "Tip check" in prompt:
            return act("I must pick a size first.", "stop('needs a size')")
        return act("Add it.", f"click('{bid(prompt, 'button', 'Add to cart')}')")

    model = scripted(operator, summarizer)
    _, result = run(settings(tmp_path, kb_path, memory="summary"), model, browser_env,
                    f"{shop_url}/product.html?id=3", tmp_path / "run")
    assert result.answer == "needs a size"
    summarizer_prompts = prompts(model, "summarizer")
    tip_text = shop_tips()[0].text
    assert all(f"- {tip_text}" in p for p in summarizer_prompts)  # the retrieved text, verbatim
    second = prompts(model)[1]
    assert "Tip check: the last action went against: choose a size before Add to cart" in second
    assert "Guidance: Pick a size in the Size box" in second
