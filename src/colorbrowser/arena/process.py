"""Servers as whole process groups: start, wait until they answer, stop, check.

Every server starts in its own session, so its pid is also its process group id and
``os.killpg`` reaches the workers it forks (``php -S`` workers, gunicorn workers, the
shell of a Rails launcher). A killed child can stay a zombie until its parent reaps
it, so "alive" means: some process of the group that is not a zombie.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from colorbrowser.errors import ColorBrowserError


@dataclass(frozen=True)
class Command:
    """How to run one server (or one build step) of an app."""

    argv: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None


REQUEST_SECONDS = 5.0


def _group_members(pgid: int) -> list[tuple[int, str]]:
    """(pid, state letter) of every process whose process group is ``pgid``."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces or parentheses.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and int(fields[2]) == pgid:
            out.append((int(entry.name), fields[0]))
    return out


def group_alive(pgid: int) -> bool:
    return any(state != "Z" for _, state in _group_members(pgid))


def start_group(command: Command, log: Path) -> int:
    """Start ``command`` in a new session; returns its pid, which is its group id."""
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **command.env}
    with open(log, "ab") as out:
        proc = subprocess.Popen(list(command.argv), cwd=command.cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    # The Popen object is dropped on purpose: the server outlives this process and
    # `down` finds it again by its group id from the state file.
    proc.returncode = 0  # keeps Popen.__del__ from warning about a running child
    return proc.pid


def stop_group(pgid: int, grace: float = 0.5, timeout: float = 10.0) -> None:
    """SIGTERM the whole group, SIGKILL what is left after ``grace`` seconds."""
    if not group_alive(pgid):
        return
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return
        time.sleep(0.02)
    _signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while group_alive(pgid):
        if time.monotonic() > deadline:
            raise ColorBrowserError(f"process group {pgid} survived SIGKILL")
        time.sleep(0.02)
    _reap(pgid)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _reap(pid: int) -> None:
    """Collect our own child's exit status, if it was ours, so it leaves no zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def wait_http(url: str, pgid: int | None, timeout: float, log: Path | None = None,
              ok: Sequence[int] = (200,)) -> float:
    """Poll ``url`` until it answers one of ``ok``; returns the seconds waited.

    Gives up early when the server's group has died, quoting the end of its log. A
    request may take what is left of ``timeout`` (at least ``REQUEST_SECONDS``): on a
    busy machine an app's first page can take longer than any fixed per-request limit,
    and cutting it off only starts the same slow page again.
    """
    start = time.monotonic()
    with httpx.Client(follow_redirects=False, trust_env=False) as client:
        while True:
            left = max(REQUEST_SECONDS, timeout - (time.monotonic() - start))
            try:
                if client.get(url, timeout=left).status_code in ok:
                    return time.monotonic() - start
            except httpx.HTTPError:
                pass
            if pgid is not None and not group_alive(pgid):
                raise ColorBrowserError(f"server for {url} exited{_log_tail(log)}")
            if time.monotonic() - start > timeout:
                raise ColorBrowserError(f"{url} did not answer within {timeout:.0f} s"
                                        f"{_log_tail(log)}")
            time.sleep(0.05)


def _log_tail(log: Path | None, lines: int = 3) -> str:
    if log is None or not log.exists():
        return ""
    tail = [line for line in log.read_text("utf-8", "replace").splitlines() if line.strip()]
    return ("; log " + str(log) + ": " + " | ".join(tail[-lines:])) if tail else ""


def run_step(command: Command, log: Path, what: str) -> None:
    """Run one build step to completion; a failure quotes the end of its log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **command.env}
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(map(str, command.argv))}\n".encode())
        out.flush()
        code = subprocess.call(list(command.argv), cwd=command.cwd, env=env, stdout=out,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if code != 0:
        raise ColorBrowserError(f"{what} failed (exit {code}){_log_tail(log, 5)}")
