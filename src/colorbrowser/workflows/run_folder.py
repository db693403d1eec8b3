"""Reading the run folder a workflow is learned from: whether it proved itself, who did
it, the steps that took effect and that they stayed on one site.

A run folder is data someone may send: every file is read through the capped readers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from colorbrowser.actions import parse_action
from colorbrowser.agent.trajectory import MASK, write_json_atomic
from colorbrowser.datafile import load_json
from colorbrowser.errors import ActionParseError, UserError
from colorbrowser.knowledge.patterns import hide_userinfo, host_matches_site, url_host
from colorbrowser.knowledge.workflow import LearnedBy
from colorbrowser.steps import Step
from colorbrowser.workflows import sites

APPROVAL_FILE = "approval.json"
NO_EFFECT = {"scroll", "take_note", "calculate", "stop"}
_JSON_LIMIT = 4 * 1024 * 1024


def approve(run_dir: str | Path, author: str | None = None) -> None:
    """A person's word that this run did what they wanted (the copilot panel's "keep
    as workflow"): it may teach a workflow."""
    write_json_atomic(Path(run_dir) / APPROVAL_FILE, {"approved": True, "author": author})


def read(run_dir: Path, name: str) -> dict[str, Any]:
    """One JSON file of the run, capped; {} when it is missing or not an object."""
    path = run_dir / name
    if not path.is_file():
        return {}
    data = load_json(path, name, limit=_JSON_LIMIT)
    return data if isinstance(data, dict) else {}


def evidence(run_dir: Path, result: dict, proof: str | None) -> str:
    """Why this run may teach, or UserError."""
    if proof:
        return proof
    if result.get("verdict") == "verified":
        return "verified"
    validation = read(run_dir, "validation.json")
    if validation.get("success") is True:
        return "evaluator"
    if read(run_dir, APPROVAL_FILE).get("approved") is True:
        return "person"
    verdict = result.get("verdict") or "no verdict"
    raise UserError(f"run {run_dir} is not proved ({verdict}): only a verified run, one its "
                    "task's evaluator passed, or one a person approved may teach a workflow")


def learned_by(meta: dict, steps: list[Step], evidence: str) -> LearnedBy:
    """Who did the run, when the caller does not say: mostly a person's steps count as
    the person's."""
    if evidence == "person":
        return "person"
    if meta.get("model") == "replay":
        return "replay"
    acting = [s.actor for s in steps if s.action]
    if acting and acting.count("person") * 2 >= len(acting):
        return "person"
    return "agent"


def author(run_dir: Path) -> str | None:
    """The approving person's name, when one approved the run."""
    return read(run_dir, APPROVAL_FILE).get("author")


def recorded_answer(run_dir: str | Path) -> str:
    """The answer the run gave (empty when it gave none)."""
    answer = read(Path(run_dir), "result.json").get("answer")
    return answer if isinstance(answer, str) else ""


def task_of(run_dir: Path) -> str | None:
    validation = read(run_dir, "validation.json")
    task = validation.get("task")
    return task if isinstance(task, str) and len(task) <= 200 else None


def took_effect(step: Step) -> bool:
    if not step.action or not step.executed or not step.result.ok:
        return False
    try:
        action = parse_action(step.action)
    except ActionParseError:
        return False
    return action.name not in NO_EFFECT


def last_page(steps: list[Step]) -> str:
    """The page the run answered on."""
    stops = [s for s in steps if s.action and s.result.done]
    return stops[-1].observation if stops else ""


def web(url: str) -> bool:
    """An http(s) address with a host and no user name or password before it."""
    return urlsplit(url).scheme in ("http", "https") and bool(url_host(url)) and \
        "@" not in url_host(url)


def on_site(step: Step, site: str, run_dir: Path) -> None:
    """UserError for a step a workflow may not hold: a masked secret typed, or a page
    opened off the site."""
    action = parse_action(step.action or "")
    if any(isinstance(a, str) and MASK in a for a in action.args):
        raise UserError(f"run {run_dir} step {step.step} typed a value the run masked (a "
                        "password or key): a workflow cannot hold it; let the run type it "
                        "as {{secret:NAME}}")
    for url in (action.args[:1] if action.name in ("goto", "new_tab") else []):
        if not isinstance(url, str) or not (host_matches_site(url_host(url), site) or
                                            sites.as_placeholder(url, site) is not None):
            raise UserError(f"run {run_dir} step {step.step} leaves the site {site} "
                            f"({hide_userinfo(str(url))[:80]!r}): a workflow stays on one site")
