"""The code-hosting site's content (WebArena's GitLab, served by Redmine): three projects
of one small company, worked on by an overlapping pool of people.

Each project comes from the shared tracker generator; here the projects get their
share of the people (some work on two projects, as in a real company) and issue
numbers that run on across projects, as Redmine numbers them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from colorbrowser.arena.content.names import Person, people
from colorbrowser.arena.content.projects import HARBOR, LEDGERLY, TIDEWATCH, Profile
from colorbrowser.arena.content.tracker import Project, project

COMPANY = "Northwind Labs"
DOMAIN = "northwind.example.org"
# (profile, issues, the pool's indices of its team; the first is the manager, the next
# four are developers, the rest reporters)
PLAN: tuple[tuple[Profile, int, tuple[int, ...]], ...] = (
    (HARBOR, 100, (0, 1, 2, 3, 4, 5, 6, 7)),
    (LEDGERLY, 80, (8, 9, 10, 2, 11, 12, 13)),
    (TIDEWATCH, 60, (14, 15, 3, 9, 16, 17, 0)),
)
POOL = 18


@dataclass
class Forge:
    people: list[Person]
    projects: list[Project]

    def role(self, proj: Project, username: str) -> str:
        index = [m.username for m in proj.members].index(username)
        return "Manager" if index == 0 else "Developer" if index < 5 else "Reporter"


def forge(seed: int) -> Forge:
    """The whole site, identical for the same seed."""
    pool = people(random.Random(f"forge:{seed}"), POOL, domain=DOMAIN)
    projects = []
    first = 1
    for profile, issues, team in PLAN:
        projects.append(project(profile, seed, issues=issues, first_id=first,
                                team=[pool[i] for i in team]))
        first += issues
    return Forge(pool, projects)
