"""MiniWoB++ tasks from the ``miniwob`` package, scored by each task's own JavaScript.

Episode protocol (learned from the package's page code, ``html/core/core.js``):
seed ``Math.random`` with ``Math.seedrandom``, call ``core.startEpisodeReal()``,
wait for ``WOB_TASK_READY``, read the goal from ``core.getUtterance()``; the task
sets ``WOB_DONE_GLOBAL`` and ``WOB_RAW_REWARD_GLOBAL`` (1 right, -1 wrong, partial
for a few soft tasks) when the episode ends. A numeric seed is passed as a JS
number, as the package's own Python environment does, so seed N gives the same
episode there and here.
"""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from colorbrowser.errors import UserError
from colorbrowser.evaluation.task import Suite, TaskEntry, TaskSetupError, TaskSpec, Validation
from colorbrowser.static_server import StaticServer

if TYPE_CHECKING:
    from playwright.sync_api import Page

PREFIX = "miniwob:"
SITE = "miniwob"
# How tips name the MiniWoB pages, whatever port and token this run serves them at.
STABLE_BASE = "http://miniwob.local/"
# The task area is a 160x210 CSS px box in the page's top-left corner.
VIEWPORT = (160, 210)
# Long enough that a slow model is never cut off by the page's own timer
# (task pages default to 10-30 s); setTimeout cannot go past 2**31-1 ms.
DEFAULT_EPISODE_MS = 600_000
MAX_EPISODE_MS = 2**31 - 1

_LOADED_JS = "() => typeof core !== 'undefined' && core.cover_div != null"
_START_JS = """({seed, ms}) => {
  Math.seedrandom(seed);
  if (ms !== null) { core.EPISODE_MAX_TIME = ms; }
  core.startEpisodeReal();
  return WOB_EPISODE_ID;
}"""
_READY_JS = "() => WOB_TASK_READY === true"
_STATE_JS = """() => (typeof WOB_DONE_GLOBAL === 'undefined') ? null : {
  done: WOB_DONE_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reward: WOB_REWARD_GLOBAL,
  reason: WOB_REWARD_REASON, episode: WOB_EPISODE_ID}"""
_DONE_JS = "() => typeof WOB_DONE_GLOBAL !== 'undefined' && WOB_DONE_GLOBAL === true"
_STOP_JS = "() => { if (typeof core !== 'undefined' && !WOB_DONE_GLOBAL) core.endEpisode(0); }"


def html_dir() -> Path:
    """``site-packages/miniwob/html``, found without importing the package (it pulls gym)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("MiniWoB++ is not installed (pip install 'colorbrowser[bench]')")
    root = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (root / "miniwob").is_dir():
        raise UserError(f"the miniwob package has no task pages in {root}")
    return root


def task_names(root: Path | None = None) -> list[str]:
    root = root or html_dir()
    return sorted(p.stem for p in (root / "miniwob").glob("*.html"))


def _title(path: Path) -> str:
    match = re.search(r"<title>(.*?)</title>", path.read_text(errors="replace"), re.S)
    return html.unescape(match.group(1)).strip() if match else ""


class MiniWobTask:
    """One seeded episode of one MiniWoB page."""

    def __init__(
        self,
        name: str,
        server: StaticServer,
        *,
        seed: int = 0,
        episode_max_time_ms: int | None = DEFAULT_EPISODE_MS,
        timeout_ms: int = 10_000,
    ) -> None:
        self.name = name
        self.id = PREFIX + name
        self.site = SITE
        self.seed = seed
        self.episode_max_time_ms = episode_max_time_ms
        self.timeout_ms = timeout_ms
        self._server = server
        self._page: Page | None = None
        self._url = ""

    @property
    def url(self) -> str:
        return f"{self._server.url}/miniwob/{self.name}.html"

    def setup(self, page: Page) -> TaskSpec:
        self._page, self._url = page, self.url
        try:
            page.goto(self._url, wait_until="load", timeout=self.timeout_ms)
            page.wait_for_function(_LOADED_JS, timeout=self.timeout_ms)
            episode = page.evaluate(_START_JS, {"seed": self.seed, "ms": self.episode_max_time_ms})
            page.wait_for_function(_READY_JS, timeout=self.timeout_ms)
            raw = page.evaluate("() => core.getUtterance()")
            max_ms = page.evaluate("() => core.EPISODE_MAX_TIME")
        except Exception as exc:  # Playwright timeouts and page errors alike
            raise TaskSetupError(f"{self.id}: episode did not start: {_first_line(exc)}") from exc
        # Three email-inbox-*-nl* tasks return {utterance, fields} instead of a string.
        fields: dict[str, Any] = {}
        if isinstance(raw, dict):
            fields = dict(raw.get("fields") or {})
            raw = raw.get("utterance", "")
        goal = str(raw or "").strip()
        if not goal:
            raise TaskSetupError(f"{self.id}: the task gave an empty goal")
        return TaskSpec(
            goal=goal,
            start_url=self._url,
            viewport=VIEWPORT,
            site_aliases={self._server.url: STABLE_BASE},
            info={"seed": self.seed, "episode_max_time_ms": max_ms, "episode": episode,
                  "fields": fields},
        )

    def validate(self, page: Page, answer: str | None = None) -> Validation:
        """Read the verdict the page's own code wrote; the answer is not used by MiniWoB."""
        try:
            state = page.evaluate(_STATE_JS) if self._on_task_page(page) else None
        except Exception as exc:
            return Validation.unscored(f"cannot read the task state: {_first_line(exc)}")
        if state is None:
            return Validation(reward=0.0, success=False, done=True,
                              info={"reason": "the agent left the task page", "url": page.url})
        raw = float(state["raw"] or 0)
        done = bool(state["done"])
        info = {"raw_reward": raw, "discounted_reward": float(state["reward"] or 0),
                "reason": state["reason"], "seed": self.seed}
        if not done:
            return Validation(reward=0.0, success=False, done=False, info=info)
        # MiniWoB++ counts an episode as a success when its reward is positive.
        return Validation(reward=raw, success=raw > 0, done=True, info=info)

    def finished(self, page: Page) -> bool:
        """The page ended the episode (right or wrong): nothing the agent does counts now."""
        return bool(self._on_task_page(page) and page.evaluate(_DONE_JS))

    def _on_task_page(self, page: Page) -> bool:
        """Same document: tab links in some tasks add a #fragment, which is fine."""
        here, task = urlsplit(page.url), urlsplit(self._url)
        return (here.scheme, here.netloc, here.path) == (task.scheme, task.netloc, task.path)

    def teardown(self) -> None:
        """Stop the page's countdown, so a page left open never ends itself later."""
        page, self._page = self._page, None
        if page is None or page.is_closed():
            return
        try:
            if self._on_task_page(page):
                page.evaluate(_STOP_JS)
        except Exception:  # the page may be gone or navigating; nothing to clean then
            pass


class MiniWobSuite(Suite):
    """All MiniWoB++ task pages; the static server starts on first use."""

    name = "miniwob"
    seeded = True

    def __init__(
        self,
        *,
        root: Path | None = None,
        episode_max_time_ms: int | None = DEFAULT_EPISODE_MS,
        timeout_ms: int = 10_000,
    ) -> None:
        if episode_max_time_ms is not None and not 0 < episode_max_time_ms <= MAX_EPISODE_MS:
            raise UserError(f"episode time must be 1..{MAX_EPISODE_MS} ms, "
                            f"got {episode_max_time_ms}")
        self.root = root or html_dir()
        self.episode_max_time_ms = episode_max_time_ms
        self.timeout_ms = timeout_ms
        self._server: StaticServer | None = None
        self._entries: list[TaskEntry] | None = None

    def entries(self) -> list[TaskEntry]:
        if self._entries is None:
            pages = self.root / "miniwob"
            self._entries = [
                TaskEntry(id=PREFIX + n, site=SITE, summary=_title(pages / f"{n}.html"))
                for n in task_names(self.root)
            ]
        return list(self._entries)

    @property
    def server(self) -> StaticServer:
        if self._server is None:
            self._server = StaticServer(self.root).start()
        return self._server

    def task(self, task_id: str, *, seed: int | None = None) -> MiniWobTask:
        if not task_id.startswith(PREFIX):
            task_id = PREFIX + task_id
        self.runnable_entry(task_id)
        return MiniWobTask(
            task_id[len(PREFIX) :],
            self.server,
            seed=0 if seed is None else seed,
            episode_max_time_ms=self.episode_max_time_ms,
            timeout_ms=self.timeout_ms,
        )

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
