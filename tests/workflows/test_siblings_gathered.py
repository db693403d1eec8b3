"""Answers that no element of the page states whole, learned in real Chromium from a
forum drawn as Spirit draws it and run on a sibling topic with no model
(``workflows/totals.py``, ``reads.anchored``, ``forms.led_answer``): the replies of a
topic counted, its replies joined as a summary, and a poster's name read where the
page shows the poster's initial just before it."""

from __future__ import annotations

from .siblings_app import OPEN_BUGS, PRODUCTS, ROADMAPS, STOCK, TOPICS, VOTES, searched
from .test_siblings_spelled_and_read import sibling, teach


def found(title: str, answer: str) -> list:
    """The oracle's way to a topic the goal names: the forum's search, then the topic."""
    return [*searched(title), {"click": {"role": "link", "name": title}}, {"stop": answer}]


def replies(topic: int) -> list[str]:
    return [text for _, text in TOPICS[topic][1][1:]]


def test_the_replies_of_a_topic_are_its_posts_after_the_first_counted(sites, env,
                                                                        tmp_path):
    """No element says 3; the forum's front page has a page link "3", which is not where
    the teacher read its answer (the sibling's answer is 2)."""
    kb, start = tmp_path / "kb.db", f"{sites.store}/forum/"
    goal = 'How many replies does the topic "{}" have?'
    flow = teach(goal.format(TOPICS[12][0]), start,
                 found(TOPICS[12][0], str(len(replies(12)))), env, tmp_path, kb)
    assert flow.answer.gather == "count" and flow.answer.target["role"] == "paragraph"
    assert not any(ws.reads for ws in flow.steps)
    result = sibling(goal.format(TOPICS[13][0]), start, env, tmp_path, kb)
    assert result.answer == str(len(replies(13))) == "2"


def test_the_advice_given_in_a_topic_is_its_replies_joined(sites, env, tmp_path):
    kb, start = tmp_path / "kb.db", f"{sites.store}/forum/"
    goal = 'Summarise the advice people gave in the topic "{}".'
    flow = teach(goal.format(TOPICS[12][0]), start,
                 found(TOPICS[12][0], " ".join(replies(12))), env, tmp_path, kb)
    assert flow.answer.gather == "join"
    result = sibling(goal.format(TOPICS[13][0]), start, env, tmp_path, kb)
    assert result.answer == " ".join(replies(13))


def test_a_posters_initial_before_their_name_is_not_its_label(sites, env, tmp_path):
    """"S" stands before salty_heron, "M" before misty_nomad: the initial is drawn from
    the answer, so the sibling's name is not looked for after "S"."""
    kb, start = tmp_path / "kb.db", f"{sites.store}/forum/"
    goal = 'Who started the topic "{}"?'
    flow = teach(goal.format(TOPICS[12][0]), start, found(TOPICS[12][0], TOPICS[12][1][0][0]),
                 env, tmp_path, kb)
    assert flow.answer.label != "S"
    result = sibling(goal.format(TOPICS[13][0]), start, env, tmp_path, kb)
    assert result.answer == TOPICS[13][1][0][0] == "misty_nomad"


def test_a_value_shown_only_in_an_unlabelled_field_is_read_under_its_column(sites, env,
                                                                            tmp_path):
    """The stock is the value of a number field with no name, under "Num in stock"."""
    kb, start = tmp_path / "kb.db", f"{sites.store}/"
    goal = "How many units of the {} are in stock?"
    name = PRODUCTS[5][0]
    flow = teach(goal.format(name), start,
                 [*searched(name), {"click": {"role": "link", "name": name}},
                  {"click": {"role": "link", "name": "Stock and pricing"}},
                  {"stop": str(STOCK[5])}], env, tmp_path, kb)
    assert (flow.answer.label, flow.answer.label_kind) == ("Num in stock", "column")
    result = sibling(goal.format(PRODUCTS[140][0]), start, env, tmp_path, kb)
    assert result.answer == str(STOCK[140])


def test_a_date_in_the_section_of_the_goals_version_is_read_in_the_siblings_section(
        sites, env, tmp_path):
    """Version 1.3 is Harbor's second section, 2.0 Tidewatch's first: the version is a
    value of the goal, read as the section's heading; the date, "over 2 years late
    (2024-07-20)" there, stands alone on the sibling's page: it is read by its shape."""
    kb = tmp_path / "kb.db"
    goal = "When is version {} of {} due? Answer as YYYY-MM-DD."
    flow = teach(goal.format("1.3", "Harbor"), f"{sites.store}/",
                 [f"goto('{sites.store}/projects/harbor/roadmap')",
                  {"stop": ROADMAPS["harbor"][1][2]}], env, tmp_path, kb)
    assert flow.goal_pattern == goal.format("{{version}}", "{{value}}")
    assert (flow.answer.label_kind, flow.answer.shape) == ("heading", "9999-99-99")
    result = sibling(goal.format("2.0", "Tidewatch"), f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == ROADMAPS["tidewatch"][0][2]


def test_a_persons_bugs_are_the_rows_that_name_them_counted(sites, env, tmp_path):
    """No element says 3: three rows name Emma Stewart. The list is sorted by
    ``assigned_to``, which spells the goal's "assigned to": a value made of it would
    stand right beside the person's, and the sibling's goal would fit two ways."""
    kb, start = tmp_path / "kb.db", f"{sites.store}/"
    goal = "How many open bugs are assigned to {}?"
    flow = teach(goal.format("Emma Stewart"), start,
                 [f"goto('{sites.store}/bugs/open?sort=assigned_to')", {"stop": "3"}],
                 env, tmp_path, kb)
    assert flow.goal_pattern == goal.format("{{assigned}}")
    assert (flow.answer.gather, flow.answer.label_kind) == ("count", "row")
    result = sibling(goal.format("Mason King"), start, env, tmp_path, kb)
    assert result.answer == "2"


def test_a_count_of_the_rows_that_name_the_person_beats_a_cell_that_says_as_many(
        sites, env, tmp_path):
    """Emma Stewart has 3 open bugs; Liam Gray's bug has 3 votes, the fourth cell of the
    "Votes" column once the rows that name her come first. That cell is a coincidence:
    the rows that name the person the goal asks about, counted, explain the answer."""
    kb, start = tmp_path / "kb.db", f"{sites.store}/"
    goal = "How many open bugs are assigned to {}?"
    listed = f"{sites.store}/bugs/open?sort=assigned_to&votes=1&q={{}}"
    assert VOTES[21] == sum(1 for *_, who in OPEN_BUGS if who == "Emma Stewart") == 3
    flow = teach(goal.format("Emma Stewart"), start,
                 [f"goto('{listed.format('Emma+Stewart')}')", {"stop": "3"}],
                 env, tmp_path, kb)
    assert (flow.answer.gather, flow.answer.label_kind) == ("count", "row")
    result = sibling(goal.format("Mason King"), start, env, tmp_path, kb)
    assert result.answer == "2"
