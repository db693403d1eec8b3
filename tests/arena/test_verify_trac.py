"""The verifier's checks on the arena's real Trac, in real Chromium, through the arena
suite and the replay agent: each check refuses a false "done" (an empty answer, a value
seen nowhere, a page one click short of the goal, a stop before any action, a write never
made, a wrong value written) and accepts the oracle's true one, and an agent that stops
early with a made-up value recovers the task when the verifier sends it back."""

from __future__ import annotations

import pytest

from colorbrowser.actions import parse_action
from colorbrowser.arena.instances import INSTANCE_VAR
from colorbrowser.arena.plans import plans
from colorbrowser.arena.ports import STRIDE, port_busy
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import load_settings
from colorbrowser.evaluation.episode import run_task_episode
from colorbrowser.evaluation.replay import NoModel, ReplayOperator
from colorbrowser.evaluation.suites import open_suite
from colorbrowser.evaluation.task import short_id
from colorbrowser.steps import Decision, DecisionView
from colorbrowser.types import Usage

from .conftest import own_cache

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def played(arena_cache, trac_port, tmp_path_factory):
    """play(task, plan kind) -> the finished run, on the test arena's Trac."""
    cache = own_cache(arena_cache, tmp_path_factory.mktemp("verify-trac"))
    out = tmp_path_factory.mktemp("runs")
    settings = load_settings(overrides={("browser", "screenshots"): False,
                                        ("agent", "knowledge"): "off",
                                        ("agent", "memory"): "none"})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLORBROWSER_CACHE", str(cache))
        mp.setenv("COLORBROWSER_ARENA_PORTS", f"trac={trac_port}")
        free = next(n for n in range(4, 50) if not port_busy(trac_port + n * STRIDE))
        mp.setenv(INSTANCE_VAR, str(free))  # clear of the other tests and runs
        choice = open_suite("arena:trac")
        with choice.suite as suite, BrowserEnv(settings.browser) as env:
            ids = {short_id(t): t for t in suite.tasks}

            def play(task: str, kind: str = "oracle", decider=None, retries: int = 0):
                agent = settings.agent.model_copy(update={"verify_retries": retries})
                run = run_task_episode(
                    suite.task(ids[task]), settings.model_copy(update={"agent": agent}),
                    env=env, model=NoModel(),
                    decider=decider or ReplayOperator(plans(kind)[task].encode()),
                    run_dir=out / kind / task)
                assert run.error_class != "setup", run.error
                return run, run.verification

            yield play


def test_a_question_answered_from_the_page_is_verified_and_empty_or_made_up_is_not(played):
    run, verdict = played("trac-milestone-size-1.3")
    assert run.success and verdict.verified, verdict.reasons
    run, verdict = played("trac-milestone-size-1.3", "null")
    assert not run.success and verdict.verdict == "refuted"
    assert "the answer is empty" in verdict.reason_text()
    run, verdict = played("trac-milestone-size-1.3", "wrong")  # 17: on no page of the run
    assert not run.success and verdict.verdict == "refuted"
    assert "'17'" in verdict.reason_text() and "on no page you saw" in verdict.reason_text()


def test_an_open_goal_needs_the_page_itself(played):
    run, verdict = played("trac-open-milestone-1.3")
    assert run.success and verdict.verified, verdict.reasons
    run, verdict = played("trac-open-milestone-1.3", "truncated")  # stopped on the roadmap
    assert not run.success and not verdict.verified
    assert "only links to 'Milestone: 1.3'" in verdict.reason_text()
    run, verdict = played("trac-open-milestone-1.3", "null")  # a stop before any action
    assert not run.success and not verdict.verified
    assert "before taking any action" in verdict.reason_text()


def test_a_change_needs_its_write_and_must_read_back_as_asked(played):
    run, verdict = played("trac-comment-33")
    assert run.success and verdict.verified, verdict.reasons
    run, verdict = played("trac-comment-33", "truncated")  # typed, never submitted
    assert not run.success and verdict.verdict == "refuted"
    assert "nothing was saved" in verdict.reason_text()
    run, verdict = played("trac-priority-36", "wrong")  # saved, but as "major"
    assert not run.success and not verdict.verified
    assert "shows 'critical'" in verdict.reason_text()


class StopsEarlyThenFollowsThePlan(ReplayOperator):
    """Stops at once with a made-up answer; sent back, it follows the oracle plan."""

    takes_second_chance = True

    def __init__(self, actions: list[str]) -> None:
        super().__init__(actions)
        self.stopped = False

    def decide(self, view: DecisionView) -> Decision:
        if not self.stopped:
            self.stopped = True
            return Decision("the page looks right", parse_action("stop('9999')"), "stop('9999')",
                            Usage())
        return super().decide(view)


def test_the_second_chance_recovers_a_task_stopped_early(played):
    plan = plans("oracle")["trac-milestone-size-1.1"].encode()
    run, verdict = played("trac-milestone-size-1.1", "second-chance",
                          decider=StopsEarlyThenFollowsThePlan(plan), retries=1)
    assert run.success and run.answer == "23"
    assert verdict.verified and verdict.retries == 1
