"""One MCP session's browser: its own Chromium and context, on a thread of its own.

Playwright's sync API belongs to the thread that started it and refuses to run inside
an event loop, and the MCP server is an event loop; so each session gets one worker
thread, and every browser call of that session runs there, one at a time. Two
sessions never share a profile or a lock: each launches its own browser, on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from colorbrowser.actions import parse_action, spec_for
from colorbrowser.agent.secrets import SecretRefused, Vault
from colorbrowser.agent.trajectory import Redactor
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import ActionParseError
from colorbrowser.mcp.view import ids_where_acting

if TYPE_CHECKING:
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.types import Observation

T = TypeVar("T")
KEPT_OBSERVATIONS = 16  # how far back diff_since can reach


class ToolFailure(Exception):
    """A tool call that could not be done; the server turns it into an MCP error result."""


@dataclass(frozen=True)
class Seen:
    """One observation as the client was shown it (text already redacted)."""

    id: str
    url: str
    title: str
    header: list[str]  # URL, title, tabs, focus, dialog, errors, changes
    lines: list[str]  # the tree, every option of every select listed
    # The same tree with long option lists cut as the agent reads them ("(+N more)"),
    # line for line; None when no list was long enough to be cut.
    brief: list[str] | None = None


@dataclass(frozen=True)
class Acted:
    action: str
    output: str | None
    seen: Seen


class Workspace:
    """The browser of one MCP session, and the observations it showed."""

    def __init__(self, settings: BrowserSettings, secrets: Collection[str] = (),
                 vault: Vault | None = None) -> None:
        # Screenshots only when asked for: the tree is what most calls want.
        self.settings = settings.model_copy(update={"screenshots": False})
        self.vault = vault or Vault()
        self.redactor = Redactor()
        for value in secrets:
            self.redactor.add(value)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-browser")
        self._env: BrowserEnv | None = None
        self._seen: OrderedDict[str, Seen] = OrderedDict()
        self._count = 0

    # -- running on the session's thread ------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, fn, *args)

    def close(self) -> None:
        """Close the browser on its own thread, then the thread."""
        if self._env is not None:
            with contextlib.suppress(Exception):
                self._pool.submit(self._env.close).result(timeout=30)
            self._env = None
        self._pool.shutdown(wait=True, cancel_futures=True)

    @property
    def env(self) -> BrowserEnv:
        if self._env is None:
            from colorbrowser.browser.env import BrowserEnv

            self._env = BrowserEnv(self.settings, every_option=True)
            self._env.watch_secrets(lambda: (*self.redactor.secrets, *self.vault.values))
        return self._env

    def clean(self, text: str) -> str:
        """A named secret's value becomes its placeholder, any other secret ``***``."""
        return self.redactor.text(self.vault.hide(text))

    # -- what the tools do (each runs on the session's thread) ----------------------------

    def observe(self) -> Seen:
        return self._remember(self.env.observe())

    def seen(self, obs_id: str) -> Seen:
        if obs_id == "last" and self._seen:
            return next(reversed(self._seen.values()))
        found = self._seen.get(obs_id)
        if found is None:
            kept = ", ".join(self._seen) or "none yet"
            raise ToolFailure(f"no observation {obs_id!r} to compare with (kept: {kept})")
        return found

    def act(self, text: str) -> Acted:
        try:
            action = parse_action(text)
        except ActionParseError as exc:
            raise ToolFailure(f"bad action: {exc}") from None
        spec = spec_for(action.name)
        if spec is None or spec.scope == "agent":
            raise ToolFailure(f"{action.name}() belongs to the agent loop; browser_act runs "
                              "page and browser actions (click, fill, goto, tab_focus...)")
        env = self.env
        last = env.last_observation or env.observe()  # bids are checked against the page now
        target = last.elements.get(str(action.args[0])) if action.args else None
        in_frame = bool(target and target.frame)  # a frame's site cannot be checked
        try:
            filled = self.vault.fill_in(action, env.page.url, in_frame=in_frame)
        except SecretRefused as exc:
            raise ToolFailure(f"{action.name}: {exc}") from None
        result = env.step(filled)
        if result.info.get("secret") and filled is action and len(action.args) > 1:
            self.redactor.add(str(action.args[-1]))  # a password typed by the client
        if not result.ok:
            raise ToolFailure(self.clean(result.error or f"{action.name} failed"))
        seen = self.observe()
        # The action is shown back cleaned: a goto may carry a secret in its address.
        shown = self.clean(text.strip()) if action.name != "fill" else \
            f"fill('{action.args[0]}', …)"
        output = self.clean(result.output) if result.output else None
        return Acted(shown, output, seen)

    def screenshot(self, marks: bool) -> tuple[bytes, Seen]:
        """The viewport as PNG (fields holding a secret covered); with ``marks`` the
        Set-of-Marks boxes carry the bids of the tree."""
        env = self.env
        env.settings.screenshots = True
        try:
            obs = env.observe()
        finally:
            env.settings.screenshots = False
        image = obs.som if marks else obs.screenshot
        if image is None:
            raise ToolFailure(self.clean(
                f"no screenshot could be taken: {obs.last_error or 'unknown reason'}"))
        return image, self._remember(obs)

    def _remember(self, obs: Observation) -> Seen:
        from colorbrowser.browser.observe import observation_text

        red = self.clean
        text = red(observation_text(obs))
        head, _, tree = text.partition("\n\n")
        actionable = {bid for bid, el in obs.elements.items() if el.interactive}

        def shown(tree: str) -> list[str]:
            return ids_where_acting(tree.splitlines(), actionable) if tree else []

        every = obs.every_option_tree
        self._count += 1
        seen = Seen(
            id=f"o{self._count}", url=red(obs.url), title=red(obs.title),
            header=head.splitlines(),
            lines=shown(red(every)) if every is not None else shown(tree),
            brief=shown(tree) if every is not None else None,
        )
        self._seen[seen.id] = seen
        while len(self._seen) > KEPT_OBSERVATIONS:
            self._seen.popitem(last=False)
        return seen
