"""Text that a model or a page wrote, made safe to print on a terminal.

A model's thought, a page's title or an error quoting a page can hold escape
sequences that retitle the window, clear the screen or rewrite what is already
shown. Everything of theirs that reaches the terminal goes through ``plain`` (or
``escape`` where rich markup is printed): escape sequences and control characters
are dropped, newlines and tabs kept. So are the Unicode bidirectional controls, which
make a line show in another order than it reads (``evil.com\u202e/moc.elgoog``).
"""

from __future__ import annotations

import re

from rich.markup import escape as _escape_markup

_SEQUENCE = re.compile(
    r"\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC: window title, hyperlinks, clipboard
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS, SOS, PM, APC strings
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clearing the screen
    r"|\x1b[ -/]*[0-~]"  # the other escapes (ESC c resets the terminal)
    r"|\x9d[^\x07\x9c]*(?:\x07|\x9c)?"  # 8-bit OSC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # C0 but tab and newline, DEL, C1
    r"|[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"  # bidi marks, embeddings, isolates
)


def plain(text: object) -> str:
    """``text`` as a string with no escape sequence or control character but \\n and \\t."""
    return _CONTROL.sub("", _SEQUENCE.sub("", str(text)))


def escape(text: object) -> str:
    """``plain`` text, with rich markup escaped too: for ``console.print`` of foreign text."""
    return _escape_markup(plain(text))
