"""Text a model or a page wrote is printed without its escape sequences."""

from __future__ import annotations

import pytest

from colorbrowser.safe_text import escape, plain


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b]0;pwned\x07\x1b[2Jhello", "hello"),  # retitle the window, clear the screen
    ("a\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # a hidden hyperlink
    ("\x1b[31mred\x1b[0m", "red"),
    ("\x1bcreset", "reset"),  # ESC c resets the whole terminal
    ("\x1bP+q544e\x1b\\after", "after"),  # a device control string
    ("bell\x07 back\x08 cr\r del\x7f", "bell back cr del"),
    ("\x9b2J8-bit \x9d0;t\x07csi", "8-bit csi"),  # C1 forms of CSI and OSC
    ("\x85next\x9cline", "nextline"),  # other C1 controls
    ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
    ("plain text, [brackets] and ünïcode", "plain text, [brackets] and ünïcode"),
])
def test_escape_sequences_and_control_characters_are_dropped(raw, shown):
    assert plain(raw) == shown


BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize("control", list(BIDI_CONTROLS))
def test_each_bidirectional_control_is_dropped(control):
    # "evil.com<RLO>/moc.elgoog" shows as "evil.comgoogle.com/" on a terminal.
    assert plain(f"evil.com{control}/moc.elgoog") == "evil.com/moc.elgoog"


def test_right_to_left_letters_themselves_stay():
    assert plain("שלום مرحبا") == "שלום مرحبا"


def test_escape_also_protects_rich_markup():
    assert escape("\x1b[2J[bold]x[/bold]") == "\\[bold]x\\[/bold]"
    assert plain(42) == "42"
