"""Task synthesis from the graph: the shortest path of clicks to each page (a toggle
that uncovers a link is a step of it), page questions from every distinct page reached
(answers word for word), navigation tasks from distinct addresses, and near-duplicates
dropped; on the counting site the tasks are proved on a fresh start."""

from __future__ import annotations

import json

from colorbrowser.evaluation.evaluators import url_match
from colorbrowser.explore.graph import Edge, Graph, Node
from colorbrowser.explore.pagefacts import PageFacts, Pair, lasting
from colorbrowser.explore.synth import SynthTask, deduplicate, propose, routes
from colorbrowser.explore.urls import page_address, steady_url
from colorbrowser.explore.validate import load_tasks, shows

from .conftest import run_explore

H = "http://shop.test"


def link(name: str) -> dict:
    return {"click": {"role": "link", "name": name}}


def edge(step: int, src: tuple[str, str], dest: tuple[str, str], plan: dict, *,
         kind: str = "link", navigated: bool = True, writes: bool = False,
         after_write: bool = False) -> Edge:
    """An edge from (address, node key) to (address, node key)."""
    return Edge(step=step, source=src[1], dest=dest[1], action="click('1')", plan=plan,
                kind=kind, signature=f"{kind}|{step}", writes=writes,
                outcome={"url": dest[0], "navigated": navigated}, source_url=src[0],
                after_write=after_write)


def item_page(name: str, price: str) -> dict:
    return {"h1": name, "title": name, "pairs": [{"label": "Price", "value": price}],
            "tables": []}


def shop_graph() -> Graph:
    """Home -> Items -> four item pages (one node: one kind of page); Home's menu toggle
    uncovers a link to Deals; a Checkout form writes; an item reached after a write."""
    home, items = (f"{H}/", "home"), (f"{H}/items", "list")
    g = Graph(start_url=f"{H}/")
    g.add_node(Node(key="home", template="shop.test/", url=f"{H}/", h1="Shop"))
    g.add_node(Node(key="home-open", template="shop.test/", url=f"{H}/", h1="Shop",
                    path=[{"click": {"role": "button", "name": "Menu"}}]))
    g.add_node(Node(key="list", template="shop.test/items", url=items[0], h1="Items",
                    path=[link("Items")]))
    g.add_node(Node(key="item", template="shop.test/items/{id}", url=f"{H}/items/1", h1="Kettle",
                    path=[link("Items"), link("Kettle")]))
    g.edges = [edge(1, home, items, link("Items")),
               edge(2, home, (f"{H}/", "home-open"), {"click": {"role": "button", "name": "Menu"}},
                    kind="toggle", navigated=False),
               edge(3, (f"{H}/", "home-open"), (f"{H}/deals", "deals"), link("Deals")),
               edge(4, items, (f"{H}/checkout", "done"), {"click": {"role": "button",
                                                                    "name": "Checkout"}},
                    kind="submit", writes=True)]
    g.pages[f"{H}/"] = {"h1": "Shop", "title": "Shop", "pairs": [], "tables": []}
    g.pages[f"{H}/items"] = {"h1": "Items", "title": "Items", "pairs": [], "tables": []}
    prices = {1: ("Kettle", "$24.00"), 2: ("Teapot", "$31.50"), 3: ("Mug", "$8.25"),
              4: ("Jug", "$12.00")}
    for i, (name, price) in prices.items():
        g.edges.append(edge(4 + i, items, (f"{H}/items/{i}", "item"), link(name)))
        g.pages[f"{H}/items/{i}"] = item_page(name, price)
    g.edges.append(edge(9, (f"{H}/checkout", "done"), (f"{H}/items/9", "item"), link("Bowl"),
                        after_write=True))
    g.pages[f"{H}/items/9"] = item_page("Bowl", "$5.00")  # only reached after the write
    return g


def test_routes_are_shortest_click_paths_and_a_toggle_is_a_step():
    found = routes(shop_graph())
    assert found[page_address(f"{H}/items/3")].plan == [link("Items"), link("Mug")]
    deals = found[page_address(f"{H}/deals")]
    assert deals.plan == [{"click": {"role": "button", "name": "Menu"}}, link("Deals")]
    assert deals.loads == [1]  # one page load: still a single-step task
    assert page_address(f"{H}/checkout") not in found  # a write is never a step
    assert page_address(f"{H}/items/9") not in found  # nor what lies behind one


def test_a_link_that_landed_off_its_own_address_is_no_step_of_a_route():
    g = shop_graph()
    random = edge(20, (f"{H}/", "home"), (f"{H}/items/4", "item"), link("Surprise me"))
    random.verdict = {"checks": {"navigates": True, "url": False}}
    g.edges.insert(0, random)
    found = routes(g)
    assert found[page_address(f"{H}/items/4")].plan == [link("Items"), link("Jug")]


def test_a_page_no_click_path_reaches_but_its_address_shows_starts_its_own_routes():
    """The explorer hopped to Archive by its address (which showed the same state) and
    clicked on from there; no recorded click path leads to Archive from the start."""
    g = shop_graph()
    archive = (f"{H}/archive", "archive")
    g.add_node(Node(key="archive", template="shop.test/archive", url=archive[0], h1="Archive",
                    path=["goto('http://shop.test/archive')"], url_reproduces=True))
    g.edges.append(edge(40, archive, (f"{H}/archive/2019", "year"), link("2019")))
    found = routes(g)
    year = found[page_address(f"{H}/archive/2019")]
    assert year.start == f"{H}/archive" and year.plan == [link("2019")]
    assert found[page_address(f"{H}/items/3")].start == ""  # the start's routes come first

    unique, _, _ = propose(g)
    task = next(t for t in unique if t.reference_url == f"{H}/archive/2019")
    entry = task.webarena("t1", f"{H}/", 9001)
    assert entry["start_url"] == f"{H}/archive" and task.plan == [link("2019")]
    assert next(t for t in unique if t.reference_url == f"{H}/items").webarena(
        "t2", f"{H}/", 9001)["start_url"] == f"{H}/"


def test_at_most_the_limit_is_proposed_taken_in_turn_from_each_kind_of_task():
    everything, _, _ = propose(shop_graph())
    three, proposed, _ = propose(shop_graph(), limit=3)
    assert len(everything) > 3 and proposed >= len(everything)
    assert sorted(t.kind for t in three) == ["multi", "question", "single"]


def test_questions_come_from_every_distinct_page_of_a_kind_a_few_each():
    unique, _, _ = propose(shop_graph())
    questions = [t for t in unique if t.kind == "question"]
    assert [t.answer for t in questions] == ["$24.00", "$31.50", "$8.25"]  # 3 per kind, label
    mug = next(t for t in questions if t.answer == "$8.25")
    assert mug.intent == 'What is the Price shown for "Mug"?'
    assert mug.plan == [link("Items"), link("Mug"), "stop('$8.25')"]


def test_navigation_tasks_come_from_distinct_addresses():
    unique, _, _ = propose(shop_graph())
    opened = {t.reference_url: t for t in unique if t.kind in ("single", "multi")}
    assert opened[f"{H}/items"].kind == "single"
    assert opened[f"{H}/deals"].intent == ('Open the page that the link "Deals" on the start '
                                           'page leads to.')
    assert opened[f"{H}/items/1"].intent == 'Go to the page "Items", then open "Kettle" from there.'
    assert len([u for u in opened if "/items/" in u]) == 3  # a few per kind of page
    assert f"{H}/checkout" not in opened


def test_a_page_on_the_way_with_no_known_name_is_named_by_its_address_not_a_template():
    g = shop_graph()
    items, sorted_ = (f"{H}/items", "list"), (f"{H}/items/7?sort=price", "sorted")
    g.edges += [edge(30, items, sorted_, link("Sort by price")),
                edge(31, sorted_, (f"{H}/ladles/5", "ladle"), link("Ladle"))]
    unique, _, _ = propose(g)
    ladle = next(t for t in unique if t.reference_url == f"{H}/ladles/5")
    assert ladle.intent == ('Go to the page "shop.test/items/7?sort=price", then open '
                            '"Ladle" from there.')


def test_near_duplicates_by_intent_reference_or_kind_are_dropped():
    def ask(page: str, label: str, value: str, where: str = "t/{id}") -> SynthTask:
        return SynthTask("question", f"What is the {label} shown for {page}?", "T",
                         {}, [], answer=value, where=where,
                         check={"h1": page, "label": label, "value": value})

    tasks = [ask("A", "Price", "1"), ask("A", "Price", "1"),  # the same twice
             ask("A", "price", "2"),  # the same intent, other case
             ask("B", "Price", "3"), ask("C", "Price", "4"), ask("D", "Price", "5"),  # 4th
             ask("D", "Colour", "red"), ask("E", "Price", "6", where="t/other")]
    kept, dropped = deduplicate(tasks)
    assert [t.answer for t in kept] == ["1", "3", "4", "red", "6"] and dropped == 3


def test_tasks_on_the_counting_site_are_proved_and_need_the_toggle(site_url, tmp_path):
    run_explore(site_url, tmp_path, budget=30, tasks=True)
    tasks, plans = load_tasks(tmp_path)
    corner = next(t for t in tasks if t["eval"]["reference_url"].endswith("/secret"))
    assert plans[corner["task_id"]] == [{"click": {"role": "button", "name": "More options"}},
                                        {"click": {"role": "link", "name": "Hidden corner"}}]
    price = next(t for t in tasks if t["synthesised"]["kind"] == "question")
    assert price["eval"]["reference_answers"]["must_include"][0] in {"$24.00", "$31.50", "$8.25"}
    rejected = json.loads((tmp_path / "tasks.rejected.json").read_text())
    assert not rejected, rejected


def test_line_numbers_are_not_labels_and_a_page_gets_a_few_questions():
    g = shop_graph()
    diff = g.pages[f"{H}/items/1"]
    diff["pairs"] = ([{"label": str(n), "value": f"line {n} of code"} for n in range(1, 9)]
                     + [{"label": f"Field {c}", "value": f"value {c}"} for c in "ABCDEF"])
    asked = [t for t in propose(g)[0] if t.kind == "question" and t.check["h1"] == "Kettle"]
    assert [t.check["label"] for t in asked] == ["Field A", "Field B", "Field C", "Field D"]


def test_a_date_a_form_filled_in_is_no_part_of_the_address_a_task_checks():
    """Trac's timeline form is prefilled with today's date: the same click ends on
    another address tomorrow, and the task must still be true then."""
    today = f"{H}/timeline?from=11%2F25%2F26&daysback=30&wiki=on&update=Update"
    tomorrow = f"{H}/timeline?from=11%2F26%2F26&daysback=30&wiki=on&update=Update"
    g = shop_graph()
    g.edges.append(edge(20, (f"{H}/", "home"), (today, "timeline"), link("Timeline")))
    g.pages[today] = {"h1": "Timeline", "title": "Timeline", "pairs": [], "tables": []}
    task = next(t for t in propose(g)[0] if "Timeline" in t.intent and t.kind == "single")
    assert "from=" not in task.reference_url and "daysback=30" in task.reference_url
    assert url_match(task.reference_url, tomorrow).score == 1
    assert url_match(task.reference_url, f"{H}/timeline?daysback=7&wiki=on").score == 0


def test_dates_and_time_stamps_are_dropped_from_an_address_and_nothing_else_is():
    assert steady_url("http://h/t?from=2026-11-25&x=1") == "http://h/t?x=1"
    assert steady_url("http://h/t?from=2026-11-25T10%3A00%3A00Z") == "http://h/t"
    assert steady_url("http://h/w?from=20261125103000&days=7") == "http://h/w?days=7"
    assert steady_url("http://h/t?on=25.11.2026&id=20261") == "http://h/t?id=20261"
    kept = "http://h/items?id=12345678&page=2&q=2026"
    assert steady_url(kept) == kept


def test_a_question_asks_only_for_what_stays_true_not_for_a_time_relative_to_today():
    """Trac prints "09/05/23 09:00:00 (3 years ago)": the answer is the date, and a
    value that is nothing but "about 2 hours ago" is asked about by no task."""
    g = shop_graph()
    g.pages[f"{H}/items/1"] = {"h1": "Kettle", "title": "Kettle", "tables": [], "pairs": [
        {"label": "Timestamp", "value": "09/05/23 09:00:00 (3 years ago)"},
        {"label": "Updated", "value": "about 2 hours ago"}]}
    asked = {t.values["label"]: t for t in propose(g)[0]
             if t.kind == "question" and t.values.get("page") == "Kettle"}
    assert asked["Timestamp"].answer == "09/05/23 09:00:00"
    assert asked["Timestamp"].plan[-1] == "stop('09/05/23 09:00:00')"
    assert "Updated" not in asked


def test_a_page_a_year_later_still_shows_what_the_question_quotes():
    later = PageFacts(h1="Kettle", pairs=[Pair("Timestamp", "09/05/23 09:00:00 (4 years ago)")])
    changed = PageFacts(h1="Kettle", pairs=[Pair("Timestamp", "09/06/23 10:00:00 (4 years ago)")])
    check = {"h1": "Kettle", "label": "Timestamp", "value": "09/05/23 09:00:00"}
    assert shows(check, later) and not shows(check, changed)


def test_phrases_relative_to_today_are_cut_from_an_answer():
    assert lasting("5 days late") is None and lasting("Yesterday") is None
    assert lasting("Milestone 2, due in 3 weeks") == "Milestone 2"
    assert lasting("Ships in 3 days") == "Ships in 3 days"  # no date of today in it
    assert lasting("$24.00") == "$24.00"
