"""Tasks described by data (WebArena JSON, our YAML) and judged by the evaluators.

Site placeholders such as ``__SHOPPING__`` are filled from environment variables
(``WA_SHOPPING``, ...) everywhere in a task, as WebArena's own config generation
does. A task whose placeholders, login state or ``func:`` helpers are missing is
still listed, with the reason it cannot run here.

A task file may come from someone else, so it names pages, never reaches past them:
the hosts and ports a task names (``TaskDefinition.hosts``) are the only ones its
start tabs and its checks open, web pages only; a study makes them its browser's host
list unless ``eval --allow-hosts`` says otherwise (``with_task_hosts``), so the task's
JavaScript (locators, prep_actions) cannot send anything to a host it did not name.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colorbrowser.browser.policy import NavigationPolicy, entry_parts, url_host_entries
from colorbrowser.config import check_host_entry
from colorbrowser.datafile import load_json
from colorbrowser.errors import UserError
from colorbrowser.evaluation import dbmatch, helpers, webarena_login
from colorbrowser.evaluation import evaluators as ev
from colorbrowser.evaluation.judge import Judge
from colorbrowser.evaluation.spec import EvalSpec
from colorbrowser.evaluation.task import Suite, TaskEntry, TaskSetupError, TaskSpec, Validation
from colorbrowser.plan.placeholders import PLACEHOLDERS
from colorbrowser.protocols import Model

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from colorbrowser.config import Settings

AUTH_DIR_VAR = "WA_AUTH_DIR"  # folder with WebArena's .auth/*_state.json files
START_URL_SEPARATOR = " |AND| "  # several start tabs
REFERENCE_SEPARATOR = " |OR| "  # several acceptable reference URLs
_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS))


def placeholders_in(data: Any) -> list[str]:
    found = _PLACEHOLDER.findall(json.dumps(data))
    return list(dict.fromkeys(found))


def substitute(data: Any, values: Mapping[str, str]) -> Any:
    """Replace known placeholders in every string of a JSON-like value."""
    if isinstance(data, str):
        return _PLACEHOLDER.sub(lambda m: values.get(m.group(0), m.group(0)), data)
    if isinstance(data, list):
        return [substitute(item, values) for item in data]
    if isinstance(data, dict):
        return {key: substitute(value, values) for key, value in data.items()}
    return data


def fill_placeholders(raw: dict[str, Any], env: Mapping[str, str]) -> tuple[dict[str, Any],
                                                                              list[str]]:
    """The task with every placeholder that has a value filled, and the reasons for the rest."""
    values: dict[str, str] = {}
    reasons: list[str] = []
    for placeholder in placeholders_in(raw):
        var = PLACEHOLDERS[placeholder]
        value = env.get(var, "").strip()
        if value:
            values[placeholder] = value.rstrip("/")
        else:
            reasons.append(f"{var} not set")
    return substitute(raw, values), reasons


def helper_reasons(spec: EvalSpec) -> list[str]:
    if "program_html" not in spec.eval_types:
        return []
    reasons = []
    for check in spec.program_html:
        if check.url != "last":
            reasons.append(helpers.unsupported_reason(check.url, where="url"))
        reasons.append(helpers.unsupported_reason(check.locator, where="locator"))
    return list(dict.fromkeys(r for r in reasons if r))


@dataclass
class TaskDefinition:
    """One data-described task, placeholders filled as far as the environment allows."""

    id: str
    site: str
    goal: str
    start_url: str  # may hold several URLs joined by " |AND| "
    eval: EvalSpec
    storage_state: Path | None = None
    geolocation: dict[str, Any] | None = None
    unsupported: list[str] = field(default_factory=list)
    source: str = ""  # "file.json#12": where the task came from
    databases: dict[str, Path] = field(default_factory=dict)  # db_match: site -> SQLite file
    logins: dict[str, str] = field(default_factory=dict)  # site -> address, to make the state

    def start_urls(self) -> list[str]:
        return [u.strip() for u in self.start_url.split(START_URL_SEPARATOR)]

    def hosts(self) -> list[str]:
        """Host entries (host:port) of every page the task names: start tabs, its
        site, reference URLs and the pages its checks open."""
        urls = list(self.start_urls())
        if self.eval.reference_url:
            urls += [u.strip() for u in self.eval.reference_url.split(REFERENCE_SEPARATOR)]
        urls += [c.url for c in self.eval.program_html
                 if c.url != "last" and not c.url.startswith(helpers.PREFIX)]
        entries = [e for url in urls for e in url_host_entries(url)]
        entries += _site_entries(self.site)
        return list(dict.fromkeys(entries))

    def entry(self) -> TaskEntry:
        return TaskEntry(id=self.id, site=self.site, summary=self.goal,
                         unsupported="; ".join(self.unsupported) or None,
                         needs_judge=self.eval.needs_judge)


def _site_entries(site: str) -> list[str]:
    """A YAML task's ``site`` when it is a host name (WebArena's are names like
    ``shopping``: their hosts come from the placeholders in the URLs)."""
    if "." not in site and ":" not in site:
        return []
    try:
        check_host_entry(site)
    except ValueError:
        return []
    return url_host_entries(f"http://{site}/")


def hosts_of(definitions: list[TaskDefinition]) -> list[str]:
    return list(dict.fromkeys(h for d in definitions for h in d.hosts()))


def _is_local(entry: str) -> bool:
    name = entry_parts(entry)[0]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def check_task_hosts(hosts: list[str], source: str) -> None:
    """Refuse a host list that joins this machine (or its network) to the outside: a
    task's JavaScript could read a local service it names and carry what it read to a
    host elsewhere it also names. The person decides that with --allow-hosts."""
    local = [h for h in hosts if _is_local(h)]
    outside = [h for h in hosts if not _is_local(h)]
    if local and outside:
        raise UserError(f"{source} names local addresses ({', '.join(local[:3])}) and hosts "
                        f"elsewhere ({', '.join(outside[:3])}): its checks could carry what "
                        "they read from one to the other; pass --allow-hosts to say which "
                        "hosts the browser may reach")


def with_task_hosts(settings: Settings, hosts: list[str] | None, source: str = "the task file",
                    ) -> Settings:
    """``settings`` whose browser may reach only ``hosts`` (the hosts a suite's tasks
    name); unchanged when the suite names none (MiniWoB serves its own pages)."""
    if not hosts:
        return settings
    check_task_hosts(hosts, source)
    browser = settings.browser.model_copy(update={"allow_hosts": list(hosts)})
    return settings.model_copy(update={"browser": browser})


class ConfiguredTask:
    """A TaskDefinition bound to a page: opens the start URLs, then judges the result.

    Every page it opens itself (start tabs, a check's ``url``) must be a web page on a
    host the task names; the browser's own host list (``with_task_hosts``) keeps the
    task's JavaScript there too."""

    def __init__(self, definition: TaskDefinition, *, judge: Model | None = None,
                 settle_ms: int = 3000, timeout_ms: int = 30_000) -> None:
        self.definition = definition
        self.id = definition.id
        self.site = definition.site
        self.judge = Judge(judge) if judge is not None else None
        self.settle_ms = settle_ms
        self.timeout_ms = timeout_ms
        self.policy = NavigationPolicy.of(definition.hosts())
        self._opened: list[Page] = []

    def setup(self, page: Page) -> TaskSpec:
        """Log in (cookies of the storage state), then open the start tab(s).

        Cookies go into the page's context, so give each task a fresh context.
        """
        d = self.definition
        if d.unsupported:
            raise TaskSetupError(f"{d.id} cannot run: {'; '.join(d.unsupported)}")
        urls = d.start_urls()
        for url in urls:
            refused = self.policy.refuse_target(url)
            if refused:
                raise TaskSetupError(f"{d.id}: the start page {url[:100]} cannot be opened: "
                                     f"{refused}")
        try:
            if d.storage_state is not None:
                if d.logins:  # WebArena's own sites: log in with their known accounts
                    webarena_login.ensure_state(d.storage_state, d.logins)
                state = load_json(d.storage_state, "storage state")
                if isinstance(state, dict) and isinstance(state.get("cookies"), list):
                    page.context.add_cookies(state["cookies"])
            if d.geolocation:
                page.context.grant_permissions(["geolocation"])
                page.context.set_geolocation(d.geolocation)  # type: ignore[arg-type]
            page.goto(urls[0], timeout=self.timeout_ms)
            for url in urls[1:]:
                tab = page.context.new_page()
                self._opened.append(tab)
                tab.goto(url, timeout=self.timeout_ms)
            page.bring_to_front()
        except Exception as exc:
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise TaskSetupError(f"{d.id}: cannot open the start page: {line}") from exc
        return TaskSpec(
            goal=d.goal, start_url=urls[0], extra_urls=urls[1:],
            storage_state=str(d.storage_state) if d.storage_state else None,
            info={"source": d.source, "eval_types": list(d.eval.eval_types)},
        )

    def validate(self, page: Page, answer: str | None) -> Validation:
        """Score the page and the final answer. ``answer=None`` means the agent has not
        stopped yet: nothing is judged. Pass ``""`` for a stop without an answer."""
        if answer is None:
            return Validation(reward=0.0, success=False, done=False,
                              info={"pending": "the agent has not answered yet"})
        spec = self.definition.eval
        parts: dict[str, ev.Outcome] = {}
        # The URL is read before program_html's preparation steps can change the page.
        if "url_match" in spec.eval_types:
            parts["url_match"] = ev.url_match(spec.reference_url or "", page.url)
        if "program_html" in spec.eval_types:
            parts["program_html"] = ev.program_html(spec, page, settle_ms=self.settle_ms,
                                                    timeout_ms=self.timeout_ms,
                                                    policy=self.policy)
        if "db_match" in spec.eval_types:
            parts["db_match"] = dbmatch.db_match(spec, self.definition.databases)
        if "string_match" in spec.eval_types:
            failed = any(p.score == 0 and p.error is None for p in parts.values())
            judge = None if failed else self.judge  # no judge call for a task already failed
            parts["string_match"] = ev.string_match(spec, self.definition.goal, answer, judge)
        result = ev.combine(parts)
        return Validation(reward=result.score, success=result.error is None and
                          result.score >= 1.0, done=True, info=result.info, error=result.error)

    def teardown(self) -> None:
        opened, self._opened = self._opened, []
        for tab in opened:
            try:
                if not tab.is_closed():
                    tab.close()
            except Exception:  # the browser may already be gone
                pass


class ConfigSuite(Suite):
    """Tasks loaded from a file; ``judge`` is the model behind fuzzy_match."""

    def __init__(self, name: str, definitions: list[TaskDefinition], *,
                 judge: Model | None = None, settle_ms: int = 3000,
                 timeout_ms: int = 30_000) -> None:
        self.name = name
        self.definitions = {d.id: d for d in definitions}
        self.judge = judge
        self.settle_ms = settle_ms
        self.timeout_ms = timeout_ms

    def entries(self) -> list[TaskEntry]:
        return [d.entry() for d in self.definitions.values()]

    def hosts(self) -> list[str] | None:
        return hosts_of(list(self.definitions.values()))

    def task(self, task_id: str, *, seed: int | None = None) -> ConfiguredTask:
        self.runnable_entry(task_id)
        return ConfiguredTask(self.definitions[task_id], judge=self.judge,
                              settle_ms=self.settle_ms, timeout_ms=self.timeout_ms)


def environment(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env
