"""Asking a person: scope proposals, and the terminal conversation scripted through a stream."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from colorbrowser.hitl.asking import (
    REVIEW_CHOICES,
    HelpAnswer,
    HelpRequest,
    propose_scope,
    scope_matches,
)
from colorbrowser.hitl.terminal import TerminalAsker
from colorbrowser.knowledge.tip import InvalidTip

URL = "http://127.0.0.1:8123/hitl/order.html?step=2"


@pytest.mark.parametrize("url,site,pattern", [
    (URL, "127.0.0.1:8123", "http://127.0.0.1:8123/hitl/order.html*"),
    ("https://shop.example.com/admin/sales/order/view/42/?tab=2", "shop.example.com",
     "https://shop.example.com/admin/sales/order/view/*"),
    ("http://shop.local/search?q=socks", "shop.local", "http://shop.local/search/*"),
    ("http://shop.local/", "shop.local", "http://shop.local/*"),
    ("http://shop.local/u/3f2a9c0d1e2b4a5c", "shop.local", "http://shop.local/u/*"),
    ("about:blank", "", ""),
])
def test_the_scope_proposed_covers_the_family_of_the_current_page(url, site, pattern):
    assert propose_scope(url) == (site, pattern)


def test_a_proposed_scope_matches_the_page_it_came_from_and_its_siblings():
    site, pattern = propose_scope("http://shop.local/product.html?id=3")
    tip = HelpAnswer("tip", text="Pick a size first.", site=site, patterns=[pattern]).tip()
    assert scope_matches(tip, "http://shop.local/product.html?id=3")
    assert scope_matches(tip, "http://shop.local/product.html?id=8")
    assert not scope_matches(tip, "http://shop.local/cart.html")
    assert not scope_matches(tip, "http://other.local/product.html?id=3")


def asker_with(lines: str) -> tuple[TerminalAsker, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False, color_system=None)
    return TerminalAsker(console, stream=io.StringIO(lines)), out


def request(**more) -> HelpRequest:
    return HelpRequest.at("the same action click('5') 3 times in a row", "Buy green tea", URL,
                          step=4, summary="Progress: on checkout", screenshot="/runs/x/0004.png",
                          last_actions=["step 3: click('5') -> ok"], **more)


def test_the_person_sees_the_context_and_confirms_the_proposed_scope():
    asker, out = asker_with("t\nTick the terms box before Place order.\n\n\n")
    answer = asker.ask(request())
    assert answer == HelpAnswer("tip", text="Tick the terms box before Place order.",
                                site="127.0.0.1:8123",
                                patterns=["http://127.0.0.1:8123/hitl/order.html*"])
    shown = out.getvalue()
    for part in ("click('5') 3 times", "Buy green tea", URL, "Progress: on checkout",
                 "/runs/x/0004.png", "step 3: click('5') -> ok"):
        assert part in shown


def test_the_proposed_site_and_pattern_are_shown_before_the_person_confirms_them():
    url = "https://shop.example.com/admin/sales/order/view/42"
    asker, out = asker_with("t\nUse the Filters button.\n\n\n")
    answer = asker.ask(HelpRequest.at("stuck", "Find the order", url))
    shown = out.getvalue()
    assert "site [shop.example.com]" in shown
    assert "URL pattern [https://shop.example.com/admin/sales/order/view/*]" in shown
    assert answer.patterns == ["https://shop.example.com/admin/sales/order/view/*"]


def test_the_tip_prompt_states_the_template_scope_action_constraint_goal():
    asker, out = asker_with("t\nTerms first.\n\n\n")
    asker.ask(request())
    shown = " ".join(out.getvalue().split())
    for part in ("(scope)", "(action)", "(constraint)", "(goal)"):
        assert part in shown


def test_the_person_can_change_the_scope_or_widen_it_to_the_whole_site():
    asker, _ = asker_with("tip\nTerms first.\nshop.local\n/checkout/*\n")
    answer = asker.ask(request())
    assert (answer.site, answer.patterns) == ("shop.local", ["/checkout/*"])
    asker, _ = asker_with("t\nTerms first.\n\n-\n")
    assert asker.ask(request()).patterns == []


def test_a_bad_regex_is_one_line_and_the_scope_is_asked_again():
    asker, out = asker_with("t\nTerms first.\n\nre:([unclosed\n\n\n")
    answer = asker.ask(request())
    errors = [line for line in out.getvalue().splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: invalid regex 're:([unclosed': ")
    assert answer.patterns == ["http://127.0.0.1:8123/hitl/order.html*"]


def test_an_empty_tip_is_one_line_and_asked_again():
    asker, out = asker_with("t\n\n   \nTerms first.\n\n\n")
    answer = asker.ask(request())
    errors = [line for line in out.getvalue().splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and all("is empty" in e for e in errors)
    assert answer.text == "Terms first."


def test_hint_skip_abort_and_unknown_answers():
    asker, _ = asker_with("h\nThe terms box is above the button.\n")
    assert asker.ask(request()) == HelpAnswer("hint", text="The terms box is above the button.")
    asker, _ = asker_with("s\n")
    assert asker.ask(request()).kind == "skip"
    asker, out = asker_with("x\nabort\n")
    assert asker.ask(request()).kind == "abort"
    assert "error: answer one of t, h, s, a" in out.getvalue()


def test_end_of_input_means_skip_and_do_not_ask_again():
    for script in ("", "t\n", "t\nTerms first.\n", "h\n"):
        asker, out = asker_with(script)
        assert asker.ask(request()) == HelpAnswer("skip", closed=True), script
        assert "(end of input)" in out.getvalue()


def test_review_offers_only_tip_skip_and_quit():
    asker, out = asker_with("h\nq\n")
    assert asker.ask(request(choices=REVIEW_CHOICES)).kind == "quit"
    assert "[h]int" not in out.getvalue() and "answer one of t, s, q" in out.getvalue()


def test_frozen_or_off_knowledge_is_said_before_the_tip_is_written():
    asker, out = asker_with("t\nTerms first.\n\n\n")
    assert asker.ask(request(can_store=False)).kind == "tip"
    assert "used in this run only" in out.getvalue()


def test_query_specific_tips_get_a_lint_note_but_are_kept():
    asker, out = asker_with("t\nFor this task, buy order #10422 first.\n\n\n")
    assert asker.ask(request()).kind == "tip"
    assert "note: looks query-specific" in out.getvalue()


def test_answers_from_other_askers_are_validated_the_same_way():
    with pytest.raises(InvalidTip, match="the tip is empty"):
        HelpAnswer("tip", text=" ", site="shop.local").tip()
    with pytest.raises(InvalidTip, match="invalid regex"):
        HelpAnswer("tip", text="x", site="shop.local", patterns=["re:("]).tip()
