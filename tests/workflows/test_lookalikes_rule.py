"""The block of a look-alike target (``workflows/lookalikes.py``) on hand-written
pages: what learning records, which live pages pass the check (a sibling topic with
other posts and counts) and which are refused (a look-alike removed before it or added
beside it), and the fact as data a workflow file may carry."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from colorbrowser.knowledge.workflow import Block, WorkflowStep
from colorbrowser.plan.format import Target
from colorbrowser.workflows import lookalikes, page


def topic(posts: list[tuple[str, int | None]]) -> str:
    """A topic page: each post its author and a row of links, the like link (with its
    count) left out where the count is None."""
    out, bid = ["[1] heading 'Help: my bike chain squeaks' level=1"], 10
    for author, likes in posts:
        out += [f"[{bid}] link '{author}'", f"[{bid + 1}] paragraph: Some words.",
                f"[{bid + 2}] list", f"  [{bid + 3}] link 'report'",
                f"  [{bid + 4}] link 'share'"]
        if likes is not None:
            out.append(f"  [{bid + 5}] link 'like ({likes})'")
        out.append(f"  [{bid + 6}] link 'quote'")
        bid += 10
    return "\n".join(out)


LEARNED = topic([("northern_maple", 2), ("clever_sparrow", 0), ("admin", 0), ("fox", 1)])
LIKE = Target("link", None, "like (")


def learned_block(tree: str = LEARNED, nth: int = 0, literal=lambda name: True):
    lines = page.parse(tree)
    same = page.same_targets(lines, "link", contains="like (")
    return lookalikes.block_of(lines, same[nth], same, literal)


def step(nth: int = 0) -> WorkflowStep:
    return WorkflowStep(step={"click": {"role": "link", "contains": "like (", "nth": nth}},
                        matches=4, block=learned_block(nth=nth))


def checked(tree: str, nth: int = 0) -> str | None:
    """The check of the look-alike the step's target finds (its ``nth``)."""
    lines = page.parse(tree)
    found = page.same_targets(lines, "link", contains="like (")[nth]
    target = Target("link", None, "like (", nth)
    return lookalikes.check(step(nth), target, lines[found].bid, tree)


def test_learning_records_the_names_that_repeat_once_per_look_alike_around_it():
    assert learned_block() == Block(before="link share", after="link quote")
    assert learned_block(nth=2) == Block(before="link share", after="link quote")


def test_names_with_a_goal_value_or_a_number_are_no_marks_of_a_block():
    no_share = learned_block(literal=lambda name: name not in ("share", "quote"))
    assert no_share == Block(before="link report", after="")
    counted = LEARNED.replace("'share'", "'share (1)'")
    assert learned_block(counted).before == "link report"


def test_no_block_when_the_look_alikes_repeat_no_structure():
    stray = LEARNED + "\n[97] link 'report'\n[98] link 'share'\n[99] link 'quote'"
    assert learned_block(stray) is None  # each name once more than the look-alikes
    bare = "\n".join(f"[{n}] link 'like ({n})'" for n in (1, 2, 3))
    assert learned_block(bare) is None


def test_a_sibling_with_other_posts_and_counts_passes():
    assert checked(LEARNED) is None
    assert checked(topic([("misty_nomad", 0), ("urban_rider", 1)])) is None
    assert checked(topic([("misty_nomad", 0), ("a", 1), ("b", 5), ("c", 0), ("d", 2)]),
                   nth=2) is None


def test_the_next_blocks_look_alike_is_refused_when_the_targets_is_gone():
    removed = topic([("northern_maple", None), ("clever_sparrow", 0), ("admin", 0)])
    assert "not the look-alike of block 1" in checked(removed)
    earlier_gone = topic([("northern_maple", None), ("b", 0), ("c", 0), ("d", 1)])
    assert "not the look-alike of block 3" in checked(earlier_gone, nth=2)


def test_a_look_alike_added_beside_the_target_in_its_block_is_refused():
    twice = LEARNED.replace("  [15] link 'like (2)'",
                            "  [15] link 'like (2)'\n  [17] link 'like (9)'")
    assert "another look-alike stands in its block" in checked(twice)


def test_a_block_is_checked_data():
    with pytest.raises(ValidationError, match="before or after"):
        Block()
    with pytest.raises(ValidationError, match="role and a name"):
        Block(before="share")
    with pytest.raises(ValidationError, match="role and a name"):
        Block(after="link {{topic}}")
    with pytest.raises(ValidationError, match="matches of 2"):
        WorkflowStep(step={"click": {"role": "link", "name": "like (2)"}}, matches=1,
                     block=Block(before="link share"))
