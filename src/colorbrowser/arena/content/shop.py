"""The arena shop's catalogue, customers, orders and reviews.

Products come from the families in ``catalog``; orders are spread over the first half
of 2024 and favour popular products, reviews are written by people who bought the
product, and their text matches the star rating.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from colorbrowser.arena.content.catalog import FAMILIES, Family
from colorbrowser.arena.content.names import Person, people

OPENED = datetime(2023, 11, 1, 9, 0, tzinfo=UTC)
FIRST_ORDER = datetime(2024, 1, 2, tzinfo=UTC)
LAST_ORDER = datetime(2024, 6, 28, tzinfo=UTC)
STATUSES = ("Pending", "Processing", "Shipped", "Complete", "Cancelled")


@dataclass
class Product:
    id: int
    upc: str
    title: str
    family: Family
    variant: dict[str, str]
    description: str
    price: Decimal
    stock: int
    popularity: float


@dataclass
class Order:
    number: str
    customer: Person
    placed: datetime
    status: str
    lines: list[tuple[int, int]]  # (product id, quantity)


@dataclass
class Review:
    product: int
    customer: Person
    score: int
    title: str
    body: str
    created: datetime


@dataclass
class Shop:
    products: list[Product]
    customers: list[Person]
    staff: list[Person]
    orders: list[Order]
    reviews: list[Review] = field(default_factory=list)


def _describe(rng: random.Random, fam: Family, title: str, variant: dict[str, str]) -> str:
    features = rng.sample(fam.features, k=min(3, len(fam.features)))
    specs = "; ".join(f"{k.lower()}: {v}" for k, v in variant.items())
    opening = rng.choice((f"The {title} is made from {rng.choice(fam.material)}.",
                          f"Made from {rng.choice(fam.material)}, the {title} is built to last.",
                          f"Meet the {title}, in {rng.choice(fam.material)}."))
    return f"{opening} {' '.join(features)}\n\nSpecification: {specs}."


def _price(rng: random.Random, fam: Family) -> Decimal:
    low, high = fam.price
    whole = rng.randint(low, high)
    return Decimal(f"{whole}.{rng.choice(('99', '95', '50', '00'))}")


def catalogue(rng: random.Random) -> list[Product]:
    out: list[Product] = []
    seen: set[str] = set()
    for fam in FAMILIES:
        made = 0
        while made < fam.count:
            variant = {name: rng.choice(values) for name, values in fam.variants}
            title = f"{rng.choice(fam.brands)} {rng.choice(fam.lines)} {fam.noun}"
            full = f"{title}, {', '.join(variant.values())}"
            if full in seen:
                continue
            seen.add(full)
            made += 1
            number = len(out) + 1
            stock = 0 if rng.random() < 0.05 else rng.randint(3, 140)
            out.append(Product(number, f"80{number:06d}{rng.randint(1000, 9999)}", full, fam,
                               variant, _describe(rng, fam, title, variant), _price(rng, fam),
                               stock, rng.paretovariate(1.6)))
    return out


def _orders(rng: random.Random, products: list[Product], customers: list[Person],
            count: int) -> list[Order]:
    weights = [p.popularity for p in products]
    loyal = [rng.choice((1, 1, 1, 2, 2, 3, 5)) for _ in customers]
    span = (LAST_ORDER - FIRST_ORDER).total_seconds()
    moments = sorted(FIRST_ORDER + timedelta(seconds=rng.randrange(int(span)))
                     for _ in range(count))
    out = []
    for i, placed in enumerate(moments):
        placed = placed.replace(hour=rng.randint(7, 22), minute=rng.randrange(60), second=0)
        lines: dict[int, int] = {}
        for product in rng.choices(products, weights, k=rng.choice((1, 1, 1, 2, 2, 3, 4))):
            lines[product.id] = lines.get(product.id, 0) + rng.choice((1, 1, 1, 2, 3))
        age = (LAST_ORDER - placed).days
        if rng.random() < 0.05:
            status = "Cancelled"
        elif age > 24:
            status = "Complete"
        elif age > 8:
            status = rng.choice(("Shipped", "Shipped", "Complete"))
        else:
            status = rng.choice(("Pending", "Processing", "Shipped"))
        out.append(Order(str(100001 + i), rng.choices(customers, loyal)[0], placed, status,
                         sorted(lines.items())))
    return out


GOOD_TITLES = ("Exactly what I wanted", "Great value", "Really happy with it", "Five stars",
               "Better than expected", "Would buy again")
MIXED_TITLES = ("Good, with a few flaws", "Does the job", "Decent for the price")
BAD_TITLES = ("Disappointed", "Not worth the money", "Returned it", "Poor quality")


WHEN = ("a month ago", "as a gift", "to replace an old one", "after reading the reviews",
        "on sale", "for a trip")
ENDINGS = ("I sent it back.", "Customer service was helpful at least.",
           "I would not buy it again.")


def _review_text(rng: random.Random, product: Product, score: int) -> tuple[str, str]:
    fam = product.family
    noun = fam.noun.lower()
    this = "these" if noun.endswith("s") else "this"
    good = rng.sample(fam.praise, k=min(2, len(fam.praise)))
    if score >= 4:
        title = rng.choice(GOOD_TITLES)
        body = f"I bought {this} {noun} {rng.choice(WHEN)}. What I like: {' and '.join(good)}."
        if score == 4:
            body += f" One small thing: {rng.choice(fam.gripes)}."
    elif score == 3:
        title = rng.choice(MIXED_TITLES)
        body = (f"The good: {good[0]}. The not so good: {rng.choice(fam.gripes)}. "
                "Fine for the price.")
    else:
        title = rng.choice(BAD_TITLES)
        body = (f"I had high hopes for {this} {noun}, but {rng.choice(fam.gripes)}. "
                f"{rng.choice(ENDINGS)}")
    return title, body


def _reviews(rng: random.Random, products: list[Product], orders: list[Order],
             count: int) -> list[Review]:
    bought = [(o, pid) for o in orders if o.status != "Cancelled" for pid, _ in o.lines]
    by_id = {p.id: p for p in products}
    seen: set[tuple[int, str]] = set()
    out = []
    for order, pid in rng.sample(bought, k=min(len(bought), count * 2)):
        if (pid, order.customer.email) in seen:
            continue
        seen.add((pid, order.customer.email))
        score = rng.choices((5, 4, 3, 2, 1), (45, 28, 12, 8, 7))[0]
        title, body = _review_text(rng, by_id[pid], score)
        created = min(order.placed + timedelta(days=rng.randint(4, 30), hours=rng.randint(0, 9)),
                      LAST_ORDER + timedelta(hours=12))
        out.append(Review(pid, order.customer, score, title, body, created))
        if len(out) == count:
            break
    return sorted(out, key=lambda r: (r.created, r.product))


def shop(seed: int, customers: int = 60, orders: int = 320, reviews: int = 220) -> Shop:
    rng = random.Random(f"shop:{seed}")
    products = catalogue(rng)
    team = people(rng, customers + 3, domain="example.com")
    buyers, staff = team[3:], team[:3]
    placed = _orders(rng, products, buyers, orders)
    return Shop(products, buyers, staff, placed, _reviews(rng, products, placed, reviews))
