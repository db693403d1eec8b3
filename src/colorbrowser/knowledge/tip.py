"""What a tip is: site-level operational knowledge with a URL scope.

Structure is checked by the model (so a broken file fails on the entry that is
broken); ``check_tip`` adds the checks that need compiling things (regexes, URL
templates). The store runs both on every write; lint reports them as findings.
"""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from colorbrowser.errors import UserError
from colorbrowser.knowledge.patterns import PatternError, compile_pattern, host_matches_site

TipKind = Literal["tip", "shortcut"]
TipSource = Literal["person", "exploration", "import"]
KINDS: tuple[str, ...] = ("tip", "shortcut")
SOURCES: tuple[str, ...] = ("person", "exploration", "import")

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}\Z")  # \Z: "$" allows a final newline
MAX_COUNT = 10**12  # far above any real use, far below SQLite's 64-bit integers
_SITE = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$")


class InvalidTip(UserError):
    """A tip (from a person, a file or a flag) that cannot be stored as given."""


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def format_time(value: datetime) -> str:
    # isoformat, not strftime: glibc writes year 1 as "1", which no parser reads back
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def new_tip_id(site: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", site.lower()).strip("-") or "tip"
    return f"{slug}-{secrets.token_hex(4)}"


def clean_site(value: object) -> object:
    """A site as tips and workflows store it: a lower-case host (with its port)."""
    if not isinstance(value, str):
        return value
    site = value.strip().lower()
    if "://" in site:  # a pasted URL: keep its host
        site = site.split("://", 1)[1].split("/", 1)[0]
    if not _SITE.match(site) or (":" in site and not 0 < int(site.rsplit(":", 1)[1]) < 65536):
        raise ValueError(f"site must be a host name like shop.local, got {value[:200]!r}")
    return site


def _single_line_words(values: list[str], what: str) -> list[str]:
    out: list[str] = []
    for raw in values:
        value = str(raw).strip()
        if not value:
            raise ValueError(f"empty {what}")
        if "," in value or "\n" in value:
            raise ValueError(f"{what} {value!r} must not contain commas or newlines")
        if value not in out:
            out.append(value)
    return out


class TipStats(BaseModel):
    """How often a tip was shown to the agent and how those episodes ended."""

    model_config = ConfigDict(extra="forbid")

    retrieved: int = Field(0, ge=0, le=MAX_COUNT)
    successes: int = Field(0, ge=0, le=MAX_COUNT)
    failures: int = Field(0, ge=0, le=MAX_COUNT)

    @property
    def empty(self) -> bool:
        return not (self.retrieved or self.successes or self.failures)


class Tip(BaseModel):
    """One piece of site knowledge; ``kind="shortcut"`` also carries a URL template."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = ""
    site: str
    url_patterns: list[str] = Field(default_factory=list)
    text: str
    keywords: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    kind: TipKind = "tip"
    url_template: str | None = None
    source: TipSource = "person"
    author: str | None = None
    created: datetime = Field(default_factory=now)
    updated: datetime = Field(default_factory=now)
    stats: TipStats = Field(default_factory=TipStats)

    @field_validator("site", mode="before")
    @classmethod
    def _site(cls, value: object) -> object:
        return clean_site(value)

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip()
            if not value:
                raise ValueError("tip text is empty")
        return value

    @field_validator("url_patterns", mode="before")
    @classmethod
    def _patterns(cls, value: object) -> object:
        if isinstance(value, str):
            value = [value]
        return value

    @field_validator("keywords", "tags", mode="before")
    @classmethod
    def _words(cls, value: object, info) -> object:
        if isinstance(value, str):
            value = [v for v in value.split(",") if v.strip()]
        if isinstance(value, list):
            return _single_line_words(value, info.field_name.rstrip("s"))
        return value

    @field_validator("author", "url_template", mode="before")
    @classmethod
    def _one_line(cls, value: object, info) -> object:
        if isinstance(value, str):
            value = value.strip() or None  # "" clears the field
            if value and "\n" in value:
                raise ValueError(f"{info.field_name} must be one line")
        return value

    @field_validator("created", "updated")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        try:
            return value.astimezone(UTC).replace(microsecond=0)
        except OverflowError:  # 0001-01-01 east of UTC, 9999-12-31 west of it
            raise ValueError("date out of range (years 1 to 9999, in UTC)") from None

    @model_validator(mode="after")
    def _shape(self) -> Tip:
        if not self.id:
            # Bypass validate_assignment recursion: set through __dict__.
            self.__dict__["id"] = new_tip_id(self.site)
        elif not _ID.match(self.id):
            raise ValueError(
                f"tip id {self.id!r} must be letters, digits, '.', '_' or '-' (max 120)"
            )
        if self.kind == "shortcut" and not self.url_template:
            raise ValueError("a shortcut needs a url_template")
        if self.kind == "tip" and self.url_template:
            raise ValueError("url_template is only for kind 'shortcut'")
        return self

    def placeholders(self) -> list[str]:
        """Names of the ``{placeholders}`` in the URL template, in order."""
        if not self.url_template:
            return []
        names = [f for _, f, _, _ in string.Formatter().parse(self.url_template) if f is not None]
        return list(dict.fromkeys(names))


def make_tip(**fields: object) -> Tip:
    """Build a tip from loose input; invalid input becomes one readable InvalidTip line."""
    try:
        tip = Tip.model_validate(fields)
    except ValidationError as exc:
        raise InvalidTip(describe_validation(exc, fields.get("id"))) from None
    check_tip(tip)
    return tip


def masked(tip: Tip, mask: Callable[[str], str]) -> Tip:
    """The tip with ``mask`` (the known secrets) applied to what a person wrote in it:
    a password pasted into a tip is shared with every run that retrieves it."""
    changes = {"text": mask(tip.text), "keywords": [mask(k) for k in tip.keywords],
               "tags": [mask(t) for t in tip.tags]}
    if all(changes[k] == getattr(tip, k) for k in changes):
        return tip
    return Tip.model_validate(tip.model_dump() | changes)


def describe_validation(exc: ValidationError, tip_id: object = None) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "missing":
        msg = "missing"
    elif err["type"] == "extra_forbidden":
        msg = "unknown field"
    elif err["type"] == "literal_error" and where == "kind":
        msg = f"unknown kind {err.get('input')!r} (use {' or '.join(KINDS)})"
    who = f"tip {tip_id}: " if tip_id else "tip: "
    return f"{who}{where + ': ' if where else ''}{msg}"


def pattern_problems(tip: Tip) -> list[str]:
    """Patterns or URL template that cannot work; [] when all is well."""
    problems = []
    for pattern in tip.url_patterns:
        try:
            compile_pattern(pattern)
        except PatternError as exc:
            problems.append(str(exc))
    if tip.url_template:
        problems.extend(template_problems(tip))
    return problems


def template_problems(tip: Tip) -> list[str]:
    template = tip.url_template or ""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        return [f"url_template {template!r}: {exc}"]
    problems = []
    for _, name, spec, conv in fields:
        if name is None:
            continue
        if not name.isidentifier() or spec or conv:
            problems.append(f"url_template placeholder {{{name}}} must be a plain name")
    if "://" not in template:
        return [*problems, f"url_template {template!r} must be an absolute http(s) URL"]
    scheme, rest = template.split("://", 1)
    host = rest.split("/", 1)[0].split("?", 1)[0]
    if scheme.lower() not in ("http", "https"):
        problems.append(f"url_template {template!r} must use http or https")
    elif "{" in host:
        problems.append("url_template placeholders are not allowed in the host")
    elif not host_matches_site(host, tip.site):
        problems.append(f"url_template host {host!r} is not the tip's site {tip.site!r}")
    return problems


def check_tip(tip: Tip) -> Tip:
    problems = pattern_problems(tip)
    if problems:
        raise InvalidTip(f"tip {tip.id}: {problems[0]}")
    return tip
