"""Run folders written the way an episode writes them (Trajectory, typed Step records),
for the learning and CLI tests that need no browser."""

from __future__ import annotations

from pathlib import Path

from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.steps import Step, StepResult, Target

from .pages import SITE, ticket_page

HOME = f"http://{SITE}/"


def write_run(folder: Path, *, goal: str = "Who is the owner of ticket #18?",
              verdict: str | None = "verified", status: str = "done",
              answer: str = "Julian Moore", goto: str = f"http://{SITE}/ticket/18") -> Path:
    """An agent's run: open the ticket, answer with the owner read on its page."""
    run = Trajectory(folder)
    run.write_meta({"goal": goal, "start_url": HOME, "model": "some-model"})
    home = ticket_page(1, "Nobody")
    ticket = ticket_page(18, "Julian Moore")
    run.append_step(Step(step=1, url=HOME, observation=home.axtree,
                         action=f"goto('{goto}')"))
    run.append_step(Step(step=2, url=ticket.url, observation=ticket.axtree,
                         action="scroll(0, 300)"))
    run.append_step(Step(step=3, url=ticket.url, observation=ticket.axtree,
                         action="click('114')",
                         target=Target(bid="114", role="button", name="Submit changes")))
    run.append_step(Step(step=4, url=ticket.url, observation=ticket.axtree,
                         action=f"stop('{answer}')",
                         result=StepResult(done=True, answer=answer)))
    result = {"status": status, "answer": answer, "steps": 4}
    if verdict:
        result["verdict"] = verdict
    run.write_result(result)
    return folder
