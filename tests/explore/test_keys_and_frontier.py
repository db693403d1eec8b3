"""State keys and the frontier, without a browser: two records of one kind are one
state, and the node with the most still to try is visited first."""

from __future__ import annotations

from colorbrowser.explore.graph import Graph, Node
from colorbrowser.explore.statekey import StateKey, state_key
from colorbrowser.explore.urls import url_template
from colorbrowser.types import ElementInfo, Observation


def obs(url: str, *elements: tuple[str, str]) -> Observation:
    els = {str(i): ElementInfo(bid=str(i), role=role, name=name, tag="a" if role == "link"
                               else "input", interactive=role != "heading")
           for i, (role, name) in enumerate(elements)}
    return Observation(url=url, title="t", axtree="", elements=els)


def test_record_ids_and_slugs_become_placeholders_in_the_url_template():
    assert url_template("http://h:8000/ticket/12?x=3#c") == "h:8000/ticket/{id}?x={}"
    assert url_template("http://h/product.html?id=7") == url_template("http://h/product.html?id=9")
    assert url_template("http://h/topic/4/my-first-post/") == "h/topic/{id}/{title}/"
    assert url_template("http://h/index.php?title=Main_Page&action=edit") == \
        "h/index.php?action=edit&title={title}"
    assert url_template("http://h/cart") != url_template("http://h/checkout")


def test_two_record_pages_with_different_content_share_one_state_key():
    one = obs("http://h/items/1", ("heading", "Blue kettle"), ("link", "Home"))
    two = obs("http://h/items/2", ("heading", "Red teapot"), ("link", "Home"), ("link", "Items"))
    assert state_key(one) == state_key(two)


def test_the_same_address_with_a_new_form_field_is_another_state():
    closed = obs("http://h/", ("link", "Home"))
    opened = obs("http://h/", ("link", "Home"), ("textbox", "Note"))
    assert state_key(closed).template == state_key(opened).template
    assert state_key(closed) != state_key(opened)
    assert StateKey.parse(str(state_key(opened))) == state_key(opened)


def node(key: str, open_: int, of: int, best: float, depth: int = 0, first: int = 0) -> Node:
    return Node(key=key, template=key, url=f"http://h/{key}", visits=1, candidates=of,
                open=[f"s{i}" for i in range(open_)], best=best, path=["x"] * depth,
                first_step=first)


def test_frontier_orders_nodes_by_how_under_explored_they_are_not_by_age():
    g = Graph()
    g.add_node(node("old-mostly-done", 1, 10, 0.5, first=0))
    g.add_node(node("new-untouched", 8, 10, 0.5, first=5))
    g.add_node(node("middle", 4, 10, 0.5, first=3))
    assert [n.key for n in g.frontier()] == ["new-untouched", "middle", "old-mostly-done"]


def test_frontier_breaks_ties_by_depth_and_leaves_out_explored_and_current_nodes():
    g = Graph()
    g.add_node(node("deep", 2, 4, 0.5, depth=3))
    g.add_node(node("shallow", 2, 4, 0.5, depth=1))
    g.add_node(node("here", 4, 4, 1.0))
    done = g.add_node(node("done", 0, 4, 0.0))
    assert done.explored
    assert [n.key for n in g.frontier(exclude="here")] == ["shallow", "deep"]


def test_graph_round_trips_through_json():
    g = Graph(start_url="http://h/")
    g.add_node(node("a", 1, 2, 0.3))
    again = Graph.from_json(g.to_json())
    assert again.nodes["a"].open == ["s0"] and again.start_url == "http://h/"
