"""Addresses in a learned workflow: the goal's values in them (as the site spells them,
``spelling.py``) and the record numbers that belong to the learned run only.

Rules applied while learning:

- An address a step *opens* gets the goal's values as parameters, spelled as the site
  spells them (``/index.php/{{title_underscore}}``, ``/query?owner={{owner_first}}``).
  When it also holds a literal record number beside a spelled value
  (``/topic/12/<slug>/``), it cannot be rebuilt for a sibling: the number is the
  learned topic's, and the sibling's is not in its goal. Such an address stays as the
  run opened it, so the family does not run blindly on it (the page it leads to is
  still checked by its spelled value, so a sibling's run hands over there).
- An address a step *expects* (where it leads) has its query dropped and every literal
  record number open (``/ticket/*``: a new ticket's number, a board's number beside
  its slug).
- The start page, when the run did not open it itself: opened first, unless it names a
  record number the goal does not give. Then the workflow starts where its episode
  starts; when the goal's value is in that address (the topic's slug beside its
  number), its first step stays (``STAY``) and checks that the page is the goal's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from colorbrowser.knowledge.workflow import PARAM, WorkflowStep
from colorbrowser.workflows import spelling

STAY = {"scroll": [0, 0]}  # the step that starts where the episode starts
_ID_SEGMENT = re.compile(r"(?<=/)\d+(?=/|$)")


def names_an_id(url: str) -> bool:
    """Whether an address holds a number the goal does not give (``/products/33/``) as a
    whole path segment: a sibling's page is another one."""
    return _ID_SEGMENT.search(urlsplit(url).path) is not None


def any_id(url: str) -> str:
    """An address with each number the goal does not give as ``*`` (the order a search
    led to, the ticket a link opened)."""
    parts = urlsplit(url)
    head = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    return head + _ID_SEGMENT.sub("*", url[len(head):])


def _with_values(url: str, params: Mapping[str, str], spelled: Mapping[str, str], *,
                 expect: bool = False) -> str:
    """The address with the parameters (``params``: the goal's values and the spelled
    ones) marked in it."""
    return spelling.substitute_url(spelling.mark_shared(url, params), params, spelled,
                                   expect=expect)


def opened(url: str, params: Mapping[str, str], spelled: Mapping[str, str]) -> str:
    """An address a step opens: spelled only when no record number of the learned run
    sits beside the spelling (see the module's text)."""
    plain_params = {n: v for n, v in params.items() if n not in spelled}
    plain = _with_values(url, plain_params, {})
    done = _with_values(url, params, spelled)
    if done != plain and names_an_id(done):
        return plain
    return done


def expected(url: str, params: Mapping[str, str], spelled: Mapping[str, str]) -> str:
    """What a step leads to: the page's address without its query, the parameters in
    it, record numbers open, ``*`` for the rest."""
    parts = urlsplit(url)
    return any_id(_with_values(f"{parts.scheme}://{parts.netloc}{parts.path}", params,
                               spelled, expect=True)) + "*"


def start_step(opened_start: str, expected_start: str) -> WorkflowStep | None:
    """The first step when the run did not open its start page itself (the addresses
    as ``opened`` and ``expected`` made them): open it; or, when it names a record
    number, none, or a step that stays and checks the page when the goal's value is in
    its address."""
    if not names_an_id(opened_start):
        return WorkflowStep(step={"goto": opened_start}, expect_url=expected_start)
    if PARAM.search(expected_start):
        return WorkflowStep(step=dict(STAY), expect_url=expected_start)
    return None
