"""The ``eval`` block of a task, as in WebArena's task configs, checked with pydantic.

The same block is used by WebArena JSON files and by our own YAML task files, so
a task written for a user's site is judged by exactly the same rules. In YAML
files ``eval_types`` may be left out: it follows from the keys that are present.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

EvalType = Literal["string_match", "url_match", "program_html", "db_match"]
GOLD_IN_PRED = "GOLD in PRED"  # the only URL matching rule WebArena defines
NOT_ACHIEVABLE = "N/A"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReferenceAnswers(_Model):
    exact_match: str | None = None
    must_include: list[str] | None = None
    # A list of reference phrases, or "N/A" for a task that cannot be done.
    fuzzy_match: list[str] | Literal["N/A"] | None = None

    @model_validator(mode="after")
    def _one_at_least(self) -> ReferenceAnswers:
        if self.exact_match is None and self.must_include is None and self.fuzzy_match is None:
            raise ValueError("needs exact_match, must_include or fuzzy_match")
        return self

    @property
    def needs_judge(self) -> bool:
        return self.fuzzy_match is not None


class RequiredContents(_Model):
    exact_match: str | None = None
    must_include: list[str] | None = None  # items may hold " |OR| " alternatives

    @model_validator(mode="after")
    def _exactly_one(self) -> RequiredContents:
        if (self.exact_match is None) == (self.must_include is None):
            raise ValueError("needs exactly one of exact_match or must_include")
        return self


class HtmlCheck(_Model):
    """Read something from a page (``last`` = the agent's page, or a URL) and compare it."""

    url: str = "last"
    locator: str = ""  # "" = the whole page's HTML, a JS expression, or func:helper(...)
    required_contents: RequiredContents
    prep_actions: list[str] = Field(default_factory=list)  # JS statements run first


class DbCheck(_Model):
    """A read-only SQL query against a site's SQLite database, and the rows it must give
    (``evaluation/dbmatch.py``). Not in WebArena: the arena's apps keep their state in
    SQLite, so a content change can be checked where it lands."""

    site: str = Field(pattern=r"^[a-z][a-z0-9_]*$")  # WA_DB_<SITE> names the file
    query: str = Field(min_length=1)
    expected: list[list[Any]]
    ordered: bool = False  # compare rows in order, not as a multiset

    @model_validator(mode="after")
    def _reads_only(self) -> DbCheck:
        first = self.query.lstrip().split(None, 1)[0].lower() if self.query.strip() else ""
        if first not in ("select", "with"):
            raise ValueError("query must be a SELECT (or WITH ... SELECT)")
        return self


class EvalSpec(BaseModel):
    # WebArena files carry extra notes (reference_answer_raw_annotation, ...): keep them.
    model_config = ConfigDict(extra="allow")

    eval_types: list[EvalType] = Field(min_length=1)
    reference_answers: ReferenceAnswers | None = None
    reference_url: str | None = ""
    url_note: Literal["GOLD in PRED"] = GOLD_IN_PRED
    program_html: list[HtmlCheck] = Field(default_factory=list)
    db_match: list[DbCheck] = Field(default_factory=list)
    string_note: str | None = ""  # why a task is not achievable (used with "N/A")

    @model_validator(mode="before")
    @classmethod
    def _infer_types(cls, data: Any) -> Any:
        if isinstance(data, dict) and "eval_types" not in data:
            inferred = [name for name, key in (("string_match", "reference_answers"),
                                               ("url_match", "reference_url"),
                                               ("program_html", "program_html"),
                                               ("db_match", "db_match"))
                        if data.get(key)]
            data = {**data, "eval_types": inferred}
        return data

    @model_validator(mode="after")
    def _each_type_has_its_data(self) -> EvalSpec:
        if "string_match" in self.eval_types and self.reference_answers is None:
            raise ValueError("string_match needs reference_answers")
        if "url_match" in self.eval_types and not self.reference_url:
            raise ValueError("url_match needs reference_url")
        if "program_html" in self.eval_types and not self.program_html:
            raise ValueError("program_html needs at least one check")
        if "db_match" in self.eval_types and not self.db_match:
            raise ValueError("db_match needs at least one query")
        return self

    @property
    def needs_judge(self) -> bool:
        return ("string_match" in self.eval_types and self.reference_answers is not None
                and self.reference_answers.needs_judge)


def _loc(err: Any) -> str:
    # Union branches show up as path parts like "list[str]" or "literal['N/A']": drop them.
    parts = [str(p) for p in err["loc"]]
    return ".".join(p for p in parts if not any(c in p for c in "[('") and
                    not p.startswith("function-"))


def describe_error(exc: ValidationError) -> str:
    """The first pydantic problem as ``field.path: message`` on one line."""
    errors = exc.errors()
    loc = _loc(errors[0])
    same = [e for e in errors if _loc(e) == loc]
    messages: list[str] = []
    for err in same:
        msg = err["msg"].removeprefix("Value error, ")
        if messages and msg.startswith("Input should be "):
            msg = msg.removeprefix("Input should be ")
        if msg not in messages:
            messages.append(msg)
    more = len(errors) - len(same)
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    text = " or ".join(messages)
    return f"{loc}: {text}{tail}" if loc else f"{text}{tail}"
