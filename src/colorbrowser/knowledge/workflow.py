"""What a workflow is: a proved episode made reusable for a family of goals.

A workflow keeps the steps that took effect, in the plan format (targets by role and
name, resolved on the live page), with the goal's values turned into parameters
(``{{ticket}}``) and, for each element step, a fingerprint of the target's
surroundings that must still hold before the step acts. It lives in the knowledge
base beside the tips, so it is exported, imported and moved as data; a file someone
sends may hold one, which is why every field is checked here and a step may only be
a plan step (nothing that names a program or a page outside the site's web).

Learning fills it (``workflows/learn.py``), matching picks it for a goal
(``workflows/match.py``) and the runner executes it one checked step at a time
(``workflows/runner.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from colorbrowser.actions import spec_for
from colorbrowser.knowledge.patterns import hide_userinfo, host_matches_site
from colorbrowser.knowledge.tip import _ID, MAX_COUNT, clean_site, new_tip_id, now
from colorbrowser.plan.format import RANDOM, parse_step
from colorbrowser.plan.placeholders import PLACEHOLDERS

LearnedBy = Literal["agent", "person", "replay", "oracle", "explorer"]
PARAM = re.compile(r"\{\{([a-z][a-z0-9_]{0,39})\}\}")  # {{name}} in steps and patterns
NAME = r"^[a-z][a-z0-9_]{0,39}$"  # a parameter's name (pydantic's "$" ends the text)
SECRET_MARK = re.compile(r"\{\{\s*secret\s*:", re.I)  # as agent.secrets.PLACEHOLDER starts
MAX_STEPS = 200
MAX_TEXT = 2000
MAX_PARAMS = 40
# No text of a workflow holds a control character (but tab and line breaks, which a
# typed value may hold): a NUL or an escape sequence is never on a page, and would
# reach a terminal or a prompt through ``workflows show`` or the guidance.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Fields shown on one line (a listing, the summary, the goal): no line break either.
_ONE_LINE = ("id", "site", "goal_pattern", "params", "spellings", "provenance", "previous")
_BREAK = re.compile(r"[\n\r\x85\u2028\u2029]")
ParamName = Annotated[str, Field(pattern=NAME)]
ParamValue = Annotated[str, Field(max_length=MAX_TEXT)]


def param_names(text: str) -> list[str]:
    """Parameter names in order of first use."""
    return list(dict.fromkeys(PARAM.findall(text)))


_PLACEHOLDER_HEAD = re.compile(r"^(__[A-Z][A-Z_]*__)(/|$)")
NAVIGATING = ("goto", "new_tab")  # actions whose argument is an address


def check_address(url: str, site: str, where: str, *, placeholders: bool = True) -> None:
    """A workflow only opens pages of its own site: an http(s) address whose host is
    literal (not a parameter) and belongs to ``site``, or one that starts with a site
    placeholder (``__TRAC__/...``, filled from the person's own settings and checked
    again once filled: ``placeholders=False``). Raises ValueError."""
    head = _PLACEHOLDER_HEAD.match(url.strip())
    if placeholders and head and head.group(1) in PLACEHOLDERS:
        return
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{where}: opens {hide_userinfo(url)[:80]!r}; a workflow opens only "
                         f"http(s) pages of {site}")
    if PARAM.search(parts.netloc) or "@" in parts.netloc or \
            not host_matches_site(parts.netloc, site):
        raise ValueError(f"{where}: opens {hide_userinfo(url)[:80]!r}, which is not on the "
                         f"workflow's site {site}")


def step_addresses(step: str | dict[str, Any]) -> list[str]:
    """The addresses a step would open (goto, new_tab)."""
    parsed = parse_step(step, "workflow step")
    if parsed.action in NAVIGATING and parsed.args and isinstance(parsed.args[0], str):
        return [parsed.args[0]]
    return []


class _Model(BaseModel):
    # strict: a count written "1" or true in a file is a mistake, not a number
    model_config = ConfigDict(extra="forbid", strict=True)


def _strings(data: Any) -> Iterator[str]:
    """Every key and text in parsed data (depth is capped by the loader)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack.append(item.model_dump())


def check_text(data: Any) -> None:
    """Refuse control characters anywhere, and line breaks in the one-line fields."""
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        for text in _strings(value):
            if _CONTROL.search(text):
                raise ValueError(f"{key}: holds the control character "
                                 f"{_CONTROL.search(text).group()!r}")
            if key in _ONE_LINE and _BREAK.search(text):
                raise ValueError(f"{key}: {text[:60]!r} must be one line")


class Surroundings(_Model):
    """Where the target sits, so that a renamed or moved control is noticed, not clicked:
    its label, the heading of its section and the text of its row (a table row, a list
    item). Empty fields are not checked, except that ``no_heading`` records the absence
    of a section heading above it as a fact: a heading above it now means it is in
    another section, or a box of its own was put before it. ``before`` and ``after`` are
    the named elements next to it in page order ("link Timeline"): not checked before a
    step, they let a renamed control be found again in the same slot (``runner``)."""

    label: str = Field("", max_length=MAX_TEXT)
    heading: str = Field("", max_length=MAX_TEXT)
    row: str = Field("", max_length=MAX_TEXT)
    no_heading: bool = False
    before: str = Field("", max_length=MAX_TEXT)
    after: str = Field("", max_length=MAX_TEXT)


NAMED = re.compile(r"^[A-Za-z]{1,40} \S")  # an element as ``page.named`` writes it


class Block(_Model):
    """The block a look-alike target sits in (one of several elements of its role and
    name, picked by its place among them: a post's "like (2)" link among a topic's like
    links): the named elements that stand, in every such block, just before the target
    (``before``: "link share") and just after it (``after``: "link quote"), once per
    look-alike and between each look-alike and the next. The runner wants the target to
    be the look-alike of the same block on the live page, counted by these: a removed
    look-alike leaves its block without one, and the next block's is refused (see
    ``workflows/lookalikes.py``)."""

    before: str = Field("", max_length=MAX_TEXT)
    after: str = Field("", max_length=MAX_TEXT)

    @model_validator(mode="after")
    def _named(self) -> Block:
        if not (self.before or self.after):
            raise ValueError("a block names the element before or after the target")
        for text in (self.before, self.after):
            if text and (not NAMED.match(text) or PARAM.search(text)):
                raise ValueError(f"a block's element {text[:60]!r} is a role and a name "
                                 "that holds no parameter ('link share')")
        return self


class AnswerSource(_Model):
    """Where on the final page the answer was read: the element holding it (a plan
    target) and the label or column header it sits under. ``template`` builds the answer
    from parameters when the answer is one of the goal's own values."""

    target: dict[str, Any] | None = None
    label: str = Field("", max_length=MAX_TEXT)
    # When the answer was only part of the holder's text: the text just before it and
    # what directly follows it, ``*`` standing for the answer ("Custom Query (* " in
    # "Custom Query (6 matches)"; "Total: *" when nothing follows, so the answer runs
    # to the end of the text).
    around: str | None = Field(None, max_length=MAX_TEXT)
    # "column": ``label`` is the header of the answer's table column (the row is the one
    # that holds a goal value, else the first); "beside": the label stands before it.
    # "after": ``label`` is the text run just before it, without a colon ("Added by").
    # "row": the place holds ``label`` among its texts (the rows that name a person).
    # "heading": ``label`` is the heading of its section (a roadmap's version "1.3").
    # "month": the place writes a date in the month ``label`` names ("{{month}}": the
    # orders placed in March 2024, dated "2024-03-14" or "Mar. 14, 2024").
    label_kind: Literal["beside", "column", "after", "row", "heading", "month"] = "beside"
    template: str | None = Field(None, max_length=MAX_TEXT)
    # The answer is the sum of the numbers at every place that fits (the open issues of
    # a project: the "open" column of its table, one row per tracker).
    total: bool = False
    # The target's ``nth`` counts from the end of the page (0: the last place that fits:
    # the last comment of a discussion, however many came before it).
    from_end: bool = False
    # The answer gathers every place that fits from the target's ``nth`` on: how many
    # there are ("count": the replies of a topic, its posts after the first) or their
    # texts joined by a space ("join": the replies themselves, as a summary).
    gather: Literal["count", "join"] | None = None
    # The answer is the first run of the holder's text of this shape (its digits as 9:
    # a date "9999-99-99"), whatever surrounds it ("over 2 years late (2024-07-20)"
    # here, "2024-10-28" alone there).
    shape: str | None = Field(None, pattern=r"^[9][9\-/.:]{3,39}$")

    @model_validator(mode="after")
    def _one(self) -> AnswerSource:
        if (self.target is None) == (self.template is None):
            raise ValueError("an answer source has either a target or a template")
        if self.gather is not None and (self.total or self.from_end):
            raise ValueError("an answer gathered from many places is not also a total or "
                             "counted from the end")
        if self.target is not None:
            parse_step({"click": self.target}, "answer target")
        if self.around is not None and self.around.count("*") != 1:
            raise ValueError("an answer's 'around' text holds exactly one '*'")
        return self


# A closed set: a workflow file names one of these fixed text functions
# (``workflows/spelling.py``), never code.
SpellingKind = Literal["lower", "capitalized", "slug", "underscore", "first"]


class Spelling(_Model):
    """A parameter that is another parameter spelled the way the site writes it: the
    project "Harbor" in ``/projects/harbor``, the product "Rain Jacket, S" in the slug
    ``rain-jacket-s``, the town "Black Peak" in ``/index.php/Black_Peak``, the person
    "Julian Moore" as the login ``julian`` (``first``), the tracker "bug" as the option
    "Bug"."""

    of: str = Field(..., pattern=NAME)
    how: SpellingKind


class Reading(_Model):
    """A value read from the page a step sees, before it acts, for later steps (or the
    answer) to use as ``{{name}}``: the title of the ticket a goal names, typed on
    another site. ``example`` is the value the learned run read."""

    name: str = Field(..., pattern=NAME)
    source: AnswerSource
    example: str = Field("", max_length=MAX_TEXT)

    @field_validator("source")
    @classmethod
    def _read_on_page(cls, value: AnswerSource) -> AnswerSource:
        if value.target is None:
            raise ValueError("a reading names the element it reads (a target)")
        return value


class WorkflowStep(_Model):
    """One step: a plan step in its file form, with parameters in its values."""

    step: str | dict[str, Any]
    surroundings: Surroundings | None = None
    # What shows once the step has taken effect: the next page's URL as a pattern over
    # the parameters (``*`` for any run of characters), and its title.
    expect_url: str | None = Field(None, max_length=MAX_TEXT)
    expect_title: str | None = Field(None, max_length=MAX_TEXT)
    healed: bool = False  # the Operator did this step on the run that made this version
    # How many elements of the target's role and name the learned page showed: a target
    # that was the only one, with a look-alike on the live page, cannot be told apart.
    matches: int | None = Field(None, ge=1, le=10_000)
    # Of several look-alikes, the block this one sits in (``Block``).
    block: Block | None = None
    # Values read on the page this step sees, before it acts (``Reading``).
    reads: list[Reading] = Field(default_factory=list, max_length=20)
    # The target is the first element of its role in the row that holds the goal's value
    # (``surroundings.row``), whatever its name: the menu a sibling's item sits under.
    by_row: bool = False

    @field_validator("step")
    @classmethod
    def _plan_step(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        step = parse_step(value, "workflow step")  # ValueError names what is wrong
        spec = spec_for(step.action)
        if step.text is not None and spec is not None and spec.params and \
                spec.params[0].kind == "bid":
            raise ValueError(f"workflow step {step.text[:60]!r} names an element by its id, "
                             "which changes with every page load: name it by role and name")
        if step.action == RANDOM:
            raise ValueError("a workflow step cannot be a random step")
        return value

    @model_validator(mode="after")
    def _block_of_many(self) -> WorkflowStep:
        if self.block is not None and (self.matches or 0) < 2:
            raise ValueError("a step's block tells look-alikes apart: it needs matches of 2 "
                             "or more")
        return self


class Provenance(_Model):
    run: str = Field("", max_length=MAX_TEXT)  # the run folder or task it was learned from
    task_id: str | None = Field(None, max_length=200)
    learned_by: LearnedBy = "agent"
    author: str | None = Field(None, max_length=200)


class WorkflowStats(_Model):
    runs: int = Field(0, ge=0, le=MAX_COUNT)
    successes: int = Field(0, ge=0, le=MAX_COUNT)
    healed_steps: int = Field(0, ge=0, le=MAX_COUNT)


class Workflow(_Model):
    """A family's way to its goal. ``goal_pattern`` is the goal with its values replaced
    by ``{{name}}``; ``params`` holds the values of the run it was learned from."""

    id: str = ""
    site: str
    goal_pattern: str = Field(..., min_length=1, max_length=MAX_TEXT)
    params: dict[ParamName, ParamValue] = Field(default_factory=dict, max_length=MAX_PARAMS)
    steps: list[WorkflowStep] = Field(..., min_length=1, max_length=MAX_STEPS)
    answer: AnswerSource | None = None
    # Parameters that are others spelled as the site writes them (``Spelling``).
    spellings: dict[ParamName, Spelling] = Field(default_factory=dict, max_length=MAX_PARAMS)
    provenance: Provenance = Field(default_factory=Provenance)
    version: int = Field(1, ge=1, le=MAX_COUNT)
    # the id of the version this one replaced
    previous: str | None = Field(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$")
    active: bool = True  # False once a newer version replaced it (kept for history)
    proved: bool = False  # replayed with its own values from the start, same outcome
    created: datetime = Field(default_factory=now, strict=False)  # ISO text in a file
    updated: datetime = Field(default_factory=now, strict=False)
    stats: WorkflowStats = Field(default_factory=WorkflowStats)

    @model_validator(mode="before")
    @classmethod
    def _text(cls, data: Any) -> Any:
        check_text(data)
        return data

    @field_validator("site", mode="before")
    @classmethod
    def _site(cls, value: object) -> object:
        return clean_site(value)

    @model_validator(mode="after")
    def _shape(self) -> Workflow:
        if not self.id:
            self.__dict__["id"] = "wf-" + new_tip_id(self.site)
        elif not _ID.match(self.id):
            raise ValueError(f"workflow id {self.id!r} must be letters, digits, '.', '_' "
                             "or '-' (max 120)")
        names = set(param_names(self.goal_pattern))
        for name in self.params:
            if name not in names:
                raise ValueError(f"parameter {name!r} is not in the goal pattern")
        for name, spelled in self.spellings.items():
            if name in names or spelled.of not in names:
                raise ValueError(f"spelling {name!r} must be a new name for a parameter of "
                                 "the goal pattern")
        names |= set(self.spellings)
        used: set[str] = set()
        read: set[str] = set()
        for ws in self.steps:  # a value read on a page serves this step and those after
            for reading in ws.reads:
                if reading.name in names:
                    raise ValueError(f"a reading may not reuse the name {reading.name!r}")
                used |= set(param_names(str(reading.source.model_dump()))) - read
            read |= {reading.name for reading in ws.reads}
            used |= set(param_names(str(ws.model_dump(exclude={"reads"})))) - read
        if self.answer is not None:
            used |= set(param_names(str(self.answer.model_dump()))) - read
        if used - names:
            raise ValueError(f"parameter {sorted(used - names)[0]!r} is used by a step but "
                             "is not in the goal pattern")
        for number, ws in enumerate(self.steps, 1):
            for url in step_addresses(ws.step):
                check_address(url, self.site, f"step {number}")
        return self
