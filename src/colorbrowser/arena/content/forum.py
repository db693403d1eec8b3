"""Forum members, topics, replies and likes, composed from the boards' word banks.

A topic is a question about one subject of its board (or a "look what I did" post);
its replies give tips, tell stories, agree with or thank earlier posters. Activity is
spread over the first half of 2024, and a few members write much more than others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from colorbrowser.arena.content.boards import BOARDS, Board

START = datetime(2024, 1, 3, tzinfo=UTC)
END = datetime(2024, 6, 28, 20, 0, tzinfo=UTC)
ADJECTIVES = ("quiet", "rusty", "urban", "lazy", "sunny", "clever", "salty", "brave", "misty",
              "humble", "jolly", "nimble", "cosmic", "velvet", "amber", "northern", "windy",
              "sleepy", "lucky", "tidy")
NOUNS = ("fox", "baker", "pedals", "gardener", "owl", "otter", "wrench", "reader", "heron",
         "kettle", "lantern", "maple", "nomad", "pixel", "sparrow", "compass", "fern", "badger",
         "pilot", "teacup")
OPENERS = ("Hi all,", "Hey everyone,", "Long-time lurker, first post.", "Quick question:",
           "Looking for advice.", "")
THANKS = ("Thanks {user}, that worked!", "Great tip {user}, I'll try that this weekend.",
          "This is really helpful, thank you {user}.")
AGREE = ("+1 to what {user} said.", "Seconding {user}, that made the difference for me too.",
         "{user} is right, I learned that the hard way.")


@dataclass
class Post:
    author: str
    text: str
    date: datetime
    likes: list[str] = field(default_factory=list)


@dataclass
class Topic:
    board: str
    title: str
    posts: list[Post]  # the first post is the topic's opening post
    pinned: bool = False
    closed: bool = False
    views: int = 0


@dataclass
class Member:
    username: str
    password: str
    role: str  # admin | moderator | member
    joined: datetime
    location: str = ""

    @property
    def name(self) -> str:
        return self.username


@dataclass
class Forum:
    members: list[Member]
    topics: list[Topic]


def _members(rng: random.Random, count: int) -> list[Member]:
    out = [Member("admin", "admin.Arena24", "admin", START - timedelta(days=200)),
           Member("mod_maple", "mod_maple.Arena24", "moderator", START - timedelta(days=150))]
    taken = {m.username for m in out}
    while len(out) < count:
        name = f"{rng.choice(ADJECTIVES)}_{rng.choice(NOUNS)}"
        if rng.random() < 0.35:
            name += str(rng.randint(7, 99))
        if name in taken:
            continue
        taken.add(name)
        joined = START - timedelta(days=rng.randint(1, 400))
        place = rng.choice(("Riverton", "Portland", "Leeds", "Toronto", "Melbourne", "", ""))
        out.append(Member(name, f"{name}.Arena24", "member", joined, place))
    return out


def _opening(rng: random.Random, board: Board, subject: str) -> tuple[str, str]:
    if rng.random() < 0.2:
        title = rng.choice(board.showoffs).format(s=subject)
        story = rng.choice(board.stories).format(s=subject)
        return title, (f"{story[0].upper()}{story[1:]}. Today I finally got it right, and I "
                       f"wanted to share it here. Happy to answer questions about my {subject}.")
    problem = rng.choice(board.problems).format(s=subject)
    title = rng.choice((f"Help: {problem}", f"Advice needed: {problem}",
                        f"Any tips? {problem[0].upper()}{problem[1:]}"))
    body = " ".join(filter(None, (
        rng.choice(OPENERS),
        f"{problem[0].upper()}{problem[1:]}.",
        rng.choice(("I've tried a few things I read online, but nothing helped so far.",
                    "It has been like this for a few weeks now.",
                    "I'm a beginner, so go easy on me.",
                    "Before I spend more money I'd like to hear what worked for you.")),
        rng.choice(("What am I doing wrong?", "Any ideas?", "What would you do?",
                    "Thanks in advance!")))))
    return title, body


def _reply(rng: random.Random, board: Board, subject: str, earlier: list[Post],
           author: str) -> str:
    kind = rng.random()
    helpers = [p.author for p in earlier[1:] if p.author != author]
    if author == earlier[0].author and helpers:
        return rng.choice(THANKS).format(user=helpers[-1])
    if kind < 0.45:
        tip = rng.choice(board.tips)
        return rng.choice((f"In my experience you should {tip}.",
                           f"Have you tried this: {tip}? It fixed it for me.",
                           f"Honestly, {tip}. Everything else is secondary.",
                           f"What helped me with my {subject}: {tip}."))
    if kind < 0.7:
        story = rng.choice(board.stories).format(s=subject)
        coda = rng.choice(("Stick with it.", "You will get there.", "Good luck!", ""))
        return f"{story[0].upper()}{story[1:]}. {coda}".strip()
    if kind < 0.85 and helpers:
        return rng.choice(AGREE).format(user=rng.choice(helpers))
    return rng.choice((f"Following, I have the same problem with my {subject}.",
                       "Could you post a photo? Hard to say without seeing it.",
                       f"Which {subject} do you have exactly?"))


def forum(seed: int, members: int = 80, topics: int = 600) -> Forum:
    rng = random.Random(f"forum:{seed}")
    people = _members(rng, members)
    weights = [3.0, 2.0] + [rng.choice((0.5, 1, 1, 1, 2, 4)) for _ in people[2:]]
    span = (END - START).total_seconds()
    moments = sorted(START + timedelta(seconds=rng.randrange(int(span))) for _ in range(topics))
    out = []
    for when in moments:
        board = rng.choice(BOARDS)
        subject = rng.choice(board.subjects)
        title, body = _opening(rng, board, subject)
        author = rng.choices(people, weights)[0].username
        posts = [Post(author, body, when)]
        for _ in range(min(int(rng.paretovariate(1.2)) + rng.randint(0, 4), 30)):
            when = min(when + timedelta(minutes=rng.randint(5, 2000)), END)
            replier = rng.choices(people, weights)[0].username
            if rng.random() < 0.15:
                replier = author  # the asker comes back
            text = _reply(rng, board, subject, posts, replier)
            if any(p.text == text for p in posts):
                continue
            posts.append(Post(replier, text, when))
        for post in posts:
            fans = {rng.choices(people, weights)[0].username
                    for _ in range(int(rng.expovariate(0.8)))}
            post.likes = sorted(fans - {post.author})
        out.append(Topic(board.title, title, posts, views=rng.randint(len(posts) * 8, 2500)))
    for topic in rng.sample(out, 8):
        topic.pinned = True
    for topic in rng.sample(out, 12):
        topic.closed = True
    return Forum(people, out)
