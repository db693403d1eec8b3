"""Workflows learned from a recorded run in real Chromium, then run on a sibling goal
with no model, where the sibling's values are spelled by the site in its own way, are
read on a page before the one that uses them, or live on another named site
(``workflows/spelling.py``, ``reads.py``, ``sites.py``, ``forms.py``)."""

from __future__ import annotations

import contextlib

import pytest

from colorbrowser.evaluation.replay import ReplayOperator
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.plan.format import Plan, parse_step
from colorbrowser.run.factory import build_episode
from colorbrowser.workflows.learn import learn

from .conftest import no_model, run, settings
from .siblings_app import BUGS, FOUND, OPEN_CLOSED, PRODUCTS, TICKETS, searched


def teach(goal: str, start: str, plan: list, env, tmp_path, kb):
    """The oracle's run of ``plan``, recorded, learned from and stored in ``kb``."""
    run_dir = tmp_path / "taught"
    steps = Plan([parse_step(s) for s in plan])
    with contextlib.ExitStack() as stack:
        episode = build_episode(goal, start, settings(tmp_path, verify_retries=0), stack,
                                run_dir=run_dir,
                                model=no_model(), env=env,
                                decider=ReplayOperator(steps.encode()))
        result = episode.run()
    assert result.status == "done", result.error
    flow = learn(run_dir, learned_by="oracle", proof="the test's plan")
    store = KnowledgeBase.open(kb, embeddings=False)
    try:
        return store.add_workflow(flow)
    finally:
        store.close()


def sibling(goal: str, start: str, env, tmp_path, kb):
    model = no_model()
    episode, result = run(goal, start, settings(tmp_path, kb), model, env,
                          tmp_path / "sibling")
    assert model.calls == []
    runner = episode.workflow.runner
    assert runner is not None and runner.report.gave_up is None, "the workflow did not run"
    return result


def test_a_project_the_site_writes_in_lower_case_opens_the_siblings_page(sites, env,
                                                                          tmp_path):
    kb = tmp_path / "kb.db"
    flow = teach("Who is the manager of the Ledgerly project?", f"{sites.store}/",
                 [f"goto('{sites.store}/projects/ledgerly')", {"stop": "Nathan Harris"}],
                 env, tmp_path, kb)
    assert flow.goal_pattern == "Who is the manager of the {{value}} project?"
    assert flow.steps[0].step == {"goto": f"{sites.store}/projects/{{{{value_slug}}}}"}
    result = sibling("Who is the manager of the Tidewatch project?", f"{sites.store}/", env,
                     tmp_path, kb)
    assert result.answer == "Abigail Bell"


def test_a_product_page_addressed_by_slug_and_id_is_expected_for_the_sibling(sites, env,
                                                                             tmp_path):
    kb = tmp_path / "kb.db"
    name, price = PRODUCTS[5]
    flow = teach(f"How much does the {name} cost?", f"{sites.store}/",
                 [*searched(name),
                  {"click": {"role": "link", "name": name}}, {"stop": price}],
                 env, tmp_path, kb)
    assert flow.steps[-1].expect_url == f"{sites.store}/catalogue/{{{{value_slug}}}}_*/*"
    other, other_price = PRODUCTS[140]
    result = sibling(f"How much does the {other} cost?", f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == other_price


def test_an_issue_found_by_its_subject_is_not_a_commit_that_mentions_it(sites, env,
                                                                       tmp_path):
    """The teacher's issue link ends with its subject ("Bug #30 (New): ..."); the
    sibling's results list a commit "... (refs #208)" first, which holds the subject too:
    no look-alike of an issue's link, so the issue is opened and the commit never is."""
    kb = tmp_path / "kb.db"
    subject = FOUND[30].split(": ", 1)[1]
    flow = teach(f'Open the issue "{subject}".', f"{sites.store}/",
                 [*searched(subject),
                  {"click": {"role": "link", "contains": "#30 ("}}], env, tmp_path, kb)
    assert flow.steps[-1].step == {"click": {"role": "link", "contains": "{{issue}}",
                                             "ends": True}}
    other = FOUND[208].split(": ", 1)[1]
    sibling(f'Open the issue "{other}".', f"{sites.store}/", env, tmp_path, kb)
    assert env.page.url == f"{sites.store}/issues/208"


def test_an_answer_seen_before_the_last_page_is_read_where_it_was_seen(sites, env,
                                                                       tmp_path):
    kb = tmp_path / "kb.db"
    name, price = PRODUCTS[5]
    flow = teach(f"How much does the {name} cost? Then go back home.", f"{sites.store}/",
                 [*searched(name),
                  {"click": {"role": "link", "name": name}},
                  {"click": {"role": "link", "name": "Home"}}, {"stop": price}],
                 env, tmp_path, kb)
    [reading] = flow.steps[-1].reads  # on the product page, before "Home" is clicked
    assert reading.example == price and flow.answer.template == f"{{{{{reading.name}}}}}"
    other, other_price = PRODUCTS[140]
    result = sibling(f"How much does the {other} cost? Then go back home.",
                     f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == other_price


def test_an_answer_that_adds_up_a_column_adds_up_the_siblings_column(sites, env,
                                                                     tmp_path):
    """47 open issues: no cell says 47, the "open" column adds up to it. The project's
    link sits in a row that describes the project: not kept as its surroundings."""
    kb = tmp_path / "kb.db"
    harbor = sum(o for o, _ in OPEN_CLOSED["harbor"])
    flow = teach("How many open issues does the Harbor project have?",
                 f"{sites.store}/projects",
                 [{"click": {"role": "link", "name": "Harbor"}}, {"stop": str(harbor)}],
                 env, tmp_path, kb)
    assert flow.answer.total and flow.answer.label == "open"
    assert flow.steps[1].surroundings is None or not flow.steps[1].surroundings.row
    result = sibling("How many open issues does the Ledgerly project have?",
                     f"{sites.store}/projects", env, tmp_path, kb)
    assert result.answer == str(sum(o for o, _ in OPEN_CLOSED["ledgerly"]))
    assert result.verdict == "verified"  # the sum was done in the open: 20 + 10 + 5


def test_the_menu_a_siblings_item_sits_under_is_picked_by_that_item(sites, env, tmp_path):
    """Kettles sits under "Home & Kitchen", Tents under "Outdoor": the teacher's menu
    is not the sibling's, the row that holds the item tells which one is."""
    kb = tmp_path / "kb.db"
    flow = teach("Show me the Kettles category of the store.", f"{sites.store}/catalogue/",
                 [{"click": {"role": "link", "name": "Home & Kitchen"}},
                  {"click": {"role": "link", "name": "Kettles"}}], env, tmp_path, kb)
    assert [ws.by_row for ws in flow.steps] == [False, True, False]
    sibling("Show me the Tents category of the store.", f"{sites.store}/catalogue/", env,
            tmp_path, kb)
    assert env.page.url == f"{sites.store}/catalogue/category/outdoor/tents_14/"


def test_an_answer_after_the_words_that_name_it_is_read_after_them(sites, env, tmp_path):
    """The reporter's link follows "Added by"; the sibling's page has more links before
    it, so counting links would read another one."""
    kb = tmp_path / "kb.db"
    flow = teach("Who reported bug #61?", f"{sites.store}/",
                 [f"goto('{sites.store}/bugs/61')", {"stop": BUGS[61][0]}], env, tmp_path, kb)
    assert (flow.answer.label, flow.answer.label_kind) == ("Added by", "after")
    result = sibling("Who reported bug #133?", f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == BUGS[133][0]


def test_the_last_of_a_list_is_counted_from_the_end(sites, env, tmp_path):
    kb = tmp_path / "kb.db"
    flow = teach("What did the last comment on bug #61 say?", f"{sites.store}/",
                 [f"goto('{sites.store}/bugs/61')", {"stop": BUGS[61][2][-1]}], env,
                 tmp_path, kb)
    assert flow.answer.from_end
    result = sibling("What did the last comment on bug #133 say?", f"{sites.store}/", env,
                     tmp_path, kb)
    assert result.answer == BUGS[133][2][-1]  # the third of three, where 61 had two


def test_a_status_list_named_by_the_status_it_shows_is_found_by_its_place(sites, env,
                                                                          tmp_path):
    kb = tmp_path / "kb.db"
    teach("Change the status of order 1 to Processing.", f"{sites.store}/orders/1/",
          [{"select_option": {"role": "combobox", "name": "Processing"},
            "options": "Processing"},
           {"click": {"role": "button", "name": "Change status"}}], env, tmp_path, kb)
    assert sites.state.orders[1] == "Processing"
    sibling("Change the status of order 2 to Cancelled.", f"{sites.store}/orders/2/", env,
            tmp_path, kb)
    assert sites.state.orders[2] == "Cancelled"  # its list showed "Processing"


def test_a_title_read_on_trac_is_filed_on_the_code_hosting_site(sites, env, tmp_path,
                                                                monkeypatch):
    monkeypatch.setenv("WA_GITLAB", sites.store)
    monkeypatch.setenv("WA_TRAC", sites.trac)
    kb = tmp_path / "kb.db"
    goal = ("Trac ticket #{n} describes a bug. File the same bug, with the same title, "
            "in the {p} project of the code-hosting site.")
    flow = teach(goal.format(n=66, p="Harbor"), f"{sites.trac}/ticket/66",
                 [f"goto('{sites.store}/projects/harbor/issues/new')",
                  {"fill": {"role": "textbox", "name": "Subject"}, "value": TICKETS[66]},
                  {"click": {"role": "button", "name": "Create"}}], env, tmp_path, kb)
    crossing = flow.steps[1]
    assert crossing.step == {"goto": "__GITLAB__/projects/{{value_slug}}/issues/new"}
    assert [r.example for r in crossing.reads] == [TICKETS[66]]
    assert sites.state.issues == [("harbor", TICKETS[66])]
    sibling(goal.format(n=93, p="Ledgerly"), f"{sites.trac}/ticket/93", env, tmp_path, kb)
    assert sites.state.issues[-1] == ("ledgerly", TICKETS[93])


def test_two_values_that_were_the_same_number_are_told_apart_by_the_word_before(
        sites, env, tmp_path, monkeypatch):
    """The teacher commented on issue #66 about ticket #66; the sibling comments on issue
    #152 about ticket #93: the ticket's address follows "ticket", the issue's "issues",
    and the number inside the quoted text is a value of its own."""
    monkeypatch.setenv("WA_GITLAB", sites.store)
    monkeypatch.setenv("WA_TRAC", sites.trac)
    kb = tmp_path / "kb.db"
    goal = ('Add a comment to issue #{i} on the code-hosting site that says "Same problem as '
            'Trac ticket #{t}: " followed by that ticket\'s title.')
    flow = teach(goal.format(i=66, t=66), f"{sites.store}/issues/66",
                 [f"goto('{sites.trac}/ticket/66')", f"goto('{sites.store}/issues/66')",
                  {"fill": {"role": "textbox", "name": "Comment"},
                   "value": f"Same problem as Trac ticket #66: {TICKETS[66]}"},
                  {"click": {"role": "button", "name": "Submit"}}], env, tmp_path, kb)
    assert flow.steps[0].step == {"goto": "__TRAC__/ticket/{{ticket}}"}
    assert flow.goal_pattern == goal.format(i="{{issue}}", t="{{ticket}}")
    sibling(goal.format(i=152, t=93), f"{sites.store}/issues/152", env, tmp_path, kb)
    assert sites.state.comments[152] == [f"Same problem as Trac ticket #93: {TICKETS[93]}"]


def test_a_workflow_of_an_unnamed_site_never_crosses_to_a_named_one(sites, env, tmp_path,
                                                                    monkeypatch):
    """The same run, learned while Trac is named; run where only the code-hosting site
    is: its crossing step is refused before anything runs."""
    from colorbrowser.errors import UserError
    from colorbrowser.workflows.instantiate import instantiate

    monkeypatch.setenv("WA_GITLAB", sites.store)
    monkeypatch.setenv("WA_TRAC", sites.trac)
    flow = teach("Trac ticket #66 describes a bug. File the same bug, with the same title, "
                 "in the Harbor project of the code-hosting site.", f"{sites.trac}/ticket/66",
                 [f"goto('{sites.store}/projects/harbor/issues/new')",
                  {"fill": {"role": "textbox", "name": "Subject"}, "value": TICKETS[66]},
                  {"click": {"role": "button", "name": "Create"}}], env, tmp_path,
                 tmp_path / "kb.db")
    with pytest.raises(UserError, match="not on the workflow's site"):
        instantiate(flow, {"ticket": "93", "value": "Ledgerly"}, env={"WA_GITLAB": sites.store})
