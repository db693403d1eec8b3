"""Look-alikes: elements of a step target's role and name other than the target.

Two facts, recorded when the workflow is learned, keep the runner from acting on a
look-alike in the target's place:

* A target that was the **only one** of its role and name (``matches`` 1) is a guess
  once the live page shows two: the step is refused.
* A target that was **one of several** (a topic's "like (N)" links, one per post,
  picked by its place among them: ``nth``) cannot be told by its count of look-alikes,
  which a sibling page legitimately changes (a topic with three posts, not seven).
  What does not change is the block structure the look-alikes repeat: each post's
  like link stands between its own "share" and "quote" links. Learning records the
  nearest such controls before and after the target (``Block``: controls of one fixed
  name, no goal value and no number in it, that stand exactly once between each
  look-alike and the next, as many as there are look-alikes). Before acting, the runner
  counts them on the live page: the target, the ``nth`` look-alike, must be the one
  look-alike of the ``nth`` block (``nth`` of the ``after`` elements before it, ``nth +
  1`` of the ``before`` ones, and no other look-alike between them). A sibling's other
  posts and counts keep that true; a removed look-alike leaves its block without one,
  so the next block's, which now comes first, is refused, and so is a look-alike put
  into a block beside the target.

A page whose look-alikes repeat no such structure records no block, and its steps are
checked as before (by their surroundings alone).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from colorbrowser.browser.tree_lines import Line
from colorbrowser.knowledge.workflow import Block, WorkflowStep
from colorbrowser.plan.format import Target
from colorbrowser.workflows import page

REACH = 40  # named elements looked at on each side of the target for its block's marks
# A block is marked by controls, whose names are the site's words; a text's words are
# its content, which differs from one block (and one sibling page) to the next.
MARK_ROLES = {"link", "button", "menuitem", "tab", "checkbox", "radio", "switch"}


def block_of(lines: list[Line], index: int, same: list[int],
             literal: Callable[[str], bool]) -> Block | None:
    """The block of the look-alike at ``index`` among ``same`` (the lines of every
    look-alike, in page order), or None. ``literal(name)`` says that a name holds no
    goal value (a sibling's page would show another)."""
    if len(same) < 2 or index not in same:
        return None
    k = same.index(index)
    end = _subtree_end(lines, index)
    before = _mark(lines, range(index - 1, same[k - 1] if k else -1, -1), same, literal,
                   lambda got: all(m < s and (i == 0 or m > same[i - 1])
                                   for i, (m, s) in enumerate(zip(got, same, strict=True))))
    after = _mark(lines, range(end, same[k + 1] if k + 1 < len(same) else len(lines)),
                  same, literal,
                  lambda got: all(m > s and (i + 1 == len(same) or m < same[i + 1])
                                  for i, (m, s) in enumerate(zip(got, same, strict=True))))
    return Block(before=before, after=after) if before or after else None


def _mark(lines: list[Line], span: range, same: list[int], literal: Callable[[str], bool],
          interleaved: Callable[[list[int]], bool]) -> str:
    """The nearest named element in ``span`` whose name repeats once per look-alike,
    interleaved with them as ``interleaved`` wants; "" when there is none."""
    looked = 0
    for i in span:
        line = lines[i]
        if not line.bid or not line.text or i in same or line.role not in MARK_ROLES:
            continue
        looked += 1
        if looked > REACH:
            break
        if re.search(r"\d", line.text) or not literal(line.text):
            continue
        got = page.same_targets(lines, line.role, line.text)
        if len(got) == len(same) and interleaved(got):
            return page.named(line)
    return ""


def _subtree_end(lines: list[Line], index: int) -> int:
    end = index + 1
    while end < len(lines) and lines[end].depth > lines[index].depth:
        end += 1
    return end


def check(ws: WorkflowStep, target: Target, bid: str, tree: str) -> str | None:
    """None when the element ``bid`` the step's target found on the live page is the
    look-alike the workflow learned (see the module's docstring); else why not."""
    if ws.by_row or not (ws.matches == 1 or ws.block is not None):
        return None  # a row-picked target is told by its row
    lines = page.parse(tree)
    live = page.same_targets(lines, target.role, target.name, target.contains,
                             ends=target.ends)
    if ws.matches == 1:
        if len(live) > 1:
            return (f"the page shows {len(live)} of {target.describe()} where the learned "
                    "page showed one: which one is meant cannot be told")
        return None
    index = page.index_of(lines, bid)
    if ws.block is None or index is None:
        return None
    return _in_block(ws.block, target.nth, lines, index, live)


def _in_block(block: Block, nth: int, lines: list[Line], index: int, live: list[int]
              ) -> str | None:
    start, stop = -1, len(lines)
    for mark, want, before in ((block.before, nth + 1, True), (block.after, nth, False)):
        if not mark:
            continue
        role, _, name = mark.partition(" ")
        marks = page.same_targets(lines, role, name)
        ahead = [m for m in marks if m < index]
        if len(ahead) != want or (not before and len(marks) == want):
            return (f"it is not the look-alike of block {nth + 1}: {len(ahead)} of {mark!r} "
                    f"stand before it where {want} stood before the learned one (a "
                    "look-alike before it is gone, or one was added)")
        if before:
            start = ahead[-1]
        else:
            stop = marks[want]
    if any(start < i < stop and i != index for i in live):
        return "another look-alike stands in its block: which one is meant cannot be told"
    return None
