"""The tree text built from walker rows: folding, wrappers, options, interactive_only."""

from __future__ import annotations

from colorbrowser.browser.observe import format_axtree
from colorbrowser.browser.tree import MAX_INLINE_OPTIONS, has_long_option_list

# Row layout: [bid, role, name, parent, flags, states, x, y, w, h, frame, tag]


def row(bid, role, name="", parent=-1, flags=0, states=None, tag="div"):
    return [bid, role, name, parent, flags, states or {}, 0, 0, 0, 0, 0, tag]


def text(value, parent):
    return row("", "text", value, parent, tag="")


def test_single_text_child_is_folded_onto_its_element():
    rows = [row("1", "paragraph", tag="p"), text("Hello world", 0)]
    assert format_axtree(rows) == "[1] paragraph: Hello world"


def test_mixed_content_is_indented_under_its_parent():
    rows = [row("1", "paragraph", tag="p"), text("See", 0),
            row("2", "link", "here", 0, flags=1, tag="a"), text("for more", 0)]
    assert format_axtree(rows) == "[1] paragraph\n  text: See\n  [2] link 'here'\n  text: for more"


def test_wrapper_around_one_element_is_not_printed():
    rows = [row("1", "list", tag="ul"), row("2", "listitem", parent=0, tag="li"),
            row("3", "link", "Home", 1, flags=1, tag="a")]
    assert format_axtree(rows) == "[1] list\n  [3] link 'Home'"


def test_states_print_in_a_fixed_order():
    states = {"focused": True, "value": "it's", "required": True, "disabled": True}
    rows = [row("5", "textbox", "Name", states=states, flags=1, tag="input")]
    assert format_axtree(rows) == "[5] textbox 'Name' disabled required focused value=\"it's\""
    rows = [row("6", "checkbox", "A", states={"checked": False}, flags=1),
            row("7", "button", "M", states={"expanded": False, "pressed": True}, flags=1),
            row("8", "heading", "T", states={"level": 3})]
    assert format_axtree(rows).splitlines() == [
        "[6] checkbox 'A' unchecked", "[7] button 'M' collapsed pressed", "[8] heading 'T' level=3"]


def test_select_options_are_listed_on_the_select_line():
    rows = [row("1", "combobox", "Size", flags=1, states={"value": "M"}, tag="select"),
            row("2", "option", "S", 0, flags=1, tag="option"),
            row("3", "option", "M", 0, flags=1, states={"selected": True}, tag="option")]
    assert format_axtree(rows) == "[1] combobox 'Size' value='M' options=['S', 'M']"


def test_a_long_option_list_is_cut_unless_every_option_is_asked_for():
    labels = [f"L{i}" for i in range(1, MAX_INLINE_OPTIONS + 3)]
    rows = [row("1", "combobox", "Language", flags=1, tag="select")]
    rows += [row(str(i + 2), "option", label, 0, flags=1, tag="option")
             for i, label in enumerate(labels)]
    assert has_long_option_list(rows) and not has_long_option_list(rows, len(labels))
    assert format_axtree(rows) == \
        f"[1] combobox 'Language' options={labels[:MAX_INLINE_OPTIONS]!r} (+2 more)"
    assert format_axtree(rows, max_options=None) == f"[1] combobox 'Language' options={labels!r}"
    assert format_axtree(rows, max_options=3) == \
        f"[1] combobox 'Language' options={labels[:3]!r} (+{len(labels) - 3} more)"


def test_interactive_only_drops_structure_but_keeps_text_and_controls():
    rows = [row("1", "navigation", "Main", tag="nav"), row("2", "list", parent=0, tag="ul"),
            row("3", "link", "A", 1, flags=1, tag="a"), row("4", "link", "B", 1, flags=1, tag="a"),
            row("5", "paragraph", parent=-1, tag="p"), text("Plain words", 4),
            row("6", "heading", "Title", tag="h1")]
    assert format_axtree(rows, interactive_only=True).splitlines() == [
        "[3] link 'A'", "[4] link 'B'", "[5] paragraph: Plain words", "[6] heading 'Title'"]
