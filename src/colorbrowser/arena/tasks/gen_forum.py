"""Tasks on the forum (WebArena's reddit), as the member urban_gardener86."""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.arena.tasks.draft import Draft, Snapshot, db, exact, fuzzy, url

R = "__REDDIT__"
USER = "urban_gardener86"
SITES = ["reddit"]
COMMENT_BOX = {"role": "textbox", "name": "Write comment..."}
SEARCH_BOX = {"role": "searchbox", "name": ""}  # its "Search:" label is not tied to it


def found_by_search(title: str) -> list:
    """The steps that open a topic the goal names by its title, as a member would: the
    forum's search, then the result of that title. Opening ``/topic/<id>/`` directly
    would use a number the goal does not give, which no sibling task could imitate."""
    return [f"goto('{R}/search/')", {"fill": SEARCH_BOX, "value": title},
            {"press": SEARCH_BOX, "key": "Enter"},
            {"click": {"role": "link", "name": title}}]


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Forum:
    def __init__(self, s: Snapshot) -> None:
        self.s = s
        self.boards = {title: (cid, slug) for cid, title, slug in s.rows(
            "select id, title, slug from spirit_category_category")}

    def topic(self, tid: int) -> tuple[str, str, str]:
        """(title, path, board)"""
        title, slug, board = self.s.rows(
            "select t.title, t.slug, c.title from spirit_topic_topic t join "
            "spirit_category_category c on c.id=t.category_id where t.id=?", tid)[0]
        return title, f"/topic/{tid}/{slug}/", board

    def unique(self, tid: int) -> bool:
        return self.s.one("select count(*) from spirit_topic_topic where title=(select title "
                          "from spirit_topic_topic where id=?)", tid) == 1

    def on_first_page(self, tid: int) -> bool:
        """Listed among the first 20 topics of its board (what a board page shows)."""
        first = [r[0] for r in self.s.rows(
            "select id from spirit_topic_topic where category_id=(select category_id from "
            "spirit_topic_topic where id=?) order by is_pinned desc, last_active desc "
            "limit 20", tid)]
        return tid in first

    def pick(self, candidates: range, count: int, *, listed: bool = False) -> list[int]:
        found = [t for t in candidates if self.unique(t) and
                 (not listed or self.on_first_page(t))]
        if len(found) < count:
            raise ValueError(f"only {len(found)} suitable topics in {candidates}")
        return found[:count]


def drafts(snap: Callable[[str], Snapshot]) -> list[Draft]:
    forum = Forum(snap("forum"))
    return _info(forum) + _navigation(forum) + _changes(forum)


def _info(forum: Forum) -> list[Draft]:
    s, out = forum.s, []
    for tid in forum.pick(range(10, 60), 2):
        title, _path, _board = forum.topic(tid)
        replies = s.one("select count(*) - 1 from spirit_comment_comment where topic_id=?", tid)
        out.append(Draft(f"forum-replies-{tid}", SITES,
                         "How many replies does the topic \"{title}\" have?", {"title": title},
                         f"{R}/", exact(replies),
                         [*found_by_search(title),
                          {"stop": str(replies), "wrong": str(replies + 1)}]))
    for tid in forum.pick(range(60, 120), 2):
        title, _path, _board = forum.topic(tid)
        author = s.one("select u.username from spirit_topic_topic t join auth_user u on "
                       "u.id=t.user_id where t.id=?", tid)
        out.append(Draft(f"forum-author-{tid}", SITES,
                         "Who started the topic \"{title}\"?", {"title": title}, f"{R}/",
                         exact(author),
                         [*found_by_search(title), {"stop": author, "wrong": USER}]))
    for tid in forum.pick(range(120, 200), 2):
        title, _path, _board = forum.topic(tid)
        likes = s.one("select likes_count from spirit_comment_comment where topic_id=? "
                      "order by date, id limit 1", tid)
        out.append(Draft(f"forum-first-post-likes-{tid}", SITES,
                         "How many likes did the opening post of \"{title}\" get?",
                         {"title": title}, f"{R}/", exact(likes),
                         [*found_by_search(title),
                          {"stop": str(likes), "wrong": str(likes + 1)}]))
    for board in ("Photography", "Books"):
        cid, slug = forum.boards[board]
        top = s.rows("select title from spirit_topic_topic where category_id=? order by "
                     "is_pinned desc, last_active desc limit 2", cid)
        out.append(Draft(f"forum-latest-active-{slug}", SITES,
                         "Which topic in the {board} board had the most recent activity?",
                         {"board": board}, f"{R}/", exact(top[0][0]),
                         [{"click": {"role": "link", "name": "All Categories"}},
                          {"click": {"role": "link", "name": board, "nth": 0}},
                          {"stop": top[0][0], "wrong": top[1][0]}]))
    for tid, phrase in ((6, "frost"), (3, "")):
        title, _path, _board = forum.topic(tid)
        replies = [r[0] for r in s.rows("select comment from spirit_comment_comment where "
                                        "topic_id=? order by date, id", tid)][1:]
        phrase = phrase or replies[0].split(".")[0].split()[-1]
        assert any(phrase in r for r in replies), f"topic {tid}: no reply says {phrase!r}"
        out.append(Draft(f"forum-advice-{tid}", SITES,
                         "Summarise the advice people gave in the topic \"{title}\".",
                         {"title": title}, f"{R}/", fuzzy(" ".join(replies), phrase),
                         [*found_by_search(title),
                          {"stop": " ".join(replies), "wrong": "Nobody replied."}]))
    return out


def _navigation(forum: Forum) -> list[Draft]:
    out = []
    for board, wrong in (("Cycling", "Books"), ("Personal Finance", "Travel")):
        cid, slug = forum.boards[board]
        out.append(Draft(f"forum-board-{slug}", SITES, "Open the {board} board.",
                         {"board": board}, f"{R}/", url(f"{R}/category/{cid}/{slug}/"),
                         [{"click": {"role": "link", "name": "All Categories"}},
                          {"click": {"role": "link", "name": board, "nth": 0},
                           "wrong": {"role": "link", "name": wrong, "nth": 0}}]))
    for tid in forum.pick(range(200, 600), 2, listed=True):
        title, path, board = forum.topic(tid)
        cid, slug = forum.boards[board]
        out.append(Draft(f"forum-open-topic-{tid}", SITES,
                         "Open the topic \"{title}\" in the {board} board.",
                         {"title": title, "board": board}, f"{R}/category/{cid}/{slug}/",
                         url(f"{R}/topic/{tid}/"),
                         [{"click": {"role": "link", "name": title},
                           "wrong": {"role": "link", "name": "All Categories"}}]))
    tid = 6
    title, path, _board = forum.topic(tid)
    author, uid = forum.s.rows("select u.username, u.id from spirit_topic_topic t join "
                               "auth_user u on u.id=t.user_id where t.id=?", tid)[0]
    out.append(Draft(f"forum-author-profile-{tid}", SITES,
                     "Open the profile of the person who started \"{title}\".",
                     {"title": title}, f"{R}{path}", url(f"{R}/user/{uid}/"),
                     [{"click": {"role": "link", "name": author, "nth": 0},
                       "wrong": {"role": "link", "name": USER}}]))
    return out


def _changes(forum: Forum) -> list[Draft]:
    s, out = forum.s, []
    me = s.one("select id from auth_user where username=?", USER)
    replies = {14: "I had the same problem, a cheap soil thermometer helped me.",
               45: "Thanks, this thread saved me a lot of money.",
               88: "Following, I would like to know too."}
    for tid, text in replies.items():
        title, path, _board = forum.topic(tid)
        out.append(Draft(f"forum-reply-{tid}", SITES,
                         "Reply to the topic \"{title}\" with: {text}",
                         {"title": title, "text": text}, f"{R}{path}",
                         db("forum", "select count(*) from spirit_comment_comment where "
                            f"topic_id={tid} and user_id={me} and comment={_sql(text)}", [[1]]),
                         [{"fill": COMMENT_BOX, "value": text, "wrong": text.upper()},
                          {"click": {"role": "button", "name": "Publish"}}]))
    posts = (("Gardening", "Best mulch for a shady vegetable bed?",
              "My raised bed gets four hours of sun. Which mulch works best there?"),
             ("Cycling", "Group ride along the river on Saturday",
              "Meeting at the old mill at 9 am, about 40 km at an easy pace."),
             ("Books", "Looking for mystery novels set in small towns",
              "I loved the last three I read; what should I read next?"))
    for board, title, text in posts:
        cid, slug = forum.boards[board]
        wrong_board = "Travel" if board != "Travel" else "Books"
        out.append(Draft(f"forum-new-topic-{slug}", SITES,
                         "Start a topic in the {board} board titled \"{title}\" that says: "
                         "{text}", {"board": board, "title": title, "text": text},
                         f"{R}/category/{cid}/{slug}/",
                         db("forum", "select c.title from spirit_topic_topic t join "
                            "spirit_category_category c on c.id=t.category_id where "
                            f"t.user_id={me} and t.title={_sql(title)}", [[board]]),
                         [{"click": {"role": "link", "name": "Create Topic"}},
                          {"fill": {"role": "textbox", "name": "Title:"}, "value": title},
                          {"select_option": {"role": "combobox", "name": "Category:"},
                           "options": board, "wrong": wrong_board},
                          {"fill": {"role": "textbox", "name": "Comment:"}, "value": text},
                          {"click": {"role": "button", "name": "Publish"}}]))
    others = [t for t in (6, 27, 31, 40) if s.one(  # nobody can like their own post
        "select user_id from spirit_topic_topic where id=?", t) != me]
    for tid in others[:2]:
        title, path, _board = forum.topic(tid)
        first, likes = s.rows("select id, likes_count from spirit_comment_comment where "
                              "topic_id=? order by date, id limit 1", tid)[0]
        second_likes = s.rows("select likes_count from spirit_comment_comment where "
                              "topic_id=? order by date, id limit 1 offset 1", tid)[0][0]
        out.append(Draft(f"forum-like-{tid}", SITES,
                         "Like the opening post of the topic \"{title}\".", {"title": title},
                         f"{R}{path}",
                         db("forum", "select count(*) from spirit_comment_like_commentlike "
                            f"where comment_id={first} and user_id={me}", [[1]]),
                         [{"click": {"role": "link", "name": f"like ({likes})", "nth": 0},
                           "wrong": {"role": "link", "name": f"like ({second_likes})",
                                     "nth": 1 if second_likes == likes else 0},
                           # the like is sent in the background; the link then changes
                           "expect": {"role": "link", "name": f"remove like ({likes + 1})"}}]))
    tid = 45
    title, path, _board = forum.topic(tid)
    out.append(Draft(f"forum-notify-{tid}", SITES,
                     "Turn on notifications for new replies to \"{title}\".", {"title": title},
                     f"{R}/", db("forum", "select is_active from "
                                 "spirit_topic_notification_topicnotification where "
                                 f"topic_id={tid} and user_id={me}", [[1]]),
                     [{"goto": f"{R}{path}", "wrong": f"{R}{forum.topic(tid + 1)[1]}"},
                      {"click": {"role": "button", "name": "Notify Me"},
                       "expect": {"role": "button", "contains": "Unnotify"}}]))
    return out
