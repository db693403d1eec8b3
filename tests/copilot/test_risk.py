"""The approval policy: glob rules over action, element and URL, and the pre-flight
check for forms that would be sent with a method other than GET; ``run
--confirm-risky`` asks at the terminal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import DEFAULT_RISK_RULES, BrowserSettings, RiskRule
from colorbrowser.hitl.risk import RiskPolicy
from colorbrowser.steps import Decision
from colorbrowser.testing import ScriptedEndpoint, act, user_text
from colorbrowser.types import Action

from .cli_helpers import KEY, bid_of, scripted


@pytest.fixture(scope="module")
def env():
    with BrowserEnv(BrowserSettings(action_timeout_ms=2000)) as env:
        yield env


@pytest.fixture(scope="module")
def policy(env):
    _ = env.page
    rules = [RiskRule(**r) for r in DEFAULT_RISK_RULES]
    return RiskPolicy(rules, lambda: env.page).install(env.session.context)


def decide(name, *args):
    return Decision("", Action(name, list(args)), "")


def bid(obs, name):
    return next(e.bid for e in obs.elements.values() if e.name == name)


def test_rules_match_action_element_and_url_and_the_first_match_wins(env, pages_url):
    obs = env.reset(f"{pages_url}/copilot/form.html")
    rules = [RiskRule(tier="never", url="*/nowhere/*"),
             RiskRule(tier="always", element="*order*"),
             RiskRule(tier="always", action="goto", url="*://bank.example/*"),
             RiskRule(tier="never")]
    policy = RiskPolicy(rules, lambda: env.page)
    assert "needs approval" in policy.check(decide("click", bid(obs, "Place order")), obs)
    assert policy.check(decide("click", bid(obs, "Next page")), obs) is None
    assert policy.check(decide("goto", "https://bank.example/pay"), obs)
    assert policy.check(decide("goto", "https://shop.example/"), obs) is None


def test_the_preflight_flags_what_would_send_a_form_with_post(env, policy, pages_url):
    obs = env.reset(f"{pages_url}/copilot/post.html")
    send, amount = bid(obs, "Send money"), bid(obs, "Amount")
    assert policy.check(decide("click", send), obs) == "it would submit a form with POST"
    assert policy.check(decide("press", amount, "Enter"), obs) == \
        "it would submit a form with POST"
    assert policy.check(decide("fill", amount, "5"), obs) is None
    obs = env.reset(f"{pages_url}/copilot/form.html")  # a GET form
    assert policy.check(decide("press", bid(obs, "Notes"), "Enter"), obs) is None


def test_the_preflight_reads_click_handlers_even_delegated_ones(env, policy, pages_url):
    obs = env.reset(f"{pages_url}/copilot/api.html")
    assert policy.check(decide("click", bid(obs, "Like")), obs) == \
        "a click handler sends a request that changes data"
    assert policy.check(decide("click", bid(obs, "Remove item")), obs) == \
        "a click handler sends a request that changes data"
    assert policy.check(decide("click", bid(obs, "Look")), obs) is None  # a GET


def test_the_request_spy_remembers_an_element_that_sent_a_post(env, policy, pages_url):
    obs = env.reset(f"{pages_url}/copilot/api.html")
    save = bid(obs, "Save")
    assert policy.check(decide("click", save), obs) is None  # hidden behind a helper
    assert env.step(Action("click", [save])).ok
    obs = env.observe()
    assert policy.check(decide("click", save), obs) == \
        "it sent a request that changes data when used before"


def run_confirming(endpoint, url, out, answer):
    env = {**os.environ, "COPILOT_KEY": KEY}
    return subprocess.run(
        [sys.executable, "-m", "colorbrowser", "run", "Send the money", "--url", url,
         "--base-url", endpoint.url, "--model", "scripted", "--api-key-env", "COPILOT_KEY",
         "--knowledge", "off", "--max-steps", "3", "--verify", "off", "--out", str(out),
         "--confirm-risky"],
        input=answer, capture_output=True, text=True, env=env, timeout=120)


def send_money(messages):
    text = user_text(messages)
    if "money sent" in text or "not approved" in text:
        return act("finished", "stop('over')")
    return act("send it", f"click('{bid_of(text, 'button', 'Send money')}')")


@pytest.mark.parametrize(("answer", "sent"), [("n\n", False), ("y\n", True)])
def test_run_confirm_risky_asks_at_the_terminal(pages_url, tmp_path, answer, sent):
    with ScriptedEndpoint(scripted(lambda text: send_money(
            [{"role": "user", "content": text}])), token=KEY) as endpoint:
        done = run_confirming(endpoint, f"{pages_url}/copilot/post.html", tmp_path / "run",
                              answer)
    assert done.returncode == 0, done.stderr
    assert "would submit a form with POST" in done.stderr
    steps = (tmp_path / "run" / "steps.jsonl").read_text()
    assert ('"executed": false' in steps) is not sent
    assert ("not approved at the terminal" in steps) is not sent
