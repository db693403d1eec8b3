"""Trap tasks: arena tasks played behind the fault proxy (``faults.py``), where the page
looks right while the job was not done. Each is marked ``trap``; its evaluator reads
the app's database (or the browser's cookies) and says the truth, which is always
"not done" while the fault is on, and "done" for the same plan with the fault off.

They measure the verifier: an agent that stops as soon as the page looks right must be
caught every time (``benchmarks/verify.py``, ``tests/arena/test_traps.py``).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colorbrowser.arena.faults import Fault

COMMENT_BOX = {"role": "textbox", "name": "You may use WikiFormatting here."}
SUBMIT = {"click": {"role": "button", "name": "Submit changes"}}
MODIFY = {"click": {"role": "link", "name": "Modify Ticket"}}


@dataclass(frozen=True)
class TrapTask:
    id: str
    app: str
    goal: str
    start: str  # path on the app, behind the proxy
    fault: Fault
    plan: tuple[Any, ...]  # oracle steps of an agent that stops once the page looks right
    kind: str  # the false "done" it sets up: write_failed, nothing_stored, no_session
    signed_in: bool = True  # starts with the user's login state
    stored: str = ""  # SQL that returns a row once the change is really stored
    trap: bool = True

    def done(self, db: Path, cookies: list[dict[str, Any]]) -> bool:
        """The truth, from the app's database or the browser's cookies."""
        if self.kind == "no_session":
            return any(c.get("name") == "trac_auth" for c in cookies)
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            return con.execute(self.stored).fetchone() is not None


def _comment(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def trac_traps(user: str, password: str) -> list[TrapTask]:
    """The Trac traps, as ``user`` (a developer) with ``password``."""
    note = "The importer also skips files with uppercase extensions."
    return [
        TrapTask(
            "trap-trac-comment-500", "trac", f'Add the comment "{note}" to ticket #33.',
            "/ticket/33", Fault("POST", r"/ticket/33$", "fail"),
            ({"fill": COMMENT_BOX, "value": note}, SUBMIT, {"stop": "Done"}),
            kind="write_failed",
            stored=f"select 1 from ticket_change where ticket=33 and field='comment' and "
                   f"newvalue={_comment(note)}"),
        TrapTask(
            "trap-trac-priority-saved", "trac", "Set the priority of ticket #36 to critical.",
            "/ticket/36", Fault("POST", r"/ticket/36$", "fake_saved"),
            (MODIFY, {"select_option": {"role": "combobox", "name": "Priority:"},
                      "options": "critical"}, SUBMIT, {"stop": "Done"}),
            kind="nothing_stored",
            stored="select 1 from ticket where id=36 and priority='critical'"),
        TrapTask(
            "trap-trac-login-nocookie", "trac", f"Log in to Harbor's tracker as {user}.",
            "/login", Fault("POST", r"/login$", "no_cookie"),
            ({"fill": {"role": "textbox", "name": "Username:"}, "value": user},
             {"fill": {"role": "textbox", "name": "Password:"}, "value": password},
             {"click": {"role": "button", "name": "Login"}}, {"stop": "Logged in"}),
            kind="no_session", signed_in=False),
    ]


# Tables a sign-in or a page view writes, whatever the task: their changes prove nothing.
# "log" only as a word of the name: catalogue_product is the shop's data, not a log.
_BOOKKEEPING = re.compile(r"session|auth_cookie|cache|(?<![a-z])log|token|visit|last_login|"
                          r"whoosh|search_index|l10n", re.I)


def db_changed(*dbs: Path) -> Callable[[], bool | None]:
    """Whether the databases differ later from now: the arena's "a change is evidence".
    None when one cannot be read (no evidence either way)."""
    def fingerprint() -> str | None:
        digest = hashlib.sha256()
        try:
            for db in dbs:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                    for (name,) in con.execute(
                            "select name from sqlite_master where type='table' "
                            "and name not like 'sqlite_%' order by name"):
                        if _BOOKKEEPING.search(name):
                            continue
                        for row in con.execute(f'select * from "{name}"'):
                            digest.update(repr(row).encode())
        except sqlite3.Error:
            return None
        return digest.hexdigest()

    before = fingerprint()

    def changed() -> bool | None:
        after = fingerprint()
        return None if before is None or after is None else after != before

    return changed


@dataclass
class TrapRun:
    """One play of a trap: what the verifier said and what was true."""

    task: str
    kind: str
    faulty: bool
    verdict: str
    reasons: list[str]
    done: bool  # the evaluator's truth
    hits: int  # requests the proxy made fail


def run_trap(trap: TrapTask, arena: Any, env: Any, *, faulty: bool = True,
             run_dir: Path | None = None) -> TrapRun:
    """Reset the app, put the proxy in front of it and let an agent that stops as soon as
    the page looks right (the trap's plan, replayed) play it, verified at the stop."""
    import json

    from colorbrowser.agent.loop import Episode
    from colorbrowser.agent.trajectory import Trajectory
    from colorbrowser.agent.verifying import VerifyHook
    from colorbrowser.arena.faults import FaultProxy
    from colorbrowser.config import AgentSettings
    from colorbrowser.evaluation.replay import ReplayOperator
    from colorbrowser.plan.format import parse_plan

    arena.reset([trap.app])
    db = arena.db_path(trap.app)
    changed = db_changed(db)
    context = env.page.context
    context.clear_cookies()
    if trap.signed_in:
        user = trap_user(arena)
        state = json.loads(arena.login_state(trap.app, user).read_text(encoding="utf-8"))
        context.add_cookies(state["cookies"])
    with FaultProxy(arena.port(trap.app), [trap.fault] if faulty else []) as proxy:
        episode = Episode(
            trap.goal, env, ReplayOperator(parse_plan(list(trap.plan), trap.id).encode()),
            settings=AgentSettings(max_steps=len(trap.plan) + 4),
            start_url=proxy.url + trap.start,
            trajectory=Trajectory(run_dir) if run_dir is not None else None,
            hooks=[VerifyHook(0, state_changed=changed, late=env.late_evidence)])
        result = episode.run()
        done = trap.done(db, context.cookies())
        verification = result.verification
    return TrapRun(trap.id, trap.kind, faulty, verification.verdict if verification else "none",
                   list(verification.reasons) if verification else [], done, len(proxy.hits))


def trap_user(arena: Any) -> str:
    """The developer the traps act as: the same one the Trac tasks use."""
    return "hugo"


def arena_traps(arena: Any) -> list[TrapTask]:
    account = arena.account("trac", trap_user(arena))
    return trac_traps(account.username, account.password)
