"""Issues, milestones, comments, wiki pages and a git history for a software project.

One generator feeds both trackers (Trac and Redmine). Commits that fix an issue name it
(``refs #N`` / ``fixes #N``) and touch a file of the issue's component, so the
repository browser, the timeline and the issues tell one consistent story. Dates are
pinned: everything happens between the project's start and ``END``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from colorbrowser.arena.content.names import Person, people
from colorbrowser.arena.content.projects import Component, Profile

START = datetime(2023, 9, 4, 9, 0, tzinfo=UTC)
END = datetime(2024, 6, 28, 17, 0, tzinfo=UTC)
OSES = ("Ubuntu 22.04", "Debian 12", "macOS 14.4", "Windows 11", "Fedora 39", "Raspberry Pi OS")
BROWSERS = ("Firefox 125", "Chrome 124", "Safari 17.4", "Edge 124")
PRIORITIES = ("blocker", "critical", "major", "minor", "trivial")
PRIORITY_WEIGHTS = (2, 6, 40, 38, 14)


@dataclass
class Change:
    time: datetime
    author: str
    comment: str
    fields: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class Issue:
    id: int
    kind: str  # defect | enhancement | task
    component: str
    summary: str
    description: list[tuple[str, object]]  # blocks: ("p", text) ("ol", [...]) ("code", text)
    reporter: str
    owner: str
    priority: str
    milestone: str
    version: str
    created: datetime
    status: str = "new"  # new | assigned | accepted | closed | reopened
    resolution: str = ""
    keywords: str = ""
    changes: list[Change] = field(default_factory=list)


@dataclass
class Milestone:
    name: str
    due: datetime
    completed: datetime | None
    description: str


@dataclass
class Commit:
    author: Person
    date: datetime
    message: str
    files: dict[str, str]  # path -> full new content


@dataclass
class WikiPage:
    name: str
    blocks: list[tuple[str, object]]
    author: str
    time: datetime


@dataclass
class Project:
    profile: Profile
    members: list[Person]
    milestones: list[Milestone]
    issues: list[Issue]
    commits: list[Commit]
    wiki: list[WikiPage]


def _when(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    span = max(int((hi - lo).total_seconds()), 60)
    moment = lo + timedelta(seconds=rng.randrange(span))
    # Working hours look more real than 3 a.m. activity.
    return moment.replace(hour=rng.randint(8, 18), minute=rng.randrange(60), second=0)


def _milestones(rng: random.Random) -> list[Milestone]:
    plan = [("1.0", 40, True, "First public release: import, albums and sharing."),
            ("1.1", 120, True, "Polish after the first release; performance of big libraries."),
            ("1.2", 230, True, "Sharing improvements and the mobile layout."),
            ("1.3", 320, False, "Current development cycle."),
            ("2.0", 420, False, "Next major version: plugin API and storage back ends.")]
    out = []
    for name, days, done, text in plan:
        due = START + timedelta(days=days)
        out.append(Milestone(name, due, due - timedelta(days=rng.randint(0, 3)) if done else None,
                             text))
    return out


def _plural(phrase: str) -> bool:
    last = phrase.split()[-1]
    return last.endswith("s") and not last.endswith("ss")


def _summary(rng: random.Random, kind: str, comp: Component, profile: Profile) -> str:
    feature = rng.choice(comp.features)
    if kind == "defect":
        verbs = (("fail", "fails"), ("crash", "crashes"), ("hang", "hangs"),
                 ("show the wrong result", "shows the wrong result"),
                 ("are very slow", "is very slow"), ("lose data", "loses data"),
                 ("raise an error", "raises an error"))
        verb = rng.choice(verbs)[0 if _plural(feature) else 1]
        return f"{feature[0].upper()}{feature[1:]} {verb} {rng.choice(comp.conditions)}"
    if kind == "enhancement":
        wish = rng.choice(comp.capabilities)
        ask = rng.choice(("Allow", "Support") if wish.split()[0].endswith("ing")
                         else ("Add", "Support"))
        return f"{ask} {wish}"
    dep = rng.choice(profile.dependencies)
    return rng.choice((f"Update {dep} to the latest release",
                       f"Document {feature} in the admin guide",
                       f"Write regression tests for {feature}",
                       f"Clean up logging in {comp.files[0].rsplit('/', 1)[-1]}"))


def _description(rng: random.Random, kind: str, comp: Component, summary: str,
                 version: str) -> list[tuple[str, object]]:
    env = f"{rng.choice(OSES)}, {rng.choice(BROWSERS)}, version {version}"
    if kind == "defect":
        steps = [f"Open the {comp.name} page", f"Use {rng.choice(comp.features)}",
                 f"Try it {rng.choice(comp.conditions)}"]
        module = comp.files[0].rsplit("/", 1)[-1].removesuffix(".py")
        error = rng.choice(("KeyError: 'orientation'", "TimeoutError: operation timed out",
                            "ValueError: invalid literal for int()",
                            "sqlite3.OperationalError: database is locked",
                            "AttributeError: 'NoneType' object has no attribute 'size'"))
        return [("p", f"{summary}. This started after the upgrade to {version}."),
                ("h", "Steps to reproduce"), ("ol", steps),
                ("p", "Expected: the operation finishes normally. "
                      "Actual: the page stops and the log shows:"),
                ("code", f"ERROR {module}: {error}"),
                ("p", f"Environment: {env}.")]
    if kind == "enhancement":
        return [("p", f"It would help a lot to have {summary[summary.find(' ') + 1:]}."),
                ("p", rng.choice(("Several people asked for this on the mailing list.",
                                  "Other tools we evaluated already do this.",
                                  "Today we work around it with a shell script.")) +
                 f" It belongs in the {comp.name} component."),
                ("ul", [f"works with {rng.choice(comp.features)}",
                        "has a setting to turn it off", "is covered by tests"])]
    return [("p", f"{summary}. {comp.description}."), ("p", f"Checked on {env}.")]


COMMENTS = (
    "I can reproduce this on {os}.",
    "Same here with version {version}; it does not happen on the previous release.",
    "The cause is in `{file}`: the code assumes the value is always present.",
    "Could you attach the full log? The excerpt above is cut off.",
    "This also affects {feature}, so I raised the priority.",
    "I had a look: the fix is small, I will prepare a patch this week.",
    "Workaround until it is fixed: restart the worker after the import finishes.",
    "Thanks for the detailed report, that made it easy to find.",
)


def _after(previous: datetime, delta: timedelta) -> datetime:
    """A moment after ``previous``: ``delta`` later, capped at END, never equal."""
    return max(min(previous + delta, END), previous + timedelta(minutes=1))


def _history(rng: random.Random, issue: Issue, comp: Component, members: list[Person],
             first_id: int = 1) -> None:
    """Comments and field changes, ending in the issue's final status."""
    when = issue.created
    names = [m.username for m in members]
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4))):
        when = _after(when, timedelta(hours=rng.randint(2, 90)))
        text = rng.choice(COMMENTS).format(os=rng.choice(OSES), version=issue.version,
                                           file=rng.choice(comp.files),
                                           feature=rng.choice(comp.features))
        issue.changes.append(Change(when, rng.choice(names), text))
    roll = rng.random()
    if roll < 0.55:
        done_by = _after(when, timedelta(days=rng.randint(1, 20)))
        resolution = rng.choices(("fixed", "wontfix", "duplicate", "worksforme", "invalid"),
                                 (70, 8, 8, 8, 6))[0]
        text = {"fixed": "Fixed, see the commit that references this ticket.",
                "wontfix": "We decided not to do this: it would complicate the settings a lot.",
                "duplicate": f"Duplicate of #{max(first_id, issue.id - rng.randint(1, 30))}.",
                "worksforme": "Cannot reproduce with the current code; please reopen with "
                              "more details if it still happens.",
                "invalid": "This is a configuration problem, not a bug."}[resolution]
        issue.changes.append(Change(done_by, issue.owner, text, {
            "status": (issue.status, "closed"), "resolution": ("", resolution)}))
        issue.status, issue.resolution = "closed", resolution
    elif roll < 0.8:
        issue.changes.append(Change(_after(when, timedelta(days=1)), issue.owner,
                                    "Taking this one.", {"status": (issue.status, "accepted")}))
        issue.status = "accepted"
    elif roll < 0.9:
        issue.status = "assigned"


def _code(profile: Profile, path: str, fixes: list[tuple[int, str]]) -> str:
    """A source file that grows with every fix made in it."""
    module = path.rsplit("/", 1)[-1]
    if not path.endswith(".py"):
        lines = [f"/* {profile.name}: {module} */"]
        for number, summary in fixes:
            lines.append(f"/* #{number}: {summary} */")
        return "\n".join(lines) + "\n"
    lines = [f'"""{profile.name}: {module.removesuffix(".py")} module."""', "",
             "import logging", "", "log = logging.getLogger(__name__)", ""]
    for number, summary in fixes:
        words = [w for w in "".join(c if c.isalnum() else " " for c in summary.lower()).split()
                 if len(w) > 2][:5]
        lines += ["", f"def {'_'.join(words) or 'fix'}_{number}(item):",
                  f'    """Ticket #{number}: {summary}."""',
                  "    if item is None:", f'        log.warning("skipped empty item (#{number})")',
                  "        return None", "    return item", ""]
    return "\n".join(lines)


def _commits(rng: random.Random, project: Project) -> list[Commit]:
    profile = project.profile
    comps = {c.name: c for c in profile.components}
    fixes: dict[str, list[tuple[int, str]]] = {}
    first = project.members[0]
    readme = (f"# {profile.name}\n\n{profile.name} is {profile.tagline}.\n\n"
              f"## Install\n\n    pip install {profile.package}\n")
    files = {"README.md": readme}
    for comp in profile.components:
        for path in comp.files:
            fixes[path] = []
            files[path] = _code(profile, path, [])
    out = [Commit(first, START, "Initial import", dict(files))]
    fixed = [i for i in project.issues if i.resolution == "fixed"]
    touched = [i for i in project.issues if i.status in ("accepted", "assigned")]
    work = [(i, True) for i in fixed] + [(i, False) for i in rng.sample(touched, len(touched) // 2)]
    work.sort(key=lambda pair: (pair[0].changes[-1].time if pair[0].changes else pair[0].created,
                                pair[0].id))
    for issue, closes in work:
        comp = comps[issue.component]
        path = rng.choice(comp.files)
        fixes[path].append((issue.id, issue.summary))
        when = (issue.changes[-1].time if issue.changes else issue.created) - timedelta(minutes=7)
        when = max(when, out[-1].date + timedelta(minutes=3))
        author = next((m for m in project.members if m.username == issue.owner), first)
        ref = f"fixes #{issue.id}" if closes else f"refs #{issue.id}"
        text = issue.summary
        if issue.kind == "defect":
            text = "Fix: " + text[0].lower() + text[1:]
        out.append(Commit(author, when, f"{text} ({ref})",
                          {path: _code(profile, path, fixes[path])}))
    return out


def _wiki(project: Project) -> list[WikiPage]:
    p = project.profile
    lead = project.members[0]
    team = [("ul", [f"{m.name} ({m.username})" for m in project.members])]
    comps = [("ul", [f"**{c.name}**: {c.description}" for c in p.components])]
    done = [m for m in project.milestones if m.completed]
    return [
        WikiPage("WikiStart", [("h", f"Welcome to {p.name}"),
                               ("p", f"{p.name} is {p.tagline}. This site tracks its tickets, "
                                     "milestones and source code."),
                               ("h", "Components"), *comps, ("h", "Team"), *team,
                               ("p", "See [[Installation]] and [[ReleaseProcess]].")],
                 lead.username, START + timedelta(days=1)),
        WikiPage("Installation", [("h", f"Installing {p.name}"),
                                  ("ol", ["Create a virtual environment",
                                          f"Run `pip install {p.package}`",
                                          f"Run `{p.package} init /srv/{p.package}`",
                                          "Open the address it prints in a browser"]),
                                  ("p", "Requirements: " + ", ".join(p.dependencies) + ".")],
                 lead.username, START + timedelta(days=3)),
        WikiPage("ReleaseProcess", [("h", "Release process"),
                                    ("ol", ["Close or move every open ticket of the milestone",
                                            "Update CHANGELOG.md", "Tag the release in git",
                                            "Announce it on the mailing list"]),
                                    ("p", "Released so far: " +
                                     ", ".join(f"{m.name} ({m.completed:%Y-%m-%d})"
                                               for m in done) + ".")],
                 project.members[1].username, START + timedelta(days=60)),
    ]


def project(profile: Profile, seed: int, issues: int = 120, members: int = 8,
            first_id: int = 1, team: list[Person] | None = None) -> Project:
    """A whole project history, identical for the same profile and seed.

    Redmine numbers issues across all projects, so a project may start at ``first_id``;
    projects of one site share people, so the ``team`` may be given (its first five
    own issues).
    """
    rng = random.Random(f"{profile.key}:{seed}")
    if team is None:
        team = people(rng, members, domain=f"{profile.key}.example.org")
    milestones = _milestones(rng)
    out = Project(profile, team, milestones, [], [], [])
    versions = [m.name for m in milestones if m.completed]
    for number in range(first_id, first_id + issues):
        created = START + (END - START) * (number - first_id) / issues
        created = _when(rng, created, created + timedelta(days=2))
        comp = rng.choice(profile.components)
        kind = rng.choices(("defect", "enhancement", "task"), (55, 30, 15))[0]
        open_ms = [m for m in milestones if m.due > created] or milestones[-1:]
        version = next((v for v in reversed(versions)
                        if next(m for m in milestones if m.name == v).completed < created),
                       versions[0])
        summary = _summary(rng, kind, comp, profile)
        issue = Issue(number, kind, comp.name, summary,
                      _description(rng, kind, comp, summary, version),
                      reporter=rng.choice(team).username, owner=rng.choice(team[:5]).username,
                      priority=rng.choices(PRIORITIES, PRIORITY_WEIGHTS)[0],
                      milestone=open_ms[0].name if rng.random() < 0.8 else "",
                      version=version, created=created,
                      keywords=rng.choice(("", "", "regression", "performance", "ux", "easy")))
        _history(rng, issue, comp, team, first_id)
        out.issues.append(issue)
    out.commits = _commits(rng, out)
    out.wiki = _wiki(out)
    return out
