"""The text a page shows inside one element, when the tree splits it into lines.

The observation writes a paragraph whose middle is a link as three lines (``text:
Same problem as Trac ticket``, ``link '#66'``, ``text: : Tag renaming ...``), so a
sentence the page shows whole is on no single line of it. A person reads the
paragraph as one text; so does the verifier, but only there: the pieces joined are the
consecutive inline children (text runs, links, emphasis, code...) of ONE element, in
their order, never words from two elements, which would let any scatter of words over
a page count as a text it shows.
"""

from __future__ import annotations

import re

from colorbrowser.browser.tree_lines import parse

# Roles that flow inside a line of text, as opposed to blocks (paragraphs, list items,
# rows, headings...) that start a line of their own.
INLINE = {"text", "link", "strong", "emphasis", "code", "mark", "time", "abbr",
          "subscript", "superscript", "deletion", "insertion", "StaticText"}
# A piece that follows the last without a space: closing punctuation, not the start of
# a number (".5" after "1" would make a number the page does not show).
_CLOSES = re.compile(r"^[.,:;!?)\]}%'’](?!\w)")
_OPENS = re.compile(r"[(\[{#$€£]$")  # a piece the next one follows without a space


def _joined(pieces: list[str]) -> str:
    text = pieces[0]
    for piece in pieces[1:]:
        glue = "" if _CLOSES.match(piece) or _OPENS.search(text) else " "
        text += glue + piece
    return text


def inline_runs(tree: str) -> list[str]:
    """Each run of two or more consecutive inline children of one element, joined as the
    page shows them (no space before closing punctuation): "Same problem as Trac ticket
    #66: Tag renaming ...". A child with children of its own, or a block, ends a run."""
    lines = parse(tree)
    runs: list[str] = []

    def flush(pieces: list[str]) -> None:
        if len(pieces) > 1:
            runs.append(_joined(pieces))
        pieces.clear()

    open_: list[tuple[int, list[str]]] = []  # the elements whose children are being read
    for i, line in enumerate(lines):
        while open_ and open_[-1][0] >= line.depth:
            flush(open_.pop()[1])
        leaf = i + 1 >= len(lines) or lines[i + 1].depth <= line.depth
        if open_:
            pieces = open_[-1][1]
            if line.role in INLINE and leaf and line.text:
                pieces.append(line.text)
            else:
                flush(pieces)
        open_.append((line.depth, []))
    for _, pieces in open_:
        flush(pieces)
    return runs
