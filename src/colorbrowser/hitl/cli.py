"""``colorbrowser review``: a person turns queued failures into tips.

The queue is filled by ``colorbrowser adapt`` (evaluation/adapt.py) and by the
explorer; answering it is the person's side of the knowledge loop."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from colorbrowser.destination import Destination
from colorbrowser.errors import UserError
from colorbrowser.safe_text import plain


# -- review ---------------------------------------------------------------------------
@click.command("review")
@click.option("--kb", "kb_path",
              type=Destination("the knowledge base", folder=False, path_type=Path),
              envvar="COLORBROWSER_KB", default=None,
              help="Knowledge base with the review queue (env COLORBROWSER_KB).")
@click.option("--list", "list_only", is_flag=True, help="List the open items; ask nothing.")
def review_command(kb_path, list_only):
    """Turn queued failures into tips, one item at a time (tip, skip or quit)."""
    from colorbrowser.agent.secrets import person_masker
    from colorbrowser.config import load_settings
    from colorbrowser.hitl.review import review
    from colorbrowser.hitl.terminal import TerminalAsker
    from colorbrowser.knowledge.store import KnowledgeBase, default_db_path

    path = kb_path or default_db_path()
    if not Path(path).is_file():
        raise UserError(f"no knowledge base at {path}")
    console = Console(stderr=True)
    with KnowledgeBase.open(path, embeddings=False) as kb:
        items = kb.queue_list("open")
        if not items:
            console.print("the review queue is empty")
            return 0
        if list_only:
            for item in items:
                click.echo(plain(f"{item.id}\t{item.site}\t{item.reason}\t{item.url}"))
            return 0
        tally = review(kb, TerminalAsker(console), person_masker(load_settings()))
    console.print(tally.line())
    return 0
