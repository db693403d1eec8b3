"""The verifier as a reviewer at the gate: a stop is checked before it ends the episode.

A stop the evidence does not back is returned to the decider as a ``Reject`` whose
reason it reads next ("the value '42' in your answer appears on no page you saw"), up
to ``retries`` times, so verification raises success instead of only reporting
failure. After that the stop runs, and the episode ends with the verdict beside its
status (``EpisodeResult.verification``). A person's stop in copilot mode does not pass
the gate; it is verified when the episode ends, without a second chance.
"""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.agent.trajectory import load_steps
from colorbrowser.agent.verify import FinalPage, Proof, verify
from colorbrowser.evidence import Late, Verification
from colorbrowser.gate import Reject
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import Decision, EpisodeResult, Step, StepContext
from colorbrowser.types import Observation

BY = "verifier"


class Judge:
    """A second opinion after the deterministic checks (a model, or a script in tests)."""

    def judge(self, proof: Proof, checks: Verification) -> Verification:
        return checks


class VerifyHook(Hook):
    gives_verdict = True  # the loop ends it first, so other hooks read the verdict

    def __init__(self, retries: int = 2, *, judge: Judge | None = None,
                 state_changed: Callable[[], bool | None] | None = None,
                 late: Callable[[], Late | None] | None = None) -> None:
        self.retries = retries
        self.judge = judge
        self.state_changed = state_changed  # the arena's database diff, where there is one
        self.late = late  # the browser's news since the last step (BrowserEnv.late_evidence)
        self.used = 0
        self.steps: list[Step] = []
        self.obs: Observation | None = None
        self.last: Verification | None = None

    def on_start(self, episode: EpisodeView) -> None:
        if episode.run_dir is not None:  # a resumed run: its evidence so far, its retries
            self.steps = load_steps(episode.run_dir)
            self.used = sum(1 for s in self.steps for g in s.gate
                            if g.by == BY and g.verdict == "reject")

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        self.obs = obs

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        self.steps.append(step)

    def proof(self, episode: EpisodeView, answer: str | None, *, stopped: bool = True,
              status: str = "done") -> Proof:
        obs = self.obs
        final = FinalPage(url=obs.url, title=obs.title, text=obs.axtree,
                          error=obs.last_error) if obs is not None else FinalPage()
        if obs is None and self.steps:
            last = self.steps[-1]
            final = FinalPage(url=last.url, title=last.title, text=last.observation)
        return Proof(goal=episode.goal, answer=answer, steps=list(self.steps), final=final,
                     stopped=stopped, status=status, state_probe=self.state_changed,
                     tail=self.late() if self.late is not None else None)

    def check(self, proof: Proof) -> Verification:
        verdict = verify(proof)
        if self.judge is not None and proof.stopped and verdict.verdict != "refuted":
            verdict = self.judge.judge(proof, verdict)
        verdict.retries = self.used
        return verdict

    def review(self, episode: EpisodeView, ctx: StepContext,
               decision: Decision) -> Reject | None:
        action = decision.action
        if action is None or action.name != "stop":
            return None
        answer = str(action.args[0]) if action.args else ""
        verdict = self.check(self.proof(episode, answer))
        ctx.verification = verdict
        if verdict.verified or self.used >= self.retries:
            self.last = verdict
            return None
        self.used += 1
        return Reject(reason=f"{verdict.reason_text()}. Continue the task, or stop again with "
                             "an answer the pages you saw support", by=BY)

    def on_end(self, episode: EpisodeView, result: EpisodeResult) -> None:
        if result.verification is not None:
            return
        if result.status == "done":
            result.verification = self.last or self.check(self.proof(episode, result.answer))
        else:
            result.verification = self.check(self.proof(episode, result.answer, stopped=False,
                                                         status=result.status))
