"""Proving a synthesised task before it is kept, on a fresh start each time:

- doing nothing (stop at the start page, no answer) scores 0;
- the start state scores 0 (for a question: the start page's heading as the answer);
- the recorded path, replayed as an oracle plan (plan/format.py), scores 1, and
  the page it reaches still shows what the question quotes.

The same function re-proves a saved task file in a separate run (the benchmark's
``reproved``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.actions import format_action
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.datafile import load_json, load_yaml
from colorbrowser.evaluation.evaluators import Outcome, combine, string_match, url_match
from colorbrowser.evaluation.spec import EvalSpec
from colorbrowser.explore.pagefacts import PageFacts, lasting, read_facts
from colorbrowser.explore.sandbox import Sandbox
from colorbrowser.plan.format import OracleMiss, Step, parse_plan, parse_step
from colorbrowser.types import ActionResult, Observation

TASKS_FILE = "tasks.json"
PLANS_FILE = "tasks.oracle.yaml"
SETTLE_WAIT_MS = 3000  # at most, per wait: a page that keeps fetching is taken as it is


@dataclass
class Proof:
    task_id: str
    path: float = 0.0
    nothing: float = 1.0
    start: float = 1.0
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.path == 1.0 and self.nothing == 0.0 and self.start == 0.0 and not self.error


@dataclass
class Walked:
    """One step of a proof's path as it ran: the page it was decided on, the plan step,
    the concrete action and what it did (None for the final stop). A kept task's walk
    becomes its proof run folder (proved.py)."""

    obs: Observation
    step: Step
    action: str
    result: ActionResult | None = None


@dataclass
class SynthReport:
    proposed: int = 0
    duplicates: int = 0
    over: int = 0  # beyond the most that are proved
    failed: int = 0
    kept: int = 0
    proofs: list[Proof] = field(default_factory=list)
    runs: list[Path] = field(default_factory=list)  # the kept tasks' proof run folders


def score(task: dict[str, Any], url: str, answer: str | None) -> float:
    """The task's evaluator on a final address and answer (url and string checks only)."""
    spec = EvalSpec.model_validate(task["eval"])
    parts: dict[str, Outcome] = {}
    if "url_match" in spec.eval_types:
        parts["url_match"] = url_match(spec.reference_url or "", url)
    if "string_match" in spec.eval_types:
        parts["string_match"] = string_match(spec, task["intent"], answer)
    return combine(parts).score


def shows(check: dict[str, Any], facts: PageFacts) -> bool:
    """Whether the reached page still shows what the question quotes."""
    if check.get("h1") and facts.h1 != check["h1"]:
        return False
    if "label" in check:
        return lasting(facts.value_for(check["label"])) == check["value"]
    if "cell" in check:
        key_head, key, head, value = check["cell"]
        for table in facts.tables:
            heads = table.get("heads") or []
            if key_head in heads and head in heads:
                k, c = heads.index(key_head), heads.index(head)
                rows = table.get("rows", [])
                if any(row[k] == key and lasting(row[c]) == value for row in rows):
                    return True
        return False
    return True


class Prover:
    """Runs proofs in one browser; ``fresh`` puts the site back before each run."""

    def __init__(self, env: BrowserEnv, fresh: Callable[[], None]) -> None:
        self.env, self.fresh = env, fresh
        self.walked: list[Walked] = []  # the last proof's path, step by step

    def _start(self, start_url: str) -> str:
        self.fresh()
        return self.env.reset(start_url).url

    def _settled(self) -> Observation:
        """The page once its scripts are done with it. A wiki's scripts re-render its
        forms after the load event; a step taken before that can act on an element
        that is about to be replaced, and a proof must not depend on how busy the
        machine is."""
        page = self.env.page
        for state in ("load", "networkidle"):
            with contextlib.suppress(PlaywrightError):
                page.wait_for_load_state(state, timeout=SETTLE_WAIT_MS)  # type: ignore[arg-type]
        return self.env.observe()

    def _act(self, step: Step) -> ActionResult:
        """One plan step on the settled page; looked up once more when its element was
        replaced between the observation and the action (nothing was done then)."""
        obs = self._settled()
        action = step.action_text(obs)
        result = self.env.step(action)
        if not result.ok and result.info.get("stale"):
            obs = self._settled()
            action = step.action_text(obs)
            result = self.env.step(action)
        self.walked.append(Walked(obs, step, action, result))
        return result

    def prove(self, task: dict[str, Any], plan_data: list[Any],
              read: Callable[[Observation], str | None] | None = None) -> Proof:
        """``read`` takes the answer off the final page when the plan has no stop step
        (a learned workflow reads it where its answer source says)."""
        proof = Proof(task["task_id"])
        start_url = task["start_url"]
        self.walked = []
        try:
            url = self._start(start_url)
            proof.nothing = score(task, url, None)
            facts = read_facts(self.env.page)
            proof.start = score(task, url, facts.h1 or self.env.observe().title)
            self._start(start_url)
            answer = None
            plan = parse_plan(plan_data)
            stop = parse_step("stop()")
            for step in plan.steps:
                if step.action == "stop":
                    answer = str(step.args[0]) if step.args else ""
                    stop = step
                    break
                result = self._act(step)
                if not result.ok:
                    raise OracleMiss(result.error or "a step failed")
            final = self._settled()
            if read is not None and answer is None:
                answer = read(final)
                stop = parse_step(format_action("stop", [answer or ""]))
            self.walked.append(Walked(final, stop, stop.action_text(final)))
            check = (task.get("synthesised") or {}).get("check") or {}
            if check and not shows(check, read_facts(self.env.page)):
                proof.error = "the page reached no longer shows the answer"
            proof.path = score(task, final.url, answer)
            if proof.path < 1.0 and not proof.error:
                proof.error = f"the path ended on {final.url}"
        except (OracleMiss, ValueError) as exc:
            proof.error = str(exc)[:200]
        return proof


def fresh_start(env: BrowserEnv, sandbox: Sandbox | None) -> Callable[[], None]:
    """A clean start: the sandbox restored, cookies and storage dropped."""

    def fresh() -> None:
        if sandbox is not None:
            sandbox.reset()
        context = env.session.context
        context.clear_cookies()

    return fresh


def save_tasks(folder: Path, tasks: list[dict[str, Any]], plans: dict[str, list[Any]]) -> None:
    (folder / TASKS_FILE).write_text(json.dumps(tasks, indent=1, ensure_ascii=False), "utf-8")
    (folder / PLANS_FILE).write_text(yaml.safe_dump(plans, allow_unicode=True, sort_keys=False),
                                     "utf-8")


def load_tasks(folder: Path) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    tasks = load_json(folder / TASKS_FILE, "task file")
    plans = load_yaml(folder / PLANS_FILE, "plan file") or {}
    return tasks, plans


def reprove(folder: Path, env: BrowserEnv, sandbox: Sandbox | None) -> list[Proof]:
    """Prove a saved task file again (a separate run, a fresh start per task)."""
    tasks, plans = load_tasks(folder)
    prover = Prover(env, fresh_start(env, sandbox))
    return [prover.prove(t, plans[t["task_id"]]) for t in tasks]
