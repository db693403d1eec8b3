"""django-spirit 0.14.3: the forum (WebArena's reddit site).

Ten boards (categories) with 600 topics, about 3,300 replies and 2,500 likes by 80
members between January and June 2024. Search runs on Whoosh; new posts reach the
index at once, so a reset syncs the index folder back too.
"""

from __future__ import annotations

from typing import ClassVar

from colorbrowser.arena.apps.base import Account, BuildContext, LoginForm
from colorbrowser.arena.apps.django_app import DjangoApp
from colorbrowser.arena.content.boards import BOARDS
from colorbrowser.arena.content.forum import START, Forum, forum


class ForumApp(DjangoApp):
    name = "forum"
    title = "Riverton Commons (Spirit forum)"
    site = "reddit"
    pip = ("django-spirit==0.14.3", "whitenoise==6.11.0", "gunicorn==23.0.0")
    settings_module = "forum_settings"
    wsgi_module = "forum_wsgi"
    databases = ("db.sqlite3",)
    side_dirs = ("st_search", "media")
    content: ClassVar = {"db.sqlite3": {
        "auth_user": ("password", "last_login", "date_joined"),
        "spirit_user_userprofile": ("last_seen", "last_ip", "last_post_on", "last_post_hash"),
        "spirit_category_category": ("reindex_at",), "spirit_topic_topic": ("reindex_at",),
        "spirit_comment_comment": (), "spirit_comment_like_commentlike": (),
        "spirit_topic_favorite_topicfavorite": (), "spirit_comment_bookmark_commentbookmark": (),
        "spirit_topic_private_topicprivate": (), "spirit_comment_flag_commentflag": (),
    }}
    login = LoginForm(path="/user/login/", user_field="username", password_field="password",
                      check_path="/user/", marker="{username}")

    def data(self, seed: int) -> Forum:
        return forum(seed)

    def accounts(self, seed: int) -> list[Account]:
        return [Account(m.username, m.password, m.role, m.username,
                        f"{m.username}@forum.example.com") for m in self.data(seed).members]

    def login_accounts(self, seed: int) -> list[Account]:
        return self.accounts(seed)[:12]

    def payload(self, seed: int) -> dict[str, object]:
        f = self.data(seed)
        return {
            "site_name": "Riverton Commons",
            "site_description": "Talk about cooking, bikes, books and the city of Riverton",
            "pinned": START.isoformat(),
            "members": [{"username": m.username, "password": m.password, "role": m.role,
                         "email": f"{m.username}@forum.example.com",
                         "joined": m.joined.isoformat(), "location": m.location}
                        for m in f.members],
            "boards": [{"title": b.title, "description": b.description, "color": b.color}
                       for b in BOARDS],
            "topics": [{"board": t.board, "title": t.title, "pinned": t.pinned,
                        "closed": t.closed, "views": t.views,
                        "posts": [{"author": p.author, "text": p.text,
                                   "date": p.date.isoformat(), "likes": p.likes}
                                  for p in t.posts]} for t in f.topics],
        }

    def build(self, ctx: BuildContext) -> None:
        self.manage(ctx, "migrate", "--noinput", what="migrate")
        self.manage(ctx, "createcachetable", what="cache tables")
        self.manage(ctx, "collectstatic", "--noinput", what="collectstatic")
        payload = ctx.write_json("forum.json", self.payload(ctx.seed))
        self.script(ctx, "seed_forum.py", payload, what="seed members, topics, replies, likes")
        self.manage(ctx, "rebuild_index", "--noinput", what="search index")
