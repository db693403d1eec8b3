"""The action parser accepts exactly one literal call and explains every rejection."""

import pytest

from colorbrowser.actions import ACTIONS, describe_actions, extract_action_text, parse_action
from colorbrowser.errors import ActionParseError


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ("click('12')", "click", ["12", "left"]),
        ('click("12", button="right")', "click", ["12", "right"]),
        ("click(12)", "click", ["12", "left"]),
        ("fill('7', \"blue socks\")", "fill", ["7", "blue socks"]),
        ("type('7', 'x')", "fill", ["7", "x"]),
        ("press('7', 'Control+a')", "press", ["7", "Control+a"]),
        ("select_option('3', ['S', 'M'])", "select_option", ["3", ["S", "M"]]),
        ("scroll(0, -250.5)", "scroll", [0, -250.5]),
        ("goto('http://127.0.0.1:8000/?q=a b')", "goto", ["http://127.0.0.1:8000/?q=a b"]),
        ("go_back()", "go_back", []),
        ("tab_close()", "tab_close", [None]),
        ("tab_focus(1)", "tab_focus", [1]),
        ("stop()", "stop", [""]),
        ("stop('42')", "stop", ["42"]),
        ("take_note(text='price 3.50')", "take_note", ["price 3.50"]),
        ("calculate('2*3')", "calculate", ["2*3"]),
        ("  click('1') ; ", "click", ["1", "left"]),
    ],
)
def test_valid_calls_parse_to_canonical_actions(text, name, args):
    action = parse_action(text)
    assert action.name == name
    assert action.args == args
    assert parse_action(action.raw).args == args  # the canonical text parses back the same


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("__import__('os').system('ls')", "expected one call"),
        ("__import__('os')", "unknown action"),
        ("eval('1')", "unknown action"),
        ("click(x)", "plain literals"),
        ("click(open('f'))", "plain literals"),
        ("click('1', '2', '3')", "takes 2"),
        ("fill('1')", "missing value"),
        ("click(*ids)", "not allowed"),
        ("click(**kw)", "not allowed"),
        ("click('1'); click('2')", "not a valid call"),
        ("1 + 1", "expected one call"),
        ("click('')", "empty"),
        ("click(True)", "element id"),
        ("tab_focus('a')", "whole number"),
        ("scroll('down', 1)", "number"),
        ("select_option('1', [])", "list of strings"),
        ("click('1', colour='red')", "unknown argument"),
        ("fill('1', 'a', value='b')", "given twice"),
        ("", "empty"),
    ],
)
def test_invalid_calls_raise_a_reason_the_model_can_fix(text, reason):
    with pytest.raises(ActionParseError, match=reason):
        parse_action(text)


def test_action_is_found_in_tagged_fenced_or_bare_replies():
    assert extract_action_text("<think>go</think>\n<action>click('3')</action>") == "click('3')"
    assert extract_action_text("Plan:\n```python\nfill('2', 'x')\n```") == "fill('2', 'x')"
    assert extract_action_text("I will scroll.\nscroll(0, 200)") == "scroll(0, 200)"
    with pytest.raises(ActionParseError, match="no action found"):
        extract_action_text("I am not sure what to do")


def test_action_list_for_the_prompt_names_every_action_with_an_example():
    text = describe_actions()
    for name, spec in ACTIONS.items():
        assert f"- {name}(" in text
        assert spec.example in text


def test_an_escaped_lone_surrogate_in_an_argument_becomes_a_replacement_character():
    # A Python escape in a string literal makes a lone surrogate that no file can hold.
    assert parse_action("fill('1', 'a\\ud800')").args == ["1", "a\ufffd"]
    assert parse_action("select_option('3', ('x\\udc00', 'y'))").args == ["3", ["x\ufffd", "y"]]
    assert parse_action("stop('\\ud83d\\ude00')").args == ["\U0001f600"]


@pytest.mark.parametrize("reply", [
    "<action>click('1')</action><action>click('2')</action>",
    "<think>both</think>\n<action>click('1')</action>\n<action>stop('done')</action>",
    "<action>click('1')</action> and then <action>stop('cut off",
    "<action>click('1')</action>\n```python\nfill('2', 'x')\n```",
    "```python\nfill('2', 'x')\n```\n<action>click('1')</action>",
])
def test_a_reply_with_two_actions_is_refused_not_cut_down_to_the_last(reply):
    with pytest.raises(ActionParseError, match="2 actions; put exactly one call"):
        extract_action_text(reply)


@pytest.mark.parametrize(("reply", "action"), [
    ("<think>the format is <action>click('9')</action></think>\n<action>click('1')</action>",
     "click('1')"),
    ("<think>go</think><action>fill('1', '<action>x')</action>", "fill('1', '<action>x')"),
    ("<action>click('1')</action>\n```\nnot a call, just notes\n```", "click('1')"),
    ("<action></action>\n<action>click('1')</action>", "click('1')"),
])
def test_action_tags_in_the_thought_or_in_an_argument_are_not_a_second_action(reply, action):
    assert extract_action_text(reply) == action


def test_an_action_written_only_inside_the_thought_is_still_found():
    assert extract_action_text("<think>I will <action>click('4')</action></think>") == \
        "click('4')"
