"""Addresses in a learned workflow: the goal's values in the site's own spelling, and
the record numbers that belong to the learned run only.

Three rules, all applied while learning:

- A value the run used in an address in another spelling ("Black Peak" as
  ``Black_Peak``, "Julian Moore" as ``owner=julian``, a title as its slug) becomes
  ``{{name__spelling}}`` there (``knowledge/spelling.py``), as a whole path segment or
  query value only.
- An address the workflow *opens* that also holds a literal record number
  (``/topic/12/{{title__slug}}/``) cannot be rebuilt for a sibling: the number is the
  learned topic's, and the sibling's is not in its goal. Such an address stays
  literal (so its value is no parameter and the family does not run blindly on it).
  When it is the page the run *started* on, the workflow instead starts where the
  episode starts and checks that this is the goal's page: a step that stays
  (``scroll(0, 0)``) whose expected address is that address with the number left open.
- In an expected address (what a step leads to), a literal record number is left open
  (``/ticket/*``): a new ticket's number, a board's number beside its slug.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote, quote_plus, urlsplit

from colorbrowser.knowledge import spelling
from colorbrowser.knowledge.workflow import PARAM, WorkflowStep
from colorbrowser.workflows import values

_RUN_WORDS = 8  # longest run of goal words tried in a spelling
_TOKEN = re.compile(r"[^\s\"“”]+")
_EDGE = ".,;:!?()"
_ID = re.compile(r"(?<=/)\d+(?=/|$)")
STAY = {"scroll": [0, 0]}  # the step that starts where the episode starts


def spelled_runs(goal: str, fields: set[str]) -> set[str]:
    """Runs of the goal's words that some spelling turns into one of ``fields`` (whole
    address fields the run used), stripped as ``values.goal_values`` strips them."""
    words = [(m.start(), m.end()) for m in _TOKEN.finditer(goal)]
    out: set[str] = set()
    for n in range(1, min(_RUN_WORDS, len(words)) + 1):
        for i in range(len(words) - n + 1):
            text = goal[words[i][0]:words[i + n - 1][1]].rstrip(_EDGE).lstrip(_EDGE + "#")
            if len(text) >= values.SHORT and any(
                    spelled in fields for _, spelled in spelling.spellings_of(text)):
                out.add(text)
    return out


def _fields_replaced(rest: str, params: Mapping[str, str]) -> str:
    """Whole path segments and query values that are a parameter's value in one of its
    spellings, as ``{{name__spelling}}``."""
    for name, value in sorted(params.items(), key=lambda kv: -len(kv[1])):
        for how, text in spelling.spellings_of(value):
            mark = f"{{{{{name}{spelling.SEP}{how}}}}}"
            for form in dict.fromkeys((text, quote(text, safe=""), quote_plus(text))):
                rest = re.sub(rf"(?<=[/=]){re.escape(form)}(?=[/&?#]|$)",
                              lambda _m, mark=mark: mark, rest)
    return rest


def _split(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    head = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    return head, url[len(head):]


def has_record_id(url: str) -> bool:
    """A literal number as a whole path segment (``/topic/12/``)."""
    return bool(_ID.search(urlsplit(url).path))


def spelled_url(url: str, params: Mapping[str, str]) -> str:
    """The address with the parameters in it, as values or spelled (``values.
    substitute_url`` does the values)."""
    plain = values.substitute_url(url, params)
    head, rest = _split(plain)
    return head + _fields_replaced(rest, params)


def opened_url(url: str, params: Mapping[str, str]) -> str:
    """An address a step opens: spelled only when no record number of the learned run
    sits beside the spelling (see the module's docstring)."""
    plain = values.substitute_url(url, params)
    spelled = spelled_url(url, params)
    if spelled != plain and has_record_id(plain):
        return plain
    return spelled


def expect_url(url: str, params: Mapping[str, str]) -> str:
    """What a step leads to: the page's address without its query, the parameters in
    it, record numbers open, ``*`` for the rest."""
    parts = urlsplit(url)
    spelled = spelled_url(f"{parts.scheme}://{parts.netloc}{parts.path}", params)
    head, rest = _split(spelled)
    return head + _ID.sub("*", rest) + "*"


def start_step(start: str, params: Mapping[str, str]) -> WorkflowStep:
    """The first step when the run did not open its start page itself: open it, or,
    when it is a page of the goal's own record (a parameter beside a record number),
    stay where the episode starts and check that the page is that one."""
    spelled = spelled_url(start, params)
    if PARAM.search(spelled) and has_record_id(values.substitute_url(start, params)):
        return WorkflowStep(step=dict(STAY), expect_url=expect_url(start, params))
    return WorkflowStep(step={"goto": opened_url(start, params)},
                        expect_url=expect_url(start, params))
