"""The seed content generators: deterministic, realistic in size, consistent inside."""

from __future__ import annotations

import re
from collections import Counter

from colorbrowser.arena.apps.forum import ForumApp
from colorbrowser.arena.apps.shop import ShopApp
from colorbrowser.arena.apps.trac import TracApp
from colorbrowser.arena.apps.tracker import TrackerApp, status_after
from colorbrowser.arena.apps.wiki import WikiApp
from colorbrowser.arena.content.forge import forge
from colorbrowser.arena.content.forum import forum
from colorbrowser.arena.content.projects import PROFILES
from colorbrowser.arena.content.shop import shop
from colorbrowser.arena.content.tracker import project
from colorbrowser.arena.content.wiki import world
from colorbrowser.arena.content.wikitext import export_xml, pages

LOREM = re.compile(r"\b(lorem|ipsum|dolor sit)\b", re.I)


def test_every_payload_is_identical_for_the_same_seed_and_differs_for_another():
    for app in (TracApp(), ShopApp(), ForumApp(), TrackerApp()):
        assert app.payload(7) == app.payload(7)
        assert app.payload(7) != app.payload(8)
    assert pages(world(7), 7) == pages(world(7), 7)


def test_the_shop_has_hundreds_of_products_orders_and_reviews():
    s = shop(2024)
    assert len(s.products) >= 400 and len(s.orders) >= 300 and len(s.reviews) >= 200
    assert len({p.title for p in s.products}) == len(s.products)
    assert all(p.price > 0 and p.stock >= 0 and len(p.description) > 120 for p in s.products)
    months = Counter(o.placed.strftime("%Y-%m") for o in s.orders)
    assert len(months) == 6 and min(months.values()) > 20  # spread over six months
    buyers = {(pid, o.customer.email) for o in s.orders for pid, _ in o.lines}
    assert all((r.product, r.customer.email) in buyers for r in s.reviews)


def test_a_product_title_and_description_agree_on_its_variant():
    for p in shop(2024).products[:80]:
        for value in p.variant.values():
            assert value in p.title and value in p.description


def test_review_text_matches_its_rating():
    for review in shop(2024).reviews:
        if review.score <= 2:
            assert "high hopes" in review.body
        elif review.score == 5:
            assert "What I like" in review.body and "One small thing" not in review.body


def test_the_forum_has_boards_topics_replies_and_likes_of_readable_text():
    f = forum(2024)
    posts = [p for t in f.topics for p in t.posts]
    assert len(f.topics) == 600 and len(posts) > 2500
    assert sum(len(p.likes) for p in posts) > 2000
    assert all(p.author not in p.likes for p in posts)
    assert not any(LOREM.search(p.text) for p in posts)
    assert len({t.board for t in f.topics}) == 10
    for topic in f.topics:
        assert [p.date for p in topic.posts] == sorted(p.date for p in topic.posts)


def test_tracker_commits_reference_issues_of_their_project():
    for profile in PROFILES:
        proj = project(profile, 2024)
        numbers = {i.id for i in proj.issues}
        refs = [int(n) for c in proj.commits[1:] for n in re.findall(r"#(\d+)", c.message)]
        assert len(refs) == len(proj.commits) - 1 and set(refs) <= numbers
        fixed = {i.id for i in proj.issues if i.resolution == "fixed"}
        closing = {int(n) for c in proj.commits for n in re.findall(r"fixes #(\d+)", c.message)}
        assert closing == fixed
        times = [c.date for c in proj.commits]
        assert times == sorted(times)


def test_the_forge_numbers_issues_across_projects_and_shares_people():
    site = forge(2024)
    ids = [i.id for p in site.projects for i in p.issues]
    assert ids == list(range(1, 241))
    for proj in site.projects:
        own = {i.id for i in proj.issues}
        refs = {int(n) for c in proj.commits for n in re.findall(r"#(\d+)", c.message)}
        assert refs and refs <= own  # a commit names an issue of its own project
        emails = {p.email for p in site.people}
        assert {c.author.email for c in proj.commits} <= emails  # Redmine links the user
    teams = [{m.username for m in p.members} for p in site.projects]
    assert teams[0] & teams[1] and teams[0] & teams[2]  # some work on two projects
    logins = [a.username for a in TrackerApp().accounts(2024)]
    assert len(logins) == len(set(logins)) == 19


def test_redmine_statuses_follow_the_tracker_changes():
    assert status_after({"status": ("new", "closed"), "resolution": ("", "fixed")}) == "Closed"
    assert status_after({"status": ("new", "closed"), "resolution": ("", "wontfix")}) == \
        "Rejected"
    assert status_after({"status": ("new", "accepted")}) == "In Progress"
    assert status_after({}) is None


def test_the_wiki_has_thousands_of_linked_articles_with_infoboxes():
    w = world(2024)
    articles = pages(w, 2024)
    assert len(articles) > 2000
    links = {m for text in articles.values() for m in re.findall(r"\[\[([^\]|:]+)\]\]", text)}
    assert links <= set(articles)  # no red links among article links
    body = [t for name, t in articles.items() if not name.startswith("Template:")]
    assert sum("{{Infobox" in t for t in body) > 0.95 * len(body)
    town = next(t for t in w.towns.values() if t.river)
    assert town.name in w.rivers[town.river].towns
    assert f"[[{town.river}]]" in articles[town.name]
    assert export_xml({"A & B": "x < y"}).count("<page>") == 1


def test_accounts_are_known_without_a_build():
    assert TracApp().accounts(2024)[0].username == "admin"
    shop_accounts = ShopApp().accounts(2024)
    assert [a.role for a in shop_accounts[:3]] == ["admin", "staff", "staff"]
    assert len(shop_accounts) == 63 and all("@" in a.email for a in shop_accounts)
    assert WikiApp().accounts(2024)[0].role == "sysop"
