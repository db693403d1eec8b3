"""The one way prompts are written: Jinja2 templates in files, and a fence for text
that came from the web.

Every model role (Operator, Summarizer, critic, judge, ...) renders its prompt here.
Anything a web page could have written, directly (title, tree, dialogs) or through
an earlier step (an action's error that quotes the page, a note, a summary's facts,
the agent's own thought), is passed through ``untrusted``: it lands between two
markers that carry a random tag drawn for this prompt, and marker-like text inside
it is defused, so a page can neither close the fence early nor forge a new one.
Templates use ``{{ x | untrusted }}`` or ``{% filter untrusted %}...{% endfilter %}``;
StrictUndefined makes a missing variable fail loudly instead of leaving a hole.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import jinja2

OPEN = "<<<PAGE CONTENT {tag}>>>"
CLOSE = "<<<END PAGE CONTENT {tag}>>>"
# Anything that looks like a marker once spaces and case are ignored.
_MARKERISH = re.compile(r"<\s*<\s*<|>\s*>\s*>")


def defuse(text: str) -> str:
    """Untrusted text with its marker look-alikes broken up (``<<<`` -> ``< < <``)."""
    return _MARKERISH.sub(lambda m: " ".join(c for c in m.group(0) if not c.isspace()), text)


class Fence:
    """The markers of one prompt. A fresh random tag per prompt: a page cannot know it."""

    def __init__(self, tag: str | None = None) -> None:
        self.tag = tag or secrets.token_hex(4)
        self.open = OPEN.format(tag=self.tag)
        self.close = CLOSE.format(tag=self.tag)

    def __call__(self, text: object) -> str:
        body = defuse(str(text)).strip("\n")
        return f"{self.open}\n{body}\n{self.close}" if body.strip() else ""


@jinja2.pass_context
def _untrusted(context: jinja2.runtime.Context, value: object) -> str:
    fence = context.get("fence")
    if not isinstance(fence, Fence):
        raise jinja2.UndefinedError("untrusted text needs a fence: render() gives one")
    if isinstance(value, list | tuple):
        value = "\n".join(str(v) for v in value)
    return fence(value)


@cache
def _environment(dirs: tuple[str, ...]) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(dirs)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,  # plain-text prompts, not HTML
    )
    env.filters["untrusted"] = _untrusted
    return env


def render(name: str, dirs: Sequence[Path | str | None], /, *, fence: Fence | None = None,
           **context: object) -> str:
    """Render template ``name``, looked up in ``dirs`` in order (a person's folder of
    overrides first, the role's own folder last); ``fence`` defaults to a fresh one."""
    search = tuple(str(d) for d in dirs if d)
    template = _environment(search).get_template(name)
    return template.render(fence=fence or Fence(), **context).strip() + "\n"


def clip_page(text: str, limit: int) -> str:
    """Page text cut to ``limit`` characters, saying so, for roles with a small context."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    if cut < limit // 2:  # no line end in the second half: cut inside the line
        cut = limit
    return text[:cut] + "\n… (page text cut here for length)"


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """Where fenced regions are in a rendered prompt: (start, end) of each, markers
    included. Tests use it to prove page text never sits outside a fence."""
    spans = []
    for match in re.finditer(r"<<<PAGE CONTENT ([0-9a-f]+)>>>", text):
        end = text.find(CLOSE.format(tag=match.group(1)), match.end())
        if end >= 0:
            spans.append((match.start(), end + len(CLOSE.format(tag=match.group(1)))))
    return spans


def outside_fences(text: str) -> str:
    """The text of a prompt with every fenced region cut out."""
    out, last = [], 0
    for start, end in fenced_spans(text):
        if start >= last:
            out.append(text[last:start])
            last = end
    out.append(text[last:])
    return "".join(out)
