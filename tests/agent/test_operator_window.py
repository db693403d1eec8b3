"""The Operator's prompt fits the model's context window: a page too long for it is
cut (its start kept, the cut said), and the rest of the prompt stays whole.

ScriptedModel stands in for the model (canned replies, no real model)."""

from __future__ import annotations

from colorbrowser.agent.operator import Operator
from colorbrowser.config import ModelSettings
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.llm.tokens import count_tokens
from colorbrowser.steps import DecisionView
from colorbrowser.types import Observation

BIG_PAGE = "\n".join(f"[{i}] link 'Northwind rain jacket, size {i}, in stock'"
                     for i in range(1, 1500))


def view(page: str = BIG_PAGE) -> DecisionView:
    obs = Observation(url="http://127.0.0.1/shop", title="Jackets", axtree=page)
    return DecisionView(goal="Find the cheapest rain jacket", obs=obs, step=1, max_steps=5,
                        tips=["Sort by price with the 'Sort' select."])


def scripted(window: int | None, reply_tokens: int = 512) -> ScriptedModel:
    model = ScriptedModel(["<think>ok</think><action>click('1')</action>"])
    model.context_tokens = window  # type: ignore[attr-defined]
    model.reply_tokens = reply_tokens  # type: ignore[attr-defined]
    return model


def prompt_tokens(operator: Operator, v: DecisionView) -> int:
    return sum(count_tokens(m.content) for m in operator.messages(v))


def test_a_page_longer_than_the_window_is_cut_so_prompt_and_reply_fit():
    operator = Operator(scripted(4096))
    messages = operator.messages(view())
    user = messages[-1].content
    assert prompt_tokens(operator, view()) + 512 <= 4096
    assert "[1] link 'Northwind rain jacket, size 1," in user
    assert "page text cut here for length" in user
    assert "Find the cheapest rain jacket" in user and "Sort by price" in user
    assert "size 1499," not in user


def test_the_cut_ends_at_a_line_and_the_decision_still_comes_back():
    operator = Operator(scripted(2048))
    user = operator.messages(view())[-1].content
    before_notice = user.split("\n… (page text cut here for length)")[0]
    assert before_notice.rstrip().endswith("in stock'")
    decision = operator.decide(view())
    assert decision.action is not None and decision.action.name == "click"


def test_a_page_that_fits_and_a_model_of_unknown_window_are_left_whole():
    small = "\n".join(BIG_PAGE.splitlines()[:20])
    assert "cut here" not in Operator(scripted(4096)).messages(view(small))[-1].content
    assert "size 1499," in Operator(scripted(None)).messages(view())[-1].content


def test_the_offline_client_knows_its_window_and_an_endpoint_only_when_told():
    offline = OpenAIChatModel(ModelSettings(base_url="http://127.0.0.1:9/v1"), offline=True)
    remote = OpenAIChatModel(ModelSettings(base_url="http://127.0.0.1:9/v1"))
    told = OpenAIChatModel(ModelSettings(base_url="http://127.0.0.1:9/v1",
                                         context_tokens=32000))
    assert (offline.context_tokens, remote.context_tokens, told.context_tokens) == (
        4096, None, 32000)
    assert offline.reply_tokens == 512
