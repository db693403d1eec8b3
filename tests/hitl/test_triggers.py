"""Each rule-based detector fires on a scripted trajectory and stays quiet on a healthy one."""

from __future__ import annotations

import time

import pytest

from colorbrowser.config import HitlSettings, load_settings
from colorbrowser.errors import ConfigError
from colorbrowser.hitl.triggers import (
    Detector,
    ErrorText,
    PageMark,
    Trace,
    budget,
    no_change,
    repeated_action,
    repeated_errors,
    url_cycle,
)
from colorbrowser.steps import HistoryEntry

CFG = HitlSettings()


def trace(steps, *, max_steps=30, title="", text="", previous_text=None) -> Trace:
    """steps: (url, dom_hash, action, ok) per finished step; the last url/hash is the
    page the agent now sees (its action is None: not decided yet)."""
    pages = [PageMark(i + 1, url, dom) for i, (url, dom, _a, _ok) in enumerate(steps)]
    actions = [HistoryEntry(i + 1, url, action, ok, None if ok else "element not found")
               for i, (url, _dom, action, ok) in enumerate(steps[:-1])]
    return Trace(step=len(steps), max_steps=max_steps, pages=pages, actions=actions,
                 title=title, text=text, previous_text=previous_text)


HEALTHY = trace([
    ("http://shop/", "h1", "click('12')", True),
    ("http://shop/cat/socks", "h2", "click('31')", True),
    ("http://shop/product/3", "h3", "select_option('5', 'M')", True),
    ("http://shop/product/3", "h4", "click('7')", True),
    ("http://shop/cart", "h5", "click('9')", True),
    ("http://shop/checkout", "h6", None, True),
])


@pytest.mark.parametrize("rule", [url_cycle, repeated_action, no_change, repeated_errors,
                                  budget, ErrorText(CFG.error_phrases)])
def test_every_rule_is_quiet_on_a_healthy_trajectory(rule):
    assert rule(HEALTHY, CFG) is None


def test_url_cycle_fires_when_the_same_pages_come_round_again():
    t = trace([
        ("http://shop/a", "1", "click('1')", True),
        ("http://shop/b", "2", "go_back()", True),
        ("http://shop/a", "1", "click('1')", True),
        ("http://shop/b", "2", None, True),
    ])
    found = url_cycle(t, CFG)
    assert found.kind == "url_cycle" and "http://shop/a -> http://shop/b" in found.reason
    # Staying on one page (filling a form) is not a cycle, nor is A B A.
    assert url_cycle(trace([("http://shop/a", str(i), "fill('1', 'x')", True)
                            for i in range(6)]), CFG) is None
    once_back = trace([("http://shop/a", "1", "click('1')", True),
                       ("http://shop/b", "2", "go_back()", True),
                       ("http://shop/a", "1", None, True)])
    assert url_cycle(once_back, CFG) is None


def test_url_cycle_of_three_pages_needs_both_rounds():
    pages = ["http://s/a", "http://s/b", "http://s/c"] * 2
    t = trace([(u, u, "click('1')", True) for u in pages])
    assert url_cycle(t, CFG).kind == "url_cycle"
    assert url_cycle(trace([(u, u, "click('1')", True) for u in pages[1:]]), CFG) is None


def test_repeated_action_fires_on_the_same_call_three_times_in_a_row():
    steps = [("http://s/", str(i), "click('12')", True) for i in range(3)]
    t = trace([*steps, ("http://s/", "x", None, True)])
    found = repeated_action(t, CFG)
    assert found.kind == "repeated_action" and "click('12')" in found.reason
    varied = trace([("http://s/", "1", "click('12')", True),
                    ("http://s/", "2", "click('13')", True),
                    ("http://s/", "3", "click('12')", True), ("http://s/", "4", None, True)])
    assert repeated_action(varied, CFG) is None


def test_no_change_fires_when_actions_leave_url_and_page_as_they_were():
    steps = [("http://s/", "same", f"click('{i}')", True) for i in range(3)]
    t = trace([*steps, ("http://s/", "same", None, True)])
    assert no_change(t, CFG).kind == "no_change"
    # One action that changed the page breaks the run.
    changed = [*steps[:2], ("http://s/", "same", "click('9')", True),
               ("http://s/", "new", None, True)]
    assert no_change(trace(changed), CFG) is None


def test_no_change_ignores_notes_and_calculations_which_never_change_the_page():
    steps = [("http://s/", "same", "take_note('price 3')", True),
             ("http://s/", "same", "calculate('1+2')", True),
             ("http://s/", "same", "click('4')", True),
             ("http://s/", "same", None, True)]
    assert no_change(trace(steps), CFG) is None


def test_repeated_errors_fire_on_three_failures_in_the_last_five_actions():
    steps = [("http://s/", str(i), f"click('{i}')", ok)
             for i, ok in enumerate([False, True, False, True, False])]
    t = trace([*steps, ("http://s/", "z", None, True)])
    found = repeated_errors(t, CFG)
    assert found.kind == "repeated_errors" and "element not found" in found.reason
    two = [("http://s/", str(i), f"click('{i}')", ok) for i, ok in enumerate([False, True, False])]
    assert repeated_errors(trace([*two, ("http://s/", "z", None, True)]), CFG) is None


@pytest.mark.parametrize("title,text", [
    ("Account", "[3] heading 'Access Denied'"),
    ("Product", "[9] status 'Sorry, this item is OUT OF STOCK'"),
    ("404 Not Found", "[1] heading 'Not Found'"),
    ("Error response", "[2] StaticText 'Error code: 503'"),
])
def test_error_text_finds_refusals_and_status_pages(title, text):
    found = ErrorText(CFG.error_phrases)(trace([("http://s/", "1", None, True)], title=title,
                                               text=text), CFG)
    assert found is not None and found.kind == "error_text"


def test_error_text_fires_when_the_words_appear_not_while_they_stay():
    rule = ErrorText(CFG.error_phrases)
    page = "[3] heading 'Access denied'"
    assert rule(trace([("http://s/", "1", None, True)], text=page,
                      previous_text="[1] link 'Home'"), CFG) is not None
    assert rule(trace([("http://s/", "1", None, True)], text=page, previous_text=page),
                CFG) is None
    # Numbers that only look like status codes are not errors.
    assert rule(trace([("http://s/", "1", None, True)],
                      text="[4] StaticText 'Ships in 404 days, 500 g'"), CFG) is None


def test_error_phrases_are_configurable_as_words_or_regexes():
    rule = ErrorText(["basket is locked", r"re:quota \d+ exceeded"])
    assert rule(trace([("http://s/", "1", None, True)], text="Your Basket  is locked"), CFG)
    assert rule(trace([("http://s/", "1", None, True)], text="quota 7 exceeded"), CFG)
    assert rule(trace([("http://s/", "1", None, True)], text="access denied"), CFG) is None


def test_a_catastrophic_error_regex_against_hostile_page_text_answers_at_once():
    """The page writes the text these regexes read, so they run in linear time."""
    rule = ErrorText([r"re:(a+)+$", *CFG.error_phrases])
    started = time.perf_counter()
    found = rule(trace([("http://s/", "1", None, True)], text="a" * 40 + "!"), CFG)
    assert time.perf_counter() - started < 1.0
    assert found is None


@pytest.mark.parametrize(("text", "said"), [
    ("Oops — 404 — NOT FOUND", "404 — NOT FOUND"),
    ("HTTP 502: Bad Gateway", "502: Bad Gateway"),
    ("Error status 429", "Error status 429"),
    ("Fehler 500 error", "500 error"),
])
def test_the_default_regex_phrases_keep_their_meaning_under_the_linear_engine(text, said):
    found = ErrorText(CFG.error_phrases)(trace([("http://s/", "1", None, True)], text=text), CFG)
    assert found is not None and said in found.reason


@pytest.mark.parametrize(("entry", "feature"), [
    (r"re:(?<!not )found", "lookbehind"),
    (r"re:(\w+) \1", "backreference"),
])
def test_an_error_regex_only_a_backtracking_engine_can_run_is_one_clear_line(entry, feature):
    with pytest.raises(ConfigError, match=rf"hitl.*uses a {feature}") as err:
        load_settings(None, {("hitl", "error_phrases"): [entry]}, environ={})
    assert "\n" not in str(err.value)


def test_budget_fires_late_in_the_run_only_when_nothing_new_happens():
    stuck = [("http://s/a", str(i % 2), "scroll(0, 300)", True) for i in range(24)]
    t = trace([*stuck, ("http://s/a", "0", None, True)], max_steps=30)
    found = budget(t, CFG)
    assert found.kind == "budget" and "24 of 30 steps" in found.reason
    early = trace([*stuck[:10], ("http://s/a", "0", None, True)], max_steps=30)
    assert budget(early, CFG) is None
    exploring = [*stuck[:22], ("http://s/b", "b", "click('1')", True),
                 ("http://s/c", "c", "click('2')", True), ("http://s/d", "d", None, True)]
    assert budget(trace(exploring, max_steps=30), CFG) is None
    noting = [*stuck[:23], ("http://s/a", "0", "take_note('total is 12')", True),
              ("http://s/a", "0", None, True)]
    assert budget(trace(noting, max_steps=30), CFG) is None


def test_detector_cool_down_stops_the_same_trigger_firing_every_step():
    detector = Detector.from_settings(HitlSettings(cooldown=3))
    steps = [("http://s/", "same", "click('12')", True)]
    fired_at = []
    for _ in range(10):
        steps.append(("http://s/", "same", "click('12')", True))
        t = trace([*steps[:-1], ("http://s/", "same", None, True)])
        kinds = {tr.kind for tr in detector.check(t)}
        if "repeated_action" in kinds:
            fired_at.append(t.step)
    assert fired_at == [4, 8]  # first at the third repeat, then once the cool-down is over


def test_the_budget_trigger_fires_once_per_episode():
    detector = Detector.from_settings(HitlSettings(cooldown=0))
    stuck = [("http://s/a", "x", f"click('{i}')", True) for i in range(24)]
    fired = []
    for extra in range(4):
        steps = [*stuck, *[("http://s/a", "x", "hover('1')", True)] * extra,
                 ("http://s/a", "x", None, True)]
        fired += [t for t in detector.check(trace(steps, max_steps=30)) if t.kind == "budget"]
    assert len(fired) == 1


@pytest.mark.parametrize("text,message", [
    ('[hitl]\nerror_phrases = ["re:([unclosed"]\n', "invalid regex 're:([unclosed'"),
    ('[hitl]\nerror_phrases = ["  "]\n', "empty error phrase"),
    ("[hitl]\nerror_window = 2\nerror_actions = 3\n", "error_window (2) must be at least"),
    ("[hitl]\ncooldown = -1\n", "hitl.cooldown"),
])
def test_bad_trigger_settings_are_one_clear_line(tmp_path, text, message):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match="hitl") as err:
        load_settings(cfg, environ={})
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_bad_regex_from_the_command_line_config_is_one_line_and_exit_2(tmp_path, capsys):
    from colorbrowser.cli import main

    cfg = tmp_path / "c.toml"
    cfg.write_text('[hitl]\nerror_phrases = ["re:(?P<x"]\n')
    with pytest.raises(SystemExit) as code:
        main(["run", "goal", "--url", "http://127.0.0.1:9/", "--config", str(cfg)])
    err = capsys.readouterr().err
    assert code.value.code == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and "invalid regex" in err
