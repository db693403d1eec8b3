"""The agents of the copilot study (the oracle replay, a random agent, the model's
Operator) and the hook that lets a kept workflow run a goal before the agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from colorbrowser.plan.format import Plan
from colorbrowser.protocols import Hook

Deciders = Callable[[str, Plan, int], Any]


def oracle_decider(task: str, plan: Plan, max_steps: int):
    from colorbrowser.evaluation.replay import ReplayOperator

    return ReplayOperator(plan.encode())


def random_decider(task: str, plan: Plan, max_steps: int):
    from colorbrowser.plan.random_agent import RandomDecider

    return RandomDecider(seed=sum(map(ord, task)), steps=max(1, max_steps - 2))


AGENTS: dict[str, Deciders | None] = {"oracle": oracle_decider, "random": random_decider,
                                       "model": None}  # None: the Operator on the model


class WorkflowFirst(Hook):
    """The agent's decider, unless a workflow in the knowledge base fits the goal: then
    the workflow runner, with the agent as its fallback for a step that misses. Chosen at
    the first decision, when the goal and the start page are known (the oracle and random
    agents decide themselves, so the run factory does not choose for them)."""

    def __init__(self, kb, fallback) -> None:
        self.kb, self.fallback = kb, fallback
        self.runner = None
        self.chosen = False

    def decide(self, view):
        if not self.chosen:
            from colorbrowser.workflows.match import choose
            from colorbrowser.workflows.runner import WorkflowRunner

            self.chosen = True
            choice = choose(self.kb, view.obs.url, view.goal)
            if choice is not None and choice.kind == "run":
                self.runner = WorkflowRunner(choice.workflow, choice.params, self.fallback,
                                             kb=self.kb)
        return (self.runner or self.fallback).decide(view)

    def after_step(self, episode, ctx, step) -> None:
        if self.runner is not None:
            self.runner.after_step(episode, ctx, step)

    def on_end(self, episode, result) -> None:
        if self.runner is not None:
            self.runner.on_end(episode, result)

