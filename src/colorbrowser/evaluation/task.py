"""The small interface every benchmark task satisfies, and the suites that list them.

A task only needs a Playwright ``Page``: the runner (or a test) owns the browser,
the task prepares the page, states the goal and later judges the page and the
agent's answer. Suites list tasks without a browser, so ``eval --list`` is cheap
and says up front which tasks cannot run here and why.
"""

from __future__ import annotations

import difflib
import fnmatch
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from colorbrowser.errors import ColorBrowserError, UserError

if TYPE_CHECKING:
    from playwright.sync_api import Page


class TaskSetupError(ColorBrowserError):
    """The task page could not be prepared (did not load, never became ready)."""


@dataclass
class TaskSpec:
    """What the agent is told, and how its browser should look, once setup is done.

    ``setup`` has already opened ``start_url`` (and ``extra_urls`` in new tabs);
    the runner must not navigate again, or a MiniWoB episode is lost.
    """

    goal: str
    start_url: str
    extra_urls: list[str] = field(default_factory=list)
    viewport: tuple[int, int] | None = None  # (width, height) the task was designed for
    # Playwright storage-state file the task logs in with. setup() already added its
    # cookies to the page's context; a runner creating contexts may pass it instead.
    storage_state: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    # {live base URL: stable base URL} for pages served at a new address every run
    # (MiniWoB), so knowledge written in one run still matches in the next.
    site_aliases: dict[str, str] = field(default_factory=dict)


@dataclass
class Validation:
    """A verdict on the current page and answer.

    ``error`` is set when the verdict could not be reached (no judge model, the
    judge failed, an unsupported helper): such an episode is unscored, which a
    report must keep apart from a failure.
    """

    reward: float
    success: bool
    done: bool
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def unscored(cls, error: str, **info: Any) -> Validation:
        return cls(reward=0.0, success=False, done=True, info=dict(info), error=error)


@runtime_checkable
class Task(Protocol):
    id: str
    site: str  # domain (or benchmark name) for per-site reports

    def setup(self, page: Page) -> TaskSpec: ...

    def validate(self, page: Page, answer: str | None) -> Validation: ...

    def teardown(self) -> None: ...


@dataclass
class TaskEntry:
    """One listed task: enough to report on it without starting a browser."""

    id: str
    site: str
    summary: str = ""  # the goal when it is fixed; MiniWoB goals only exist once seeded
    unsupported: str | None = None  # why it cannot run here; None when runnable
    needs_judge: bool = False  # scoring needs an LLM judge (fuzzy_match)

    @property
    def runnable(self) -> bool:
        return self.unsupported is None

    @property
    def status(self) -> str:
        return "runnable" if self.runnable else f"unsupported: {self.unsupported}"


class Suite(ABC):
    """A named collection of tasks. Use it as a context manager: some own a server."""

    name: str = ""
    seeded: bool = False  # tasks are generated from a seed (MiniWoB); others ignore it

    @abstractmethod
    def entries(self) -> list[TaskEntry]:
        """Every task of the suite, runnable or not, in a stable order."""

    @abstractmethod
    def task(self, task_id: str, *, seed: int | None = None) -> Task:
        """A ready-to-run task. Raises UserError for an unknown or unsupported id.

        ``seed`` picks the episode of generated tasks (MiniWoB); fixed tasks ignore it.
        """

    def close(self) -> None:  # noqa: B027 - an optional hook, most suites own nothing
        """Release what the suite owns (servers). Safe to call twice."""

    def hosts(self) -> list[str] | None:
        """The hosts (host:port entries) the tasks name, for the browser's host list
        when a study runs them; None when the suite serves its own pages (MiniWoB)."""
        return None

    def __enter__(self) -> Suite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def entry(self, task_id: str) -> TaskEntry:
        for entry in self.entries():
            if entry.id == task_id:
                return entry
        hint = difflib.get_close_matches(task_id, [e.id for e in self.entries()], n=1)
        tail = f" (did you mean {hint[0]}?)" if hint else ""
        raise UserError(f"unknown task {task_id!r} in {self.name}{tail}")

    def runnable_entry(self, task_id: str) -> TaskEntry:
        entry = self.entry(task_id)
        if not entry.runnable:
            raise UserError(f"task {task_id} cannot run: {entry.unsupported}")
        return entry

    def select(self, patterns: str | list[str] | None) -> list[TaskEntry]:
        """Entries matching a comma list of ids or globs; each pattern must match something."""
        entries = self.entries()
        if not patterns:
            return entries
        items = patterns.split(",") if isinstance(patterns, str) else list(patterns)
        items = [p.strip() for p in items if p.strip()]
        if not items:
            return entries
        chosen: set[str] = set()
        for pattern in items:
            hits = [e.id for e in entries if _matches(e.id, pattern)]
            if not hits:
                raise UserError(f"no task in {self.name} matches {pattern!r}")
            chosen.update(hits)
        return [e for e in entries if e.id in chosen]


def short_id(task_id: str) -> str:
    """The task id without its suite prefix: ``miniwob:click-button`` -> ``click-button``."""
    return task_id.split(":", 1)[1] if ":" in task_id else task_id


def _matches(task_id: str, pattern: str) -> bool:
    """A pattern may omit the suite prefix: ``click-*`` matches ``miniwob:click-button``."""
    return any(fnmatch.fnmatchcase(name, pattern) for name in (task_id, short_id(task_id)))
