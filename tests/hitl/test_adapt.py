"""One adapt task in-process: the task's own page is kept, its verdict decides success."""

from __future__ import annotations

import re

from colorbrowser.evaluation.adapt import run_task
from colorbrowser.evaluation.miniwob import MiniWobSuite
from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.testing import act

from .helpers import prompts, scripted, settings


def button_clicker(right: bool):
    def reply(prompt: str) -> str:
        wanted = re.search(r'Click on the "([^"]+)" button', prompt).group(1)
        names = re.findall(r"\[(\w+)\] button '([^']*)'", prompt)
        pick = next(b for b, name in names if (name == wanted) == right)
        return act("Press it.", f"click('{pick}')")
    return reply


def test_a_miniwob_episode_started_by_the_task_is_run_and_scored_by_its_page(
        browser_env, kb_path, tmp_path):
    with MiniWobSuite() as suite, KnowledgeBase.open(kb_path, embeddings=False) as kb:
        model = scripted(button_clicker(right=True))
        good = run_task(suite.task("miniwob:click-button", seed=3),
                        settings(tmp_path, kb_path, max_steps=3), env=browser_env,
                        model=model, kb=kb, run_dir=tmp_path / "good")
        assert good.success and good.reward > 0 and good.queued == []
        assert 'Click on the "no" button' in prompts(model)[0]  # the seeded episode, not a reload

        wrong = run_task(suite.task("miniwob:click-button", seed=3),
                         settings(tmp_path, kb_path, max_steps=3), env=browser_env,
                         model=scripted(button_clicker(right=False)), kb=kb,
                         run_dir=tmp_path / "wrong")
        assert not wrong.success
        (item,) = kb.queue_list("open")
        assert item.id in wrong.queued and item.reason.startswith("task failed")
        assert "miniwob" in item.url and item.goal.startswith("Click on the")
        assert (tmp_path / "wrong" / "screenshots" / "final.png").is_file()
