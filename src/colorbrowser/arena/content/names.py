"""People and places: name banks shared by every app's seed content."""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST = (
    "Emma", "Liam", "Olivia", "Noah", "Ava", "Ethan", "Sophia", "Mason", "Isabella", "Lucas",
    "Mia", "Oliver", "Amelia", "Elijah", "Harper", "James", "Evelyn", "Benjamin", "Abigail",
    "Henry", "Emily", "Alexander", "Ella", "Daniel", "Grace", "Samuel", "Chloe", "Jacob", "Nora",
    "Michael", "Lily", "David", "Hannah", "Joseph", "Zoe", "Carter", "Aria", "Owen", "Layla",
    "Wyatt", "Riley", "Julian", "Leah", "Gabriel", "Maya", "Isaac", "Clara", "Levi", "Ruby",
    "Nathan", "Alice", "Caleb", "Iris", "Ryan", "Hazel", "Adrian", "Stella", "Miles", "Naomi",
    "Jonah", "Vera", "Felix", "Elena", "Hugo", "Priya", "Omar", "Mei", "Tomas", "Ana", "Kenji",
    "Sara", "Rafael", "Ingrid", "Mateo", "Yara", "Victor", "Lucia", "Anton", "Nadia", "Marco",
    "Freya",
)
LAST = (
    "Lopez", "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
    "Rodriguez", "Martinez", "Hernandez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore",
    "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark",
    "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott",
    "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera",
    "Campbell", "Mitchell", "Carter", "Roberts", "Phillips", "Evans", "Turner", "Parker",
    "Collins", "Edwards", "Stewart", "Morris", "Murphy", "Cook", "Rogers", "Morgan", "Peterson",
    "Cooper", "Reed", "Bailey", "Bell", "Kelly", "Howard", "Ward", "Cox", "Richardson", "Wood",
    "Watson", "Brooks", "Bennett", "Gray", "James", "Hughes", "Price", "Sanders", "Patel", "Kim",
    "Chen", "Novak", "Larsen", "Okafor",
)
STREETS = (
    "Maple", "Oak", "Cedar", "Elm", "Willow", "Birch", "Pine", "Chestnut", "Walnut", "Spruce",
    "Harbor", "Mill", "River", "Lake", "Hill", "Park", "Church", "Station", "Market", "Bridge",
    "Orchard", "Meadow", "Spring", "Sunset", "Highland", "Garden",
)
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Drive", "Court", "Way", "Place")
# (city, state/region code, postcode prefix): a plausible spread of US addresses.
CITIES = (
    ("Portland", "OR", "972"), ("Seattle", "WA", "981"), ("Denver", "CO", "802"),
    ("Austin", "TX", "787"), ("Madison", "WI", "537"), ("Raleigh", "NC", "276"),
    ("Boise", "ID", "837"), ("Columbus", "OH", "432"), ("Tucson", "AZ", "857"),
    ("Burlington", "VT", "054"), ("Sacramento", "CA", "958"), ("Pittsburgh", "PA", "152"),
    ("Minneapolis", "MN", "554"), ("Albany", "NY", "122"), ("Richmond", "VA", "232"),
    ("Omaha", "NE", "681"), ("Savannah", "GA", "314"), ("Boston", "MA", "021"),
    ("Chicago", "IL", "606"), ("Salt Lake City", "UT", "841"),
)


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    username: str
    email: str
    street: str
    city: str
    region: str
    postcode: str
    phone: str

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def password(self) -> str:
        return f"{self.username}.Arena24"


def people(rng: random.Random, count: int, domain: str = "example.com") -> list[Person]:
    """``count`` distinct people with addresses; usernames are first names, then first+last."""
    out: list[Person] = []
    seen_names: set[tuple[str, str]] = set()
    taken: set[str] = set()
    while len(out) < count:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        if (first, last) in seen_names:
            continue
        seen_names.add((first, last))
        username = first.lower() if first.lower() not in taken else f"{first}{last}".lower()
        if username in taken:
            continue
        taken.add(username)
        city, region, prefix = rng.choice(CITIES)
        out.append(Person(
            first=first, last=last, username=username,
            email=f"{first}.{last}@{domain}".lower(),
            street=f"{rng.randint(12, 4980)} {rng.choice(STREETS)} {rng.choice(STREET_KINDS)}",
            city=city, region=region, postcode=f"{prefix}{rng.randint(10, 99)}",
            phone=f"+1 555 {rng.randint(200, 989):03d} {rng.randint(1000, 9999)}",
        ))
    return out
