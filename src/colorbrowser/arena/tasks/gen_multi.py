"""Tasks across two sites, as WebArena's multi-site tasks: read on one, act on another."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from colorbrowser.arena.content.wiki import world
from colorbrowser.arena.tasks.draft import Draft, Snapshot, db, exact

R, W, G, T, S = "__REDDIT__", "__WIKIPEDIA__", "__GITLAB__", "__TRAC__", "__SHOPPING__"
FORUM_USER, TRACKER_USER = "urban_gardener86", "liam"
COMMENT_BOX = {"role": "textbox", "name": "Write comment..."}


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def drafts(snap: Callable[[str], Snapshot]) -> list[Draft]:
    forum, trac, tracker, shop = snap("forum"), snap("trac"), snap("tracker"), snap("shop")
    me = forum.one("select id from auth_user where username=?", FORUM_USER)
    dev = tracker.one("select id from users where login=?", TRACKER_USER)
    w = world(2024)
    out = []
    travel = forum.one("select id from spirit_category_category where title='Travel'")
    towns = sorted(n for n, t in w.towns.items() if t.population > 20_000)[2::40][:2]
    for town in towns:
        pop = f"{w.towns[town].population:,}"
        title = f"Visiting {town}"
        text = f"{town} has {pop} inhabitants according to the wiki."
        out.append(Draft(f"multi-wiki-to-forum-{town.lower().replace(' ', '-')}",
                         ["wikipedia", "reddit"],
                         "Look up the population of {town} on the wiki, then start a topic in "
                         "the forum's Travel board titled \"Visiting {town}\" that says how "
                         "many people live there.", {"town": town},
                         f"{R}/category/{travel}/travel/",
                         db("forum", "select count(*) from spirit_topic_topic t join "
                            "spirit_comment_comment c on c.topic_id=t.id where "
                            f"t.user_id={me} and t.title={_sql(title)} and c.comment like "
                            f"{_sql('%' + pop + '%')}", [[1]]),
                         [f"goto('{W}/index.php/{town.replace(' ', '_')}')",
                          f"goto('{R}/category/{travel}/travel/')",
                          {"click": {"role": "link", "name": "Create Topic"}},
                          {"fill": {"role": "textbox", "name": "Title:"}, "value": title},
                          {"fill": {"role": "textbox", "name": "Comment:"}, "value": text,
                           "wrong": text.replace(pop, "about 1,000")},
                          {"click": {"role": "button", "name": "Publish"}}]))
    pid = 140
    title, slug, price = shop.rows("select p.title, p.slug, s.price from catalogue_product p "
                                   "join partner_stockrecord s on s.product_id=p.id where "
                                   "p.id=?", pid)[0]
    price = f"${Decimal(str(price)):.2f}"
    tid = 88
    topic, tslug = forum.rows("select title, slug from spirit_topic_topic where id=?", tid)[0]
    reply = f"The {title} costs {price} at OneStop Market."
    out.append(Draft(f"multi-shop-to-forum-{pid}", ["shopping", "reddit"],
                     "Find the price of the {product} in the shop and reply to the forum topic "
                     "\"{topic}\" with it.", {"product": title, "topic": topic},
                     f"{S}/",
                     db("forum", "select count(*) from spirit_comment_comment where "
                        f"topic_id={tid} and user_id={me} and comment like "
                        f"{_sql('%' + price + '%')}", [[1]]),
                     [f"goto('{S}/catalogue/{slug}_{pid}/')",
                      f"goto('{R}/topic/{tid}/{tslug}/')",
                      {"fill": COMMENT_BOX, "value": reply,
                       "wrong": reply.replace(price, "$1.00")},
                      {"click": {"role": "button", "name": "Publish"}}]))
    for n in (66, 93):
        summary = trac.one("select summary from ticket where id=?", n)
        out.append(Draft(f"multi-trac-to-tracker-{n}", ["trac", "gitlab"],
                         "Trac ticket #{number} describes a bug. File the same bug, with the "
                         "same title, in the Harbor project of the code-hosting site.",
                         {"number": n}, f"{T}/ticket/{n}",
                         db("tracker", "select count(*) from issues i join projects p on "
                            f"p.id=i.project_id where p.identifier='harbor' and "
                            f"i.author_id={dev} and i.tracker_id=1 and "
                            f"i.subject={_sql(summary)}", [[1]]),
                         [f"goto('{G}/projects/harbor/issues/new')",
                          {"fill": {"role": "textbox", "name": "Subject *"}, "value": summary,
                           "wrong": summary + " (copy)"},
                          {"click": {"role": "button", "name": "Create"}}]))
    trac_open = trac.one("select count(*) from ticket where status!='closed'")
    forge_open = tracker.one("select count(*) from issues i join issue_statuses s on "
                             "s.id=i.status_id where i.project_id=1 and s.is_closed=0")
    out.append(Draft("multi-open-difference", ["trac", "gitlab"],
                     "How many more open tickets does Harbor have in Trac than open issues in "
                     "its project on the code-hosting site?", {}, f"{T}/",
                     exact(trac_open - forge_open),
                     [f"goto('{T}/query?status=!closed')",
                      f"goto('{G}/projects/harbor')",
                      {"stop": str(trac_open - forge_open),
                       "wrong": str(trac_open + forge_open)}]))
    for issue, ticket in ((66, 66), (152, 80)):
        summary = trac.one("select summary from ticket where id=?", ticket)
        note = f"Same problem as Trac ticket #{ticket}: {summary}"
        out.append(Draft(f"multi-link-ticket-{issue}", ["trac", "gitlab"],
                         "Add a comment to issue #{issue} on the code-hosting site that says "
                         "\"Same problem as Trac ticket #{ticket}: \" followed by that ticket's "
                         "title.", {"issue": issue, "ticket": ticket}, f"{G}/issues/{issue}",
                         db("tracker", "select count(*) from journals where "
                            f"journalized_id={issue} and user_id={dev} and notes={_sql(note)}",
                            [[1]]),
                         [f"goto('{T}/ticket/{ticket}')", f"goto('{G}/issues/{issue}')",
                          {"click": {"role": "link", "name": "Edit", "nth": 0}},
                          {"fill": {"role": "textbox", "name": ""}, "value": note,
                           "wrong": note.replace("#", "no. ")},
                          {"click": {"role": "button", "name": "Submit"}}]))
    tid = 6
    replies = forum.one("select count(*) - 1 from spirit_comment_comment where topic_id=?", tid)
    topic, tslug = forum.rows("select title, slug from spirit_topic_topic where id=?", tid)[0]
    milestone = trac.one("select count(*) from ticket where milestone='1.3'")
    out.append(Draft("multi-compare-counts", ["reddit", "trac"],
                     "Which is larger: the number of replies to the forum topic \"{topic}\" or "
                     "the number of tickets in Trac milestone 1.3? Answer with the larger "
                     "number.", {"topic": topic}, f"{R}/", exact(max(replies, milestone)),
                     [f"goto('{R}/topic/{tid}/{tslug}/')", f"goto('{T}/milestone/1.3')",
                      {"stop": str(max(replies, milestone)),
                       "wrong": str(min(replies, milestone))}]))
    return out
