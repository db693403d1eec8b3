"""The slot a control fills (the named elements just before and after it): learning
records it, and a control renamed in its place is found again by it, while a removed
one, a look-alike or a name that says something else is not."""

from __future__ import annotations

from colorbrowser.knowledge.workflow import WorkflowStep
from colorbrowser.workflows import page
from colorbrowser.workflows.instantiate import check_surroundings
from colorbrowser.workflows.learn import learn

from .pages import observation
from .runs import write_run

MENU = """
[1] link 'Harbor'
[14] list
  [16] link 'Wiki'
  [18] link 'Timeline'
  [20] link '{roadmap}'
  [22] link 'Browse Source'
  [24] link '{tickets}'
  [26] link 'New Ticket'
[30] heading 'Welcome' level=2
"""


def menu(roadmap: str = "Roadmap", tickets: str = "View Tickets") -> str:
    return MENU.format(roadmap=roadmap, tickets=tickets)


def slot(tree: str, name: str) -> tuple[str, str]:
    lines = page.parse(tree)
    return page.neighbours(lines, page.same_targets(lines, "link", name)[0])


def test_learning_records_the_named_elements_on_each_side_of_a_target(tmp_path):
    flow = learn(write_run(tmp_path / "run"))
    around = flow.steps[1].surroundings  # "Submit changes", after "Preview", last on the page
    assert (around.before, around.after) == ("button Preview", "")


def test_a_slot_leaves_out_the_elements_own_contents():
    tree = "[1] link 'A'\n[2] link 'Topic'\n  [3] img 'Topic'\n  [4] link 'inner'\n[5] link 'B'"
    assert slot(tree, "Topic") == ("link A", "link B")


def test_a_control_renamed_in_its_place_is_found_by_its_slot():
    before, after = slot(menu(), "View Tickets")
    assert page.renamed(menu(tickets="Show Tickets"), "link", "View Tickets",
                        before, after) == "Show Tickets"
    assert page.renamed(menu(tickets="Go: View Tickets ›"), "link", "View Tickets",
                        before, after) == "Go: View Tickets ›"


def test_nothing_is_found_when_the_control_is_still_there_or_was_removed():
    before, after = slot(menu(), "View Tickets")
    assert page.renamed(menu(), "link", "View Tickets", before, after) is None
    removed = menu().replace("  [24] link 'View Tickets'\n", "")
    assert page.renamed(removed, "link", "View Tickets", before, after) is None


def test_a_new_name_that_shares_no_word_with_the_old_one_is_not_taken():
    before, after = slot(menu(), "Roadmap")
    assert page.renamed(menu(roadmap="Plan"), "link", "Roadmap", before, after) is None


def test_a_new_name_shown_twice_is_not_taken():
    before, after = slot(menu(), "View Tickets")
    twice = menu(tickets="Show Tickets") + "[40] link 'Show Tickets'\n"
    assert page.renamed(twice, "link", "View Tickets", before, after) is None


def test_another_role_in_the_slot_is_not_taken():
    before, after = slot(menu(), "View Tickets")
    button = menu().replace("[24] link 'View Tickets'", "[24] button 'Show Tickets'")
    assert page.renamed(button, "link", "View Tickets", before, after) is None


def test_no_heading_above_a_target_is_recorded_and_a_heading_there_later_refuses_it():
    lines = page.parse(menu())
    around = page.surroundings(lines, page.same_targets(lines, "link", "Roadmap")[0])
    assert around.no_heading and around.heading == ""
    step = WorkflowStep(step={"click": {"role": "link", "name": "Roadmap"}},
                        surroundings=around)
    same = observation(menu())
    assert check_surroundings(step, same.elements["20"], same, {}) is None
    boxed = observation("[2] heading 'Sponsored' level=4\n[3] link 'Roadmap'\n" + menu())
    assert "where it had no section heading" in check_surroundings(
        step, boxed.elements["3"], boxed, {})
    assert "where it had no section heading" in check_surroundings(
        step, boxed.elements["20"], boxed, {})


def test_a_heading_learned_above_a_target_is_not_a_no_heading_fact():
    lines = page.parse(menu() + "[31] link 'Read more'\n")
    around = page.surroundings(lines, len(lines) - 1)
    assert not around.no_heading and around.heading == "Welcome"
