"""The Summarizer keeps a bounded belief state; scripted model replies stand in for the model."""

import json

import pytest

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.summarizer import Summarizer, approx_tokens, parse_reply
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.steps import HistoryEntry, StepContext, TriggerNote
from colorbrowser.types import Observation


def reply(**fields) -> str:
    base = {"progress": [], "facts": [], "state": "", "on_track": True,
            "tip_violations": [], "guidance": ""}
    base.update(fields)
    return json.dumps(base)


def episode(goal="Find the cheapest socks and report the price") -> Episode:
    return Episode(goal, env=None, decider=None)  # only the state is used here


OBS = Observation(url="http://127.0.0.1/shop", title="Shop", axtree="[1] link 'Socks'")


def run_update(summ, ep, step=1, triggers=()):
    ep.state.step = step - 1
    ctx = StepContext(step=step, triggers=list(triggers))
    summ.update(ep.view, OBS, ctx)  # as the loop does: update, then keep what it renders
    ep.state.summary = summ.render(ep.view)
    return ctx


def test_summary_budget_holds_when_the_model_rambles():
    long = "word " * 400
    replies = [reply(progress=[f"sub-goal {i}: {long}" for i in range(8)],
                     facts=[f"fact {i} = {i * 11}.50" for i in range(30)],
                     state=long, on_track=False, guidance=long)] * 5
    for budget in (50, 120, 500):
        summ = Summarizer(ScriptedModel(replies), budget=budget)
        ep = episode()
        for step in range(1, 6):
            run_update(summ, ep, step)
            assert approx_tokens(ep.state.summary) <= budget, (budget, step)


def test_facts_are_carried_forward_verbatim_even_when_the_model_forgets_them():
    summ = Summarizer(ScriptedModel([
        reply(progress=["opened socks category"], facts=["Wool hiking socks cost $14.50"]),
        reply(progress=["opened socks category", "sorted by price"], facts=[]),
    ]))
    ep = episode()
    run_update(summ, ep, 1)
    run_update(summ, ep, 2)
    assert "Wool hiking socks cost $14.50" in ep.state.summary
    assert "sorted by price" in ep.state.summary


def test_old_progress_collapses_instead_of_growing():
    steps = [f"completed sub-goal number {i} with some detail about what happened there"
             for i in range(40)]
    replies = [reply(progress=steps[: i + 1]) for i in range(40)]
    summ = Summarizer(ScriptedModel(replies), budget=200)
    ep = episode()
    sizes = []
    for step in range(1, 41):
        run_update(summ, ep, step)
        sizes.append(approx_tokens(ep.state.summary))
    assert max(sizes) <= 200
    assert "completed sub-goal number 39" in ep.state.summary  # the newest stays detailed


def test_guidance_appears_only_on_deviation():
    guided = "Go back and use the search box instead."
    on_track = Summarizer(ScriptedModel([reply(on_track=True, guidance=guided)]))
    ep = episode()
    ctx = run_update(on_track, ep)
    assert "Guidance" not in ep.state.summary and not ctx.summary_guidance

    off_track = Summarizer(ScriptedModel([reply(on_track=False, guidance=guided)]))
    ep = episode()
    ctx = run_update(off_track, ep)
    assert f"Guidance: {guided}" in ep.state.summary and ctx.summary_guidance

    violated = Summarizer(ScriptedModel([reply(tip_violations=["use search, not categories"],
                                              guidance=guided)]))
    ep = episode()
    run_update(violated, ep)
    assert "use search, not categories" in ep.state.summary
    assert guided in ep.state.summary


def test_a_rule_trigger_counts_as_deviation_even_if_the_model_says_on_track():
    summ = Summarizer(ScriptedModel([reply(on_track=True)]))
    ep = episode()
    run_update(summ, ep, triggers=[TriggerNote(kind="repeated_action",
                                               reason="the same action was repeated 3 times")])
    assert "Guidance:" in ep.state.summary
    assert "repeated 3 times" in ep.state.summary


def test_a_broken_reply_keeps_the_previous_summary_and_reports_why():
    summ = Summarizer(ScriptedModel([reply(facts=["order #1234"]), "I think it is fine!"]))
    ep = episode()
    run_update(summ, ep, 1)
    before = ep.state.summary
    ctx = run_update(summ, ep, 2)
    assert ep.state.summary == before
    assert "not a JSON object" in ctx.summarizer_error


def test_update_every_k_steps_skips_model_calls_in_between():
    model = ScriptedModel([reply(progress=["a"]), reply(progress=["a", "b"])])
    summ = Summarizer(model, every=3)
    ep = episode()
    for step in range(1, 5):
        run_update(summ, ep, step)
    assert len(model.calls) == 2  # steps 1 and 4


def test_the_summarizer_prompt_is_bounded_and_fences_the_page():
    model = ScriptedModel([reply()])
    summ = Summarizer(model, page_chars=1000)
    ep = episode()
    ep.state.history = [HistoryEntry(i, "u", f"click('{i}')", True) for i in range(1, 200)]
    big = Observation(url="u", title="t", axtree="[1] text 'x'\n" * 5000)
    summ.update(ep.view, big, StepContext(step=200))
    user = model.calls[0].messages[-1].content
    assert len(user) < 3000
    assert "<<<PAGE CONTENT" in user and "<<<END PAGE CONTENT" in user
    assert "click('199')" in user and "click('150')" not in user


@pytest.mark.parametrize("text", ['```json\n{"progress": ["x"]}\n```', 'Sure: {"facts": "one"}'])
def test_reply_parsing_tolerates_wrapping(text):
    parsed = parse_reply(text)
    assert parsed.progress == ["x"] or parsed.facts == ["one"]
