"""A target that was one of several look-alikes when learned (a topic's "like (N)"
links, one per post, nothing but their place to tell them apart), in real Chromium on a
forum of the tests' own: the workflow likes the opening post of a sibling topic with
other posts and another number of likes, and when the opening post's like link is gone
it refuses the next post's, which now comes first (``workflows/lookalikes.py``)."""

from __future__ import annotations

import pytest

from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import load_steps
from colorbrowser.arena.pagechanges import ChangedPages, PageChange
from colorbrowser.knowledge.workflow import Block
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act
from colorbrowser.workflows.match import match_goal
from colorbrowser.workflows.runner import WorkflowRunner

from .conftest import run, settings
from .likes_app import TOPICS, LikesForum, topic_path
from .test_siblings_spelled_and_read import sibling, teach

pytestmark = pytest.mark.slow

GOAL = 'Like the opening post of the topic "{}".'


@pytest.fixture
def forum():
    site = LikesForum()
    yield site
    site.close()


def learned(forum, env, tmp_path):
    """Taught on topic 6, whose opening post's link is the first of five like links."""
    kb = tmp_path / "kb.db"
    flow = teach(GOAL.format(TOPICS[6][0]), forum.url + topic_path(6),
                 [{"click": {"role": "link", "name": "like (2)"},
                   "expect": {"role": "link", "name": "remove like (3)"}}, "stop()"],
                 env, tmp_path, kb)
    assert forum.likes == [60]
    forum.likes.clear()
    [like] = [ws for ws in flow.steps if "click" in ws.step]
    assert like.matches == 5 and like.step["click"].get("nth", 0) == 0
    # every post's like link stands between its "share" and "quote" links
    assert like.block == Block(before="link share", after="link quote")
    return flow, kb


def test_a_sibling_topic_with_fewer_posts_likes_its_own_opening_post(forum, env, tmp_path):
    _, kb = learned(forum, env, tmp_path)
    result = sibling(GOAL.format(TOPICS[31][0]), forum.url + topic_path(31), env, tmp_path,
                     kb)
    assert result.status == "done"
    assert forum.likes == [310]  # its opening post, not a reply


@pytest.mark.parametrize(("topic", "first"), [(6, "like (2)"), (31, "like (0)")])
def test_with_the_opening_posts_like_link_removed_no_other_post_is_liked(
        forum, env, tmp_path, topic, first):
    flow, _ = learned(forum, env, tmp_path)
    goal = GOAL.format(TOPICS[topic][0])
    pages = ChangedPages([forum.url], [PageChange("remove", names=(first,))],
                         seed=28).install(env.session.context)
    model = ScriptedModel([lambda messages: act("I will not guess.", "scroll(0, 300)")] * 5)
    runner = WorkflowRunner(flow, match_goal(flow, goal),
                            Operator(model, send_screenshot=False), mode="only")
    _, result = run(goal, forum.url + topic_path(topic), settings(tmp_path), model, env,
                    tmp_path / "changed", decider=runner, hooks=[runner])
    steps = load_steps(tmp_path / "changed")
    assert pages.pages >= 1
    assert steps[0].observation.count("link 'like (") == len(TOPICS[topic][1]) - 1
    assert forum.likes == []  # no reply was liked instead of the opening post
    assert result.status == "aborted"
    assert runner.report.refused >= 1 and runner.report.workflow_actions <= 1
    assert "not the look-alike of block 1" in (runner.report.gave_up or "")
