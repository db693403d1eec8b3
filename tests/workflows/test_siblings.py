"""What a sibling task needs from a learned workflow beyond the goal's values as they
are written: the value in the site's own spelling (a wiki title with underscores, a
login for a person's name, a title's slug), record numbers that belong to the learned
run only, a start page that is the goal's own record, and a count in a control's name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.errors import UserError
from colorbrowser.knowledge.workflow import Spelling, Workflow, WorkflowStep
from colorbrowser.steps import Step, StepResult, Target
from colorbrowser.workflows import addresses, edits, names, spelling
from colorbrowser.workflows.instantiate import instantiate
from colorbrowser.workflows.learn import learn
from colorbrowser.workflows.match import guidance_text, match_goal

from .pages import SITE

HOME = f"http://{SITE}/"
TOPIC = "Help: my compost pile aren't producing anything"


def run_folder(folder, goal: str, start: str, steps: list[Step], answer: str = "",
               end: str | None = None):
    """A verified run: its steps as given, then the stop (on ``end``, else where the
    last step was)."""
    run = Trajectory(folder)
    run.write_meta({"goal": goal, "start_url": start, "model": "some-model"})
    for number, step in enumerate(steps, 1):
        step.step = number
        run.append_step(step)
    last = steps[-1] if steps else Step(step=0, url=start)
    run.append_step(Step(step=len(steps) + 1, url=end or last.url,
                         observation=last.observation,
                         action=f"stop('{answer}')",
                         result=StepResult(done=True, answer=answer)))
    run.write_result({"status": "done", "answer": answer, "verdict": "verified"})
    return folder


def test_the_spellings_write_a_value_as_sites_do():
    assert spelling.slug(TOPIC) == "help-my-compost-pile-arent-producing-anything"
    assert spelling.spell("Black Peak", "underscore") == "Black_Peak"
    assert spelling.spell("Julian Moore", "first") == "julian"
    assert spelling.spell("Cycling", "first") == "Cycling"  # no person's name to shorten
    assert not spelling.name_like("the Harbor project")
    flow = Workflow(site=SITE, goal_pattern="Where is {{who}}?",
                    spellings={"who_underscore": Spelling(of="who", how="underscore")},
                    steps=[WorkflowStep(step={"goto": f"http://{SITE}/w/{{{{who_underscore}}}}"})])
    assert spelling.with_spellings(flow, {"who": "Frost Ridge"}) == {
        "who": "Frost Ridge", "who_underscore": "Frost_Ridge"}
    with pytest.raises(ValidationError, match="first"):
        Spelling(of="who", how="upper")  # a closed set of kinds, never code


def test_two_spellings_that_agree_count_once_the_more_specific_in_an_address():
    """"Cycling" is ``cycling`` in lower case and as a slug: in an address the slug (a
    sibling's "Home Brewing" is ``home-brewing`` there), typed in a field lower case."""
    goal = "Open the Cycling board."
    [in_address] = spelling.find_spelled(goal, [], texts=set(), fields={"cycling"})
    assert (in_address.value.text, in_address.how) == ("Cycling", "slug")
    [typed] = spelling.find_spelled(goal, [], texts={"cycling"}, fields=set())
    assert typed.how == "lower"
    [login] = spelling.find_spelled("Who is Julian Moore?", [], texts=set(),
                                    fields={"julian"})
    assert (login.value.text, login.how) == ("Julian Moore", "first")


def test_a_wiki_title_in_the_address_is_the_goals_value_spelled(tmp_path):
    page = f"http://{SITE}/index.php/Black_Peak"
    flow = learn(run_folder(tmp_path / "run", "How high is Black Peak, in metres?", HOME,
                            [Step(step=0, url=HOME, action=f"goto('{page}')")]))
    assert flow.goal_pattern == "How high is {{high}}, in metres?"
    assert flow.steps[0].step == {"goto": f"http://{SITE}/index.php/{{{{high_underscore}}}}"}
    assert flow.spellings == {"high_underscore": Spelling(of="high", how="underscore")}
    params = match_goal(flow, "How high is Frost Ridge, in metres?")
    assert params == {"high": "Frost Ridge"}
    (goto, _), = instantiate(flow, params, env={})
    assert goto.args == (f"http://{SITE}/index.php/Frost_Ridge",)
    assert "index.php/Frost_Ridge" in guidance_text(flow, params)  # as the Operator reads it


def test_a_persons_name_used_as_a_login_in_a_query(tmp_path):
    query = f"http://{SITE}/query?owner=julian&status=accepted"
    flow = learn(run_folder(
        tmp_path / "run", "How many tickets has Julian Moore accepted that are still open?",
        HOME, [Step(step=0, url=HOME, action=f"goto('{query}')")]))
    assert flow.goal_pattern == "How many tickets has {{has}} accepted that are still open?"
    assert flow.spellings == {"has_first": Spelling(of="has", how="first")}
    params = match_goal(flow, "How many tickets has James Chen accepted that are still open?")
    (goto, _), = instantiate(flow, params, env={})
    assert goto.args == (f"http://{SITE}/query?owner=james&status=accepted",)


def test_an_address_with_the_learned_records_number_is_not_rebuilt_for_a_sibling(tmp_path):
    """/topic/12/<slug>: the slug is the goal's title, the 12 only the learned topic's;
    a sibling's goal does not say its number, so the address stays as it was and the
    title is no parameter of it (the page it leads to is checked by the slug)."""
    page = f"http://{SITE}/topic/12/help-my-compost-pile-arent-producing-anything/"
    flow = learn(run_folder(tmp_path / "run", f'Who started the topic "{TOPIC}"?', HOME,
                            [Step(step=0, url=HOME, action=f"goto('{page}')")], end=page))
    assert flow.steps[0].step == {"goto": page}
    assert flow.steps[0].expect_url == f"http://{SITE}/topic/*/{{{{topic_slug}}}}/*"


def test_a_run_that_started_on_its_records_page_starts_where_the_sibling_starts(tmp_path):
    start = f"http://{SITE}/topic/14/help-my-compost-pile-arent-producing-anything/"
    box = "[33] textbox 'Write comment...'\n[41] button 'Publish'"
    flow = learn(run_folder(
        tmp_path / "run", f'Reply to the topic "{TOPIC}" with: Same here.', start,
        [Step(step=0, url=start, observation=box, action="fill('33', 'Same here.')",
              target=Target(bid="33", role="textbox", name="Write comment...")),
         Step(step=0, url=start, observation=box, action="click('41')",
              target=Target(bid="41", role="button", name="Publish"))]))
    assert flow.goal_pattern == 'Reply to the topic "{{topic}}" with: {{value}}'
    assert flow.steps[0].step == addresses.STAY
    assert flow.steps[0].expect_url == f"http://{SITE}/topic/*/{{{{topic_slug}}}}/*"
    params = match_goal(flow, 'Reply to the topic "Any tips? My bike squeaks" with: Oil it.')
    assert params == {"topic": "Any tips? My bike squeaks", "value": "Oil it."}
    first, _ = instantiate(flow, params, env={})[0]
    assert first.action == "scroll"  # nothing is opened: the check is on the address


def test_a_new_records_number_in_an_expected_address_is_left_open():
    assert addresses.expected(f"http://{SITE}/ticket/121#comment", {}, {}) == \
        f"http://{SITE}/ticket/**"
    assert addresses.expected(f"http://{SITE}/ticket/18", {"ticket": "18"}, {}) == \
        f"http://{SITE}/ticket/{{{{ticket}}}}*"
    spelled = {"b_slug": "cycling"}
    assert addresses.expected(f"http://{SITE}/category/4/cycling/", {"b": "Cycling"} | spelled,
                              spelled) == f"http://{SITE}/category/*/{{{{b_slug}}}}/*"


@pytest.mark.parametrize("name, target", [
    ("like (2)", {"role": "link", "contains": "like ("}),
    ("Comments [14]", {"role": "link", "contains": "Comments ["}),
    ("(3)", {"role": "link", "name": "(3)"}),  # nothing left to name the control by
    ("Milestone: 1.3", {"role": "link", "name": "Milestone: 1.3"}),  # no count in brackets
    ("#{{ticket}} (2)", {"role": "link", "name": "#{{ticket}} (2)"}),
])
def test_a_count_at_the_end_of_a_name_is_left_out_of_the_target(name, target):
    assert names.without_count({"role": "link", "name": name}) == target


def test_a_workflow_names_only_known_spellings_of_its_own_parameters():
    step = WorkflowStep(step={"goto": f"http://{SITE}/wiki/{{{{p_upper}}}}"})
    with pytest.raises(ValidationError, match="Input should be"):
        Workflow(site=SITE, goal_pattern="Open {{p}}.", steps=[step],
                 spellings={"p_upper": {"of": "p", "how": "upper"}})
    with pytest.raises(ValidationError, match="is not in the goal pattern"):
        Workflow(site=SITE, goal_pattern="Open {{p}}.", steps=[step])  # spelled nowhere
    with pytest.raises(ValidationError, match="must be a new name for a parameter"):
        Workflow(site=SITE, goal_pattern="Open {{p}}.", steps=[step],
                 spellings={"p_upper": {"of": "q", "how": "slug"}})
    flow = Workflow(site=SITE, goal_pattern="Open {{p}}.",
                    spellings={"p_slug": Spelling(of="p", how="slug")},
                    steps=[WorkflowStep(step={"goto": f"http://{SITE}/w/{{{{p_slug}}}}"})])
    with pytest.raises(UserError, match="no value for the parameter"):
        instantiate(flow, {}, env={})


def test_a_run_that_rewrote_a_fields_old_text_with_a_sentence_added_cannot_teach(tmp_path):
    """The article's source is only shown cut short: a workflow would write the learned
    article over a sibling's."""
    edit = f"http://{SITE}/index.php?title=Alderhaven&action=edit"
    tree = ("[6] textbox 'Wikitext source editor' value='{{Infobox settlement | name = "
            "Alderhaven | region = [[Southwold]] | population = 3,798…'\n[13] button 'Save'")
    source = ("{{Infobox settlement\n| name = Alderhaven\n| region = [[Southwold]]\n"
              "| population = 3,798\n}}\nA town. It hosts a festival.")
    steps = [Step(step=0, url=edit, observation=tree, action=f"fill('6', {source!r})",
                  target=Target(bid="6", role="textbox", name="Wikitext source editor"))]
    goal = 'Add the sentence "It hosts a festival." at the end of the article about Alderhaven.'
    with pytest.raises(UserError, match="step 1 rewrites the text the field already held"):
        learn(run_folder(tmp_path / "run", goal, edit, steps))
    # An empty field, or one that held a few characters, is filled as usual.
    assert edits.keeps_old_text("[6] textbox 'Title:' value='Draft'", "6", "Draft two")\
        is False
