"""Reading task files: WebArena's JSON configs and our own YAML format.

Every mistake in a file is one line naming the file, the entry (0-based) and the
field, e.g. ``tasks.yaml: entry 2 (id 'search'): eval.reference_url: ...``.

Our YAML format, for tasks on a user's own site (``eval`` is WebArena's block;
``eval_types`` may be left out)::

    tasks:                      # or the list itself at the top level
      - id: find-asyncio
        site: docs.python.org   # optional: the start URL's host
        goal: Open the asyncio reference page
        start_url: https://docs.python.org/3/
        storage_state: auth/docs.json   # optional, relative to this file
        eval:
          reference_url: https://docs.python.org/3/library/asyncio.html
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colorbrowser.datafile import parse_json, parse_yaml, read_text
from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import (
    AUTH_DIR_VAR,
    TaskDefinition,
    environment,
    fill_placeholders,
    helper_reasons,
)
from colorbrowser.evaluation.dbmatch import databases
from colorbrowser.evaluation.spec import EvalSpec, describe_error
from colorbrowser.evaluation.webarena_login import addresses

WEBARENA_PREFIX = "webarena:"


class WebArenaConfig(BaseModel):
    model_config = ConfigDict(extra="allow")  # intent_template, instantiation_dict, ...

    task_id: int | str
    sites: list[str] = Field(default_factory=list)
    intent: str = Field(min_length=1)
    start_url: str = Field(min_length=1)
    require_login: bool = False
    storage_state: str | None = None
    geolocation: dict[str, Any] | None = None
    eval: EvalSpec


class YamlTask(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a typo in a key is an error, not ignored

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/-]*$")
    site: str | None = None
    goal: str = Field(min_length=1)
    start_url: str = Field(min_length=1)
    storage_state: str | None = None
    geolocation: dict[str, Any] | None = None
    eval: EvalSpec


def _read(path: Path) -> str:
    return read_text(path, "task file")


def _entry_error(path: Path, index: int, label: str, exc: ValidationError) -> UserError:
    return UserError(f"{path}: entry {index}{label}: {describe_error(exc)}")


def _state_reason(raw: str, path: Path) -> str | None:
    return None if path.is_file() else f"login state {raw} not found"


def _state_inside(path: Path, index: int, label: str, raw: str, folder: Path) -> Path:
    """A login state named by a task file, which must lie inside ``folder``: a file
    from someone else may not pick a login state elsewhere on the machine (a person's
    own, for another site) for the browser to send."""
    state = (folder / raw).resolve()
    if not state.is_relative_to(folder.resolve()):
        raise UserError(f"{path}: entry {index}{label}: storage_state {raw!r} lies outside "
                        f"{folder}; a task file may only name login states inside it")
    return state


def load_webarena(path: Path | str, *, env: Mapping[str, str] | None = None,
                  ) -> list[TaskDefinition]:
    """A WebArena config file: a list of task configs, or a single one."""
    path = Path(path)
    env = environment(env)
    data = parse_json(_read(path), str(path))
    items = [data] if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise UserError(f"{path}: expected a task config or a non-empty list of them")
    auth_dir = env.get(AUTH_DIR_VAR, "").strip()
    definitions: list[TaskDefinition] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(items):
        if not isinstance(raw, dict):
            raise UserError(f"{path}: entry {index}: expected an object")
        label = f" (task_id {raw['task_id']})" if "task_id" in raw else ""
        filled, reasons = fill_placeholders(raw, env)
        try:
            cfg = WebArenaConfig.model_validate(filled)
        except ValidationError as exc:
            raise _entry_error(path, index, label, exc) from None
        task_id = f"{WEBARENA_PREFIX}{cfg.task_id}"
        if task_id in seen:
            raise UserError(f"{path}: entry {index}: task_id {cfg.task_id} repeats entry "
                            f"{seen[task_id]}")
        seen[task_id] = index
        state = None
        logins: dict[str, str] = {}
        if cfg.storage_state:
            # WebArena writes "./.auth/x_state.json", relative to its checkout.
            state = (Path(auth_dir) / Path(cfg.storage_state).name if auth_dir
                     else _state_inside(path, index, label, cfg.storage_state, Path.cwd()))
            missing = _state_reason(cfg.storage_state, state)
            # A missing state of WebArena's known sites is made at setup, by logging in.
            logins = (addresses(state.name, env) or {}) if missing else {}
            if missing and not logins:
                reasons.append(f"{missing} (set {AUTH_DIR_VAR})")
        dbs, no_db = databases(cfg.eval, env)
        definitions.append(TaskDefinition(
            id=task_id, site="+".join(cfg.sites) or "webarena", goal=cfg.intent,
            start_url=cfg.start_url, eval=cfg.eval, storage_state=state,
            geolocation=cfg.geolocation,
            unsupported=helper_reasons(cfg.eval) + reasons + no_db,
            source=f"{path}#{index}", databases=dbs, logins=logins,
        ))
    return definitions


def load_yaml(path: Path | str, *, env: Mapping[str, str] | None = None,
              ) -> list[TaskDefinition]:
    path = Path(path)
    env = environment(env)
    data = parse_yaml(_read(path), str(path))
    if isinstance(data, dict):
        extra = sorted(set(data) - {"tasks"})
        if extra:
            raise UserError(f"{path}: unknown top-level key {extra[0]!r} (expected 'tasks')")
        data = data.get("tasks")
    if not isinstance(data, list) or not data:
        raise UserError(f"{path}: expected a non-empty list of tasks (or 'tasks:' with one)")
    definitions: list[TaskDefinition] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(data):
        if not isinstance(raw, dict):
            raise UserError(f"{path}: entry {index}: expected a mapping with id, goal, "
                            "start_url and eval")
        label = f" (id {raw['id']!r})" if isinstance(raw.get("id"), str) else ""
        filled, reasons = fill_placeholders(raw, env)
        try:
            task = YamlTask.model_validate(filled)
        except ValidationError as exc:
            raise _entry_error(path, index, label, exc) from None
        if task.id in seen:
            raise UserError(f"{path}: entry {index}: id {task.id!r} repeats entry "
                            f"{seen[task.id]}")
        seen[task.id] = index
        state = None
        if task.storage_state:
            state = _state_inside(path, index, label, task.storage_state, path.parent)
            missing = _state_reason(task.storage_state, state)
            if missing:
                reasons.append(missing)
        first_url = task.start_url.split("|AND|")[0].strip()
        dbs, no_db = databases(task.eval, env)
        definitions.append(TaskDefinition(
            id=task.id, site=task.site or urlparse(first_url).hostname or "local",
            goal=task.goal, start_url=task.start_url, eval=task.eval, storage_state=state,
            geolocation=task.geolocation,
            unsupported=helper_reasons(task.eval) + reasons + no_db,
            source=f"{path}#{index}", databases=dbs,
        ))
    return definitions
