"""The random agent: the floor a real agent must beat.

It acts on what the page offers and nothing else: each step it picks one visible,
interactive element at random and clicks it, types a word into it or ticks it, and it
finishes by answering with a random piece of the page's text. Everything comes from a
seeded generator, so a run can be repeated exactly.

Run it through the replay path: a replay file whose steps are ``{random: {seed, step}}``
(``colorbrowser arena plans random``) makes the replay agent ask ``random_action``.
"""

from __future__ import annotations

import random

from colorbrowser.steps import Decision, DecisionView
from colorbrowser.types import ElementInfo, Observation, Usage

CLICKABLE = {"link", "button", "checkbox", "radio", "tab", "menuitem", "option", "switch"}
TYPABLE = {"textbox", "searchbox", "spinbutton", "combobox"}
WORDS = ("test", "42", "blue", "report", "order", "hello", "2024", "fixed", "review")


def _candidates(obs: Observation) -> list[ElementInfo]:
    return [e for e in obs.elements.values()
            if e.visible and e.interactive and e.role in CLICKABLE | TYPABLE]


def random_action(obs: Observation, rng: random.Random) -> str:
    """One action on this page, chosen by ``rng``."""
    options = _candidates(obs)
    if not options or rng.random() < 0.05:
        return "go_back()"
    element = rng.choice(options)
    if element.role in TYPABLE and element.role != "combobox":
        return f"fill({element.bid!r}, {rng.choice(WORDS)!r})"
    return f"click({element.bid!r})"


def random_answer(obs: Observation, rng: random.Random) -> str:
    """A random answer taken from the page: the name of some element."""
    names = [e.name for e in obs.elements.values() if e.name.strip()]
    answer = rng.choice(names) if names else ""
    return f"stop({answer!r})"


def step_rng(seed: int, step: int, url: str) -> random.Random:
    """The same seed, step and page always give the same choice."""
    return random.Random(f"{seed}:{step}:{url}")


class RandomDecider:
    """A Decider (what the Operator does) that acts at random; ``steps`` actions, then an
    answer."""

    def __init__(self, seed: int = 0, steps: int = 10) -> None:
        self.seed = seed
        self.steps = steps
        self.done = 0

    def decide(self, view: DecisionView) -> Decision:
        rng = step_rng(self.seed, self.done, view.obs.url)
        last = self.done >= self.steps
        text = random_answer(view.obs, rng) if last else random_action(view.obs, rng)
        self.done += 1
        from colorbrowser.actions import parse_action

        return Decision(f"random step {self.done}", parse_action(text), text, Usage())
