"""Keeping a copilot run as a workflow: when the panel's button may keep it, and what
counts as the person's correction (which makes the corrected run the source)."""

from __future__ import annotations

from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.copilot.channel import Command, Feed
from colorbrowser.copilot.keep import WorkflowKeeper, corrected
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.steps import EpisodeResult, GateNote, Step
from colorbrowser.types import Usage


def ended(status: str) -> EpisodeResult:
    return EpisodeResult(status=status, answer=None, steps=1, usage=Usage(), elapsed=0.1)


def notices(feed: Feed) -> str:
    return feed.latest["notice"]["text"]


def test_a_person_step_or_edit_that_ran_is_a_correction_a_rejection_alone_is_not():
    agent = Step(step=1, action="click('3')")
    rejected = Step(step=2, action="click('4')", executed=False,
                    gate=[GateNote(verdict="reject", by="person", reason="no")])
    assert not corrected([agent, rejected])
    assert corrected([agent, Step(step=3, actor="person", action="click('5')")])
    edited = Step(step=3, action="click('5')",
                  gate=[GateNote(verdict="run", by="person", edited_from="click('4')")])
    assert corrected([agent, edited])
    held = Step(step=3, actor="person", action="click('5')", executed=False)
    assert not corrected([agent, held])


def test_the_button_refuses_a_run_that_has_not_ended_done_or_that_the_person_failed(
        tmp_path):
    feed = Feed()
    state = {"result": None, "outcome": ""}
    with KnowledgeBase.open(tmp_path / "kb.db", embeddings=False) as kb:
        keeper = WorkflowKeeper(feed, tmp_path / "run", kb, lambda: state["result"],
                                lambda: state["outcome"])
        keeper.on_keep(Command(kind="keep"))
        assert notices(feed) == "workflow not kept: the run has not ended yet"
        state["result"] = ended("step_limit")
        keeper.on_keep(Command(kind="keep"))
        assert notices(feed) == "workflow not kept: the run ended step_limit, not done"
        state["result"], state["outcome"] = ended("done"), "failure"
        keeper.on_keep(Command(kind="keep"))
        assert notices(feed) == "workflow not kept: you set the outcome to failure"
        assert kb.list_workflows() == [] and keeper.kept is None
    without = WorkflowKeeper(feed, tmp_path / "run", None, lambda: ended("done"))
    without.on_keep(Command(kind="keep"))
    assert "knowledge is off or frozen" in notices(feed)


def test_a_run_that_cannot_teach_is_refused_in_one_line_and_nothing_is_stored(tmp_path):
    run = tmp_path / "run"
    trajectory = Trajectory(run)
    trajectory.write_meta({"goal": "Sign in as ada", "start_url": "http://127.0.0.1:9/"})
    trajectory.write_result(ended("done").to_json())  # done, but no step took effect
    feed = Feed()
    with KnowledgeBase.open(tmp_path / "kb.db", embeddings=False) as kb:
        keeper = WorkflowKeeper(feed, run, kb, lambda: ended("done"))
        keeper.on_keep(Command(kind="keep"))
        text = notices(feed)
        assert text.startswith("workflow not kept: ") and "\n" not in text
        assert kb.list_workflows() == []
