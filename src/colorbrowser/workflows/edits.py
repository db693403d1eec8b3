"""A fill that rewrites the text a field already held (an article's source with one
sentence added at its end) carries the learned page's own text: replayed for a
sibling, it would replace the sibling's article with the learned one. Such a run
cannot teach; the field's old text is only shown cut short (``…``), so it cannot be
rebuilt from the sibling's page either."""

from __future__ import annotations

from colorbrowser.errors import UserError
from colorbrowser.workflows import page

MIN_KEPT = 20  # characters of old text that make a fill an edit of it


def shown_value(tree: str, bid: str) -> str:
    """The value the page's tree shows for element ``bid`` ("" when none)."""
    return next((line.value for line in page.parse(tree) if line.bid == bid), "")


def keeps_old_text(tree: str, bid: str, value: str) -> bool:
    """Whether filling ``value`` into ``bid`` keeps the text the field held (and adds)."""
    old = " ".join(shown_value(tree, bid).removesuffix("…").split())
    new = " ".join(value.split())
    return len(old) >= MIN_KEPT and old in new and len(new) > len(old)


def refuse_rewrites(step_number: int, tree: str, bid: str, value: str, run_dir: object
                    ) -> None:
    if keeps_old_text(tree, bid, value):
        raise UserError(f"run {run_dir} step {step_number} rewrites the text the field "
                        "already held (its own page's text, kept and added to): a sibling's "
                        "field holds other text, so this run cannot teach a workflow")
