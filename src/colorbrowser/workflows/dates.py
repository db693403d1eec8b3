"""A month named in a goal, as the page writes its dates.

"How many orders did I place in March 2024?" names a month; the page never writes
"March 2024" but dates in it: ``2024-03-14``, "March 14, 2024", "Mar. 14, 2024" or
"14 March 2024". A count of the rows whose date falls in the goal's month is then
the answer (``totals.py``), and the month is a value of the goal a sibling fills
with its own ("June 2024").

As with spellings (``spelling.py``), the forms are a fixed, closed set read by pure
text functions, the verifier's own (``agent/verify/values.py``, so a date counted here
is one the verifier sees): ISO dates (``2024-03-14``), dates that write the month as
an English word, whole or shortened with or without a full stop ("Sept."), before or
after the day, and ``03/14/2024`` read month first.
"""

from __future__ import annotations

import re

from colorbrowser.agent.verify import values as verify_values

NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december")
# A month as a goal names it: its whole English name, a year after it or not; not the
# month of a day ("April 19, 2024", "19 April 2024": a date, not a month).
_GOAL_MONTH = re.compile(r"(?<![\w-])(?<!\d )(" + "|".join(n.capitalize() for n in NAMES) +
                         r")(?!\s+\d{1,2}(?!\d))(?:,?\s+(\d{4}))?(?![\w-])")


def month_of(value: str) -> tuple[int, int | None] | None:
    """(month, year or None) of a goal's month ("March 2024", "march"), else None."""
    m = re.fullmatch(r"\s*([A-Za-z]+)(?:,?\s+(\d{4}))?\s*", value)
    if m is None or m.group(1).lower() not in NAMES:
        return None
    return NAMES.index(m.group(1).lower()) + 1, int(m.group(2)) if m.group(2) else None


def dates_in(text: str) -> list[tuple[int, int]]:
    """(year, month) of every date the text writes, read as the verifier reads them."""
    return [(int(iso[:4]), int(iso[5:7])) for _, iso in verify_values.dates_in(text)]


def in_month(text: str, month: str) -> bool:
    """Whether ``text`` writes a date in the month ``month`` names ("March 2024": that
    year's; "March": any year's)."""
    wanted = month_of(month)
    if wanted is None:
        return False
    number, year = wanted
    return any(m == number and (year is None or y == year) for y, m in dates_in(text))


def goal_months(goal: str) -> list[str]:
    """The months the goal names, each with the year that follows it ("March 2024")."""
    return [m.group(0) for m in _GOAL_MONTH.finditer(goal)]
