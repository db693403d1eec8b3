"""Keeping a copilot session as a workflow, from the panel's "Keep as workflow" button.

The person's approval at the end is what lets the run teach: it is written beside the
run (``approval.json``, ``workflows.learn.approve``) before the workflow is learned, as
a verified run's verdict would be. When the person corrected the agent on the way (a
step of their own, or an edit run instead of the proposal) and the run then ended
done, the corrected run is the workflow's source (``learned_by="person"``); an active
workflow of the same site and goal pattern gets it as its next version, the old one
kept for history.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from colorbrowser.agent.trajectory import load_steps
from colorbrowser.copilot.channel import Command, Feed
from colorbrowser.errors import ColorBrowserError
from colorbrowser.knowledge.workflow import Workflow
from colorbrowser.steps import EpisodeResult, Step


def corrected(steps: Sequence[Step]) -> bool:
    """Whether the person corrected the agent: a step of theirs that ran, or their edit
    that ran instead of the proposal."""
    return any(s.executed and (s.actor == "person" or any(
        g.by == "person" and g.edited_from for g in s.gate)) for s in steps)


def store(kb, flow: Workflow) -> Workflow:
    """Add ``flow``, or make it the next version of the active workflow that already
    serves the same goal pattern on its site."""
    same = [w for w in kb.list_workflows(flow.site)
            if w.active and w.goal_pattern == flow.goal_pattern]
    if same:
        return kb.new_workflow_version(same[0].id, flow)
    return kb.add_workflow(flow)


def keep_run(run_dir: Path, kb, *, author: str | None = None) -> Workflow:
    """Approve the run and learn a workflow from it; raises UserError (one line) when
    the run cannot teach."""
    from colorbrowser.workflows.learn import approve, learn

    approve(run_dir, author)
    by = "person" if corrected(load_steps(run_dir)) else "agent"
    return store(kb, learn(run_dir, learned_by=by, author=author, with_secrets=True))


class WorkflowKeeper:
    """The panel's ``keep`` command: only once the run ended done, only with a writable
    knowledge base. Says what happened on the panel's notice line."""

    def __init__(self, feed: Feed, run_dir: Path | None, kb,
                 result: Callable[[], EpisodeResult | None],
                 outcome: Callable[[], str] = lambda: "") -> None:
        self.feed, self.run_dir, self.kb = feed, run_dir, kb
        self.result, self.outcome = result, outcome
        self.kept: Workflow | None = None

    def _say(self, text: str) -> None:
        self.feed.publish("notice", {"text": text})

    def refusal(self) -> str | None:
        """Why the run cannot be kept now, or None."""
        result = self.result()
        if result is None:
            return "the run has not ended yet"
        if result.status != "done":
            return f"the run ended {result.status}, not done"
        if self.outcome() == "failure":
            return "you set the outcome to failure"
        if self.kb is None or getattr(self.kb, "readonly", False):
            return "knowledge is off or frozen (workflows live in the knowledge base)"
        if self.run_dir is None:
            return "the run has no folder"
        return None

    def on_keep(self, command: Command) -> None:
        if self.kept is not None:
            self._say(f"already kept as workflow {self.kept.id}")
            return
        reason = self.refusal()
        if reason is not None:
            self._say(f"workflow not kept: {reason}")
            return
        assert self.run_dir is not None
        try:
            flow = keep_run(self.run_dir, self.kb)
        except (ColorBrowserError, sqlite3.Error, OSError, ValueError) as exc:
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            self._say(f"workflow not kept: {line}")
            return
        self.kept = flow
        source = ("your corrected run" if flow.provenance.learned_by == "person"
                  else "this run")
        version = f" (version {flow.version})" if flow.version > 1 else ""
        self._say(f"workflow {flow.id}{version} kept for {flow.site}, learned from {source}: "
                  f"{flow.goal_pattern}")
