"""The random agent: acts only on what the page offers, and a seed repeats a run exactly."""

from __future__ import annotations

import random

from colorbrowser.actions import parse_action
from colorbrowser.evaluation.replay import ReplayOperator
from colorbrowser.plan.format import parse_plan
from colorbrowser.plan.random_agent import RandomDecider, random_action, step_rng
from colorbrowser.steps import DecisionView
from colorbrowser.types import ElementInfo, Observation


def page(url: str = "http://127.0.0.1:8103/") -> Observation:
    def el(bid, role, name, visible=True, interactive=True):
        return ElementInfo(bid=bid, role=role, name=name, visible=visible,
                           interactive=interactive)

    return Observation(url=url, title="t", axtree="", elements={e.bid: e for e in (
        el("1", "link", "Roadmap"), el("2", "textbox", "Summary"), el("3", "button", "Save"),
        el("4", "link", "Hidden", visible=False), el("5", "heading", "Title",
                                                      interactive=False))})


def test_random_actions_only_touch_visible_interactive_elements():
    seen = set()
    for seed in range(200):
        text = random_action(page(), random.Random(seed))
        action = parse_action(text)
        seen.add(text.split("(")[0])
        if action.name != "go_back":
            assert action.args[0] in {"1", "2", "3"}
    assert {"click", "fill"} <= seen


def test_the_same_seed_repeats_the_run_and_another_seed_differs():
    def run(seed):
        decider = RandomDecider(seed, steps=6)
        return [str(decider.decide(DecisionView("g", page(), n, 9)).action) for n in range(7)]

    assert run(3) == run(3)
    assert run(3) != run(4)
    assert run(3)[-1].startswith("stop(")


def test_random_steps_run_through_the_replay_agent():
    plan = parse_plan([{"random": {"seed": 5, "step": 0}},
                       {"random": {"seed": 5, "step": 1, "answer": True}}])
    operator = ReplayOperator(plan.encode())
    first = str(operator.decide(DecisionView("g", page(), 1, 9)).action)
    assert first == random_action(page(), step_rng(5, 0, page().url))
    assert str(operator.decide(DecisionView("g", page(), 2, 9)).action).startswith("stop(")
