"""Render the generators' simple blocks into each app's own markup.

Blocks: ("h", text), ("p", text), ("ul", [items]), ("ol", [items]), ("code", text).
Inline markup in the texts is limited to ``**bold**``, `` `code` `` and ``[[Page]]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Block = tuple[str, object]
_LINK = re.compile(r"\[\[([^\]|]+)\]\]")


def to_trac(blocks: Iterable[Block]) -> str:
    out = []
    for kind, body in blocks:
        if kind == "h":
            out.append(f"== {body} ==")
        elif kind == "p":
            out.append(_LINK.sub(r"[wiki:\1]", str(body).replace("**", "'''")))
        elif kind in ("ul", "ol"):
            mark = " *" if kind == "ul" else " 1."
            out.append("\n".join(f"{mark} {str(item).replace('**', chr(39) * 3)}"
                                 for item in body))  # type: ignore[union-attr]
        elif kind == "code":
            out.append("{{{\n" + str(body) + "\n}}}")
    return "\n\n".join(out) + "\n"


def to_markdown(blocks: Iterable[Block], link: str = r"[[\1]]") -> str:
    out = []
    for kind, body in blocks:
        if kind == "h":
            out.append(f"## {body}")
        elif kind == "p":
            out.append(_LINK.sub(link, str(body)))
        elif kind == "ul":
            out.append("\n".join(f"* {item}" for item in body))  # type: ignore[union-attr]
        elif kind == "ol":
            out.append("\n".join(f"{n}. {item}"
                                 for n, item in enumerate(body, 1)))  # type: ignore[arg-type]
        elif kind == "code":
            out.append("```\n" + str(body) + "\n```")
    return "\n\n".join(out) + "\n"
