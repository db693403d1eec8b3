"""The optional clean-up role: it may drop and merge the person's recorded actions, in
order, and nothing else; otherwise the rules' list stands. Scripted model replies."""

from __future__ import annotations

import json

from colorbrowser.copilot.cleanup import Cleanup
from colorbrowser.copilot.normalize import HumanAction
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.steps import Target
from colorbrowser.types import Action


def human(text, name, *args, target=None):
    return HumanAction(Action(name, list(args), raw=text), 0, "http://127.0.0.1/", 0.0,
                       Target(bid=target, role="button", name="x") if target else None)


RECORDED = [human("click('4')", "click", "4", target="4"),
            human("scroll(0, 300)", "scroll", 0, 300),
            human("scroll(0, 200)", "scroll", 0, 200),
            human("fill('7', 'ada')", "fill", "7", "ada", target="7")]


def reply(*actions):
    return json.dumps({"actions": [{"action": a, "note": "n"} for a in actions]})


def test_dropping_noise_and_merging_scrolls_is_taken():
    model = ScriptedModel([reply("scroll(0, 500)", "fill('7', 'ada')")])
    cleaned = Cleanup(model)("Sign in", RECORDED)
    assert cleaned.used and [a.text() for a in cleaned.actions] == ["scroll(0, 500)",
                                                                    "fill('7', 'ada')"]
    prompt = model.calls[0].messages[-1].content
    assert "<<<PAGE CONTENT" in prompt and "4. fill('7', 'ada')" in prompt  # fenced


def test_an_invented_value_an_unknown_element_or_a_new_order_is_refused():
    for bad in (reply("fill('7', 'eve')"), reply("click('99')"),
                reply("fill('7', 'ada')", "click('4')"), "no json here"):
        cleaned = Cleanup(ScriptedModel([bad, bad]))("Sign in", RECORDED)
        assert not cleaned.used and cleaned.actions == RECORDED, bad
