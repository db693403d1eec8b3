"""Seed the arena forum from a JSON payload. Runs inside the forum's venv, after migrate.

Usage: python seed_forum.py PAYLOAD.json
Comments are rendered with Spirit's own Markdown renderer; counters (comments, likes,
topics per user) are set to what the rows say; every date comes from the payload.
"""

import json
import sys
from datetime import datetime

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils.text import slugify  # noqa: E402
from djconfig.models import Config  # noqa: E402
from spirit.category.models import Category  # noqa: E402
from spirit.comment.like.models import CommentLike  # noqa: E402
from spirit.comment.models import Comment  # noqa: E402
from spirit.core.utils.markdown import Markdown  # noqa: E402
from spirit.topic.models import Topic  # noqa: E402
from spirit.user.models import UserProfile  # noqa: E402

User = get_user_model()


def when(text):
    return datetime.fromisoformat(text)


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        data = json.load(fh)
    render = Markdown()
    pinned = when(data["pinned"])
    with transaction.atomic():
        Config.objects.update_or_create(key="site_name",
                                             defaults={"value": data["site_name"]})
        Config.objects.update_or_create(
            key="site_description", defaults={"value": data["site_description"]})
        users = {}
        for member in data["members"]:
            user = User(username=member["username"], email=member["email"],
                        is_staff=member["role"] == "admin",
                        is_superuser=member["role"] == "admin")
            user.set_password(member["password"])
            user.save()
            User.objects.filter(pk=user.pk).update(date_joined=when(member["joined"]))
            UserProfile.objects.update_or_create(user=user, defaults={
                "nickname": member["username"], "location": member["location"],
                "is_verified": True, "is_administrator": member["role"] == "admin",
                "is_moderator": member["role"] in ("admin", "moderator")})
            users[member["username"]] = user
        boards = {}
        for i, board in enumerate(data["boards"]):
            boards[board["title"]] = Category.objects.create(
                title=board["title"], slug=slugify(board["title"]),
                description=board["description"], color=board["color"], sort=i + 1)
        for item in data["topics"]:
            first = item["posts"][0]
            topic = Topic.objects.create(
                user=users[first["author"]], category=boards[item["board"]], title=item["title"],
                slug=slugify(item["title"])[:255], is_pinned=item["pinned"],
                is_closed=item["closed"], view_count=item["views"])
            for post in item["posts"]:
                comment = Comment.objects.create(user=users[post["author"]], topic=topic,
                                                 comment=post["text"],
                                                 comment_html=render.render(post["text"]),
                                                 ip_address="127.0.0.1")
                Comment.objects.filter(pk=comment.pk).update(date=when(post["date"]),
                                                             likes_count=len(post["likes"]))
                for fan in post["likes"]:
                    like = CommentLike.objects.create(user=users[fan], comment=comment)
                    CommentLike.objects.filter(pk=like.pk).update(date=when(post["date"]))
            last = when(item["posts"][-1]["date"])
            Topic.objects.filter(pk=topic.pk).update(
                date=when(first["date"]), last_active=last, reindex_at=pinned,
                comment_count=len(item["posts"]))
        Category.objects.update(reindex_at=pinned)
        for user in users.values():
            UserProfile.objects.filter(user=user).update(
                topic_count=Topic.objects.filter(user=user).count(),
                comment_count=Comment.objects.filter(user=user).count(),
                last_seen=pinned, last_post_on=None, last_post_hash="")


if __name__ == "__main__":
    main()
