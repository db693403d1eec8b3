"""The Selector's moves: act where the outcome is least known, hop to the most
under-explored node, and once every node is explored spend what is left of the budget
testing the predictions it judged too sure to try."""

from __future__ import annotations

import random

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.choice import Here, Option
from colorbrowser.explore.graph import Graph, Node
from colorbrowser.explore.predict import rule_predict
from colorbrowser.explore.selector import ScaleHop
from colorbrowser.steps import Target


def option(name: str, uncertainty: float, novelty: float = 1.0) -> Option:
    cand = Candidate(action=f"click('{name}')", kind="link", target=Target(
        bid=name, role="link", name=name), signature=f"link|{name}",
        facts={"href": f"http://h/{name}"})
    return Option(cand, rule_predict(cand, "http://h/"), uncertainty, novelty)


def graph_of(*nodes: Node) -> Graph:
    g = Graph(start_url="http://h/")
    for n in nodes:
        g.add_node(n)
    return g


def here(node: Node, open_: list[Option], checkable: list[Option] | None = None) -> Here:
    return Here(url=node.url, key=node.key, node=node, options=open_,
                all_options=open_ + (checkable or []), checkable=checkable or [])


def test_it_acts_on_the_option_it_knows_least_about():
    home = Node(key="home", template="h/", url="http://h/")
    move = ScaleHop(random.Random(0)).choose(
        here(home, [option("a", 0.2), option("b", 0.9)]), graph_of(home), 0)
    assert move.kind == "act" and move.option.cand.target.name == "b"


def test_it_hops_when_another_node_promises_much_more():
    home = Node(key="home", template="h/", url="http://h/")
    far = Node(key="far", template="h/far", url="http://h/far", open=["x"], best=0.9,
               candidates=1)
    move = ScaleHop(random.Random(0)).choose(
        here(home, [option("a", 0.1)]), graph_of(home, far), 0)
    assert move.kind == "hop" and move.node == "far"


def test_with_every_node_explored_it_checks_a_prediction_here_the_least_sure_first():
    home = Node(key="home", template="h/", url="http://h/", predictable=["link|a", "link|b"])
    move = ScaleHop(random.Random(0)).choose(
        here(home, [], [option("a", 0.05), option("b", 0.12)]), graph_of(home), 0)
    assert move.kind == "act" and move.option.cand.target.name == "b"


def test_with_nothing_to_check_here_it_hops_to_the_nearest_node_with_predictions_to_check():
    home = Node(key="home", template="h/", url="http://h/")
    deep = Node(key="deep", template="h/d", url="http://h/d", predictable=["s"], path=["x"] * 3)
    near = Node(key="near", template="h/n", url="http://h/n", predictable=["s"], path=["x"])
    move = ScaleHop(random.Random(0)).choose(here(home, []), graph_of(home, deep, near), 0)
    assert move.kind == "hop" and move.node == "near"


def test_it_is_done_only_when_nothing_is_open_and_every_prediction_was_checked():
    home = Node(key="home", template="h/", url="http://h/", tried=["link|a"])
    move = ScaleHop(random.Random(0)).choose(here(home, []), graph_of(home), 0)
    assert move.kind == "done"
