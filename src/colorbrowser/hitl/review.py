"""Walking a person through the review queue, one item at a time.

Each item shows what went wrong; the person writes a tip with a scope they
confirm (stored, and the item resolved with the tip's id), skips it, or quits
and leaves the rest for later. Each answer is saved before the next question.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from colorbrowser.hitl.asking import REVIEW_CHOICES, Asker, HelpRequest, propose_scope
from colorbrowser.knowledge.review_queue import EXPLORATION, QueueItem
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.knowledge.tip import masked


@dataclass
class ReviewTally:
    resolved: list[tuple[int, str]] = field(default_factory=list)  # (item id, tip id)
    skipped: list[int] = field(default_factory=list)
    left: int = 0  # items still open when the person stopped

    def line(self) -> str:
        return (f"{len(self.resolved)} resolved with a tip, {len(self.skipped)} skipped, "
                f"{self.left} still open")


def item_request(item: QueueItem, position: int, total: int) -> HelpRequest:
    site, pattern = propose_scope(item.url)
    return HelpRequest(
        reason=item.reason, goal=item.goal, url=item.url, summary=item.summary,
        last_actions=list(item.last_actions), screenshot=item.screenshot_path,
        site=site or item.site, pattern=pattern, choices=REVIEW_CHOICES,
        title=f"review item {item.id} ({position} of {total}, queued {item.created:%Y-%m-%d})",
        run_dir=item.run_dir,
    )


def _origin(item: QueueItem) -> dict[str, object]:
    """Tips written for an exploration finding keep where the finding came from."""
    if item.reason.startswith(EXPLORATION):
        return {"tags": ["review", "exploration"], "source": "exploration"}
    return {"tags": ["review"]}


def review(kb: KnowledgeBase, asker: Asker,
           mask: Callable[[str], str] = lambda text: text) -> ReviewTally:
    """``mask`` hides the known secrets in what the person writes (one may paste a
    password into a tip, which every later run reads)."""
    items = kb.queue_list("open")
    tally = ReviewTally(left=len(items))
    for position, item in enumerate(items, 1):
        assert item.id is not None
        answer = asker.ask(item_request(item, position, len(items)))
        if answer.closed or answer.kind == "quit":
            break
        if answer.kind == "tip":
            tip = kb.add(masked(answer.tip(**_origin(item)), mask))
            kb.queue_resolve(item.id, "resolved", tip.id)
            tally.resolved.append((item.id, tip.id))
        else:
            kb.queue_resolve(item.id, "skipped")
            tally.skipped.append(item.id)
        tally.left -= 1
    return tally
