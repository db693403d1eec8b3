"""Run a study's episodes on local worker processes, each owning its browser.

The coordinator hands one job at a time to each idle worker and writes every
record itself, so ``results.jsonl`` has a single writer whatever the backend. A
worker that does not answer within its episode's time limit plus a grace period
is killed with everything below it (Chromium included) and replaced. A worker
that dies is replaced too. Either way the episode is recorded with its
``error_class`` and the study goes on.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Protocol

import psutil

from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evaluation.study import EpisodeJob
from colorbrowser.evaluation.worker import EpisodeWorker, WorkerPlan, job_record, now_iso

OnRecord = Callable[[EpisodeRecord], None]
OnStart = Callable[[EpisodeJob, str], None]


class Backend(Protocol):
    def run(self, jobs: list[EpisodeJob], on_record: OnRecord, on_start: OnStart) -> None: ...


def lost_record(job: EpisodeJob, worker: str, started: float, error_class: str,
                error: str) -> EpisodeRecord:
    """The record of an episode whose worker had to be killed or died."""
    record = job_record(job, status=error_class, error_class=error_class, error=error,
                        wall_time=round(time.monotonic() - started, 3), worker=worker,
                        finished=now_iso())
    if not job.run_dir.exists():
        record.trajectory = None
    return record


def kill_tree(pid: int) -> None:
    """SIGKILL a process and all its descendants (Chromium starts its own group)."""
    try:
        root = psutil.Process(pid)
        procs = [*root.children(recursive=True), root]
    except psutil.Error:
        return
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(procs, timeout=5)


# -- the worker process -----------------------------------------------------------
ORPHAN_POLL_S = 0.5


def end_with_parent(parent: int) -> None:
    """On a daemon thread of a worker: once the coordinator is gone (SIGKILL gives it no
    chance to stop anyone), take the worker's browser and driver down and leave at
    once, without a word: nobody is left to read a record or a traceback."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_S)
    with contextlib.suppress(psutil.Error):
        for proc in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                proc.kill()
    os._exit(0)


def worker_main(plan: WorkerPlan, name: str, conn: Connection, log_path: str) -> None:
    """Entry point of a worker process: jobs in, records out, until told to stop."""
    threading.Thread(target=end_with_parent, args=(os.getppid(),), name="orphan-watch",
                     daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)  # library warnings and browser noise go to the worker's log,
    os.dup2(log, 2)  # not through the coordinator's progress bar
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - lives as long as we do
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    worker = EpisodeWorker(plan, name)
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):  # the coordinator is gone
                break
            if job is None:
                break
            record = worker.run(job)
            try:
                conn.send(record)
            except OSError:  # the coordinator went away during the episode
                break
    finally:
        worker.close()


@dataclass
class _Slot:
    name: str
    process: Any = None
    conn: Connection | None = None
    job: EpisodeJob | None = None
    started: float = 0.0

    @property
    def busy(self) -> bool:
        return self.job is not None


class LocalBackend:
    def __init__(self, plan: WorkerPlan, workers: int = 1) -> None:
        self.plan = plan
        self.workers = max(1, workers)
        self._ctx = mp.get_context("spawn")  # no inherited Playwright or server threads

    def _start(self, slot: _Slot) -> None:
        parent, child = self._ctx.Pipe()
        log = str(self.plan.study_dir / "logs" / f"{slot.name}.log")
        slot.process = self._ctx.Process(target=worker_main, name=f"colorbrowser-{slot.name}",
                                         args=(self.plan, slot.name, child, log), daemon=True)
        slot.process.start()
        child.close()
        slot.conn = parent

    def _drop(self, slot: _Slot) -> None:
        if slot.process is not None:
            kill_tree(slot.process.pid)
            slot.process.join(timeout=5)
        if slot.conn is not None:
            slot.conn.close()
        slot.process = slot.conn = slot.job = None

    def run(self, jobs: list[EpisodeJob], on_record: OnRecord, on_start: OnStart) -> None:
        pending = deque(jobs)
        slots = [_Slot(f"worker-{i + 1}") for i in range(min(self.workers, len(jobs)))]
        try:
            while pending or any(s.busy for s in slots):
                for slot in slots:
                    if not slot.busy and pending:
                        if slot.process is None or not slot.process.is_alive():
                            self._drop(slot)
                            self._start(slot)
                        slot.job, slot.started = pending.popleft(), time.monotonic()
                        slot.conn.send(slot.job)
                        on_start(slot.job, slot.name)
                busy = [s for s in slots if s.busy]
                ready = wait([s.conn for s in busy] + [s.process.sentinel for s in busy],
                             timeout=1.0)
                for slot in busy:
                    self._collect(slot, ready, on_record)
        finally:
            for slot in slots:
                if slot.conn is not None and slot.process is not None and slot.process.is_alive():
                    with contextlib.suppress(OSError):
                        slot.conn.send(None)
            for slot in slots:
                if slot.process is not None:
                    slot.process.join(timeout=10)
                self._drop(slot)

    def _collect(self, slot: _Slot, ready: list[Any], on_record: OnRecord) -> None:
        job = slot.job
        assert job is not None and slot.conn is not None
        if slot.conn in ready or slot.conn.poll():
            try:
                data = slot.conn.recv()
            except (EOFError, OSError):
                data = None
            if data is not None:
                slot.job = None
                on_record(EpisodeRecord.model_validate(data))
                return
        if not slot.process.is_alive():
            code = slot.process.exitcode
            on_record(lost_record(job, slot.name, slot.started, "crash",
                                  f"worker process died (exit code {code})"))
            self._drop(slot)
        elif time.monotonic() - slot.started > job.hard_limit:
            on_record(lost_record(job, slot.name, slot.started, "timeout",
                                  f"worker did not answer within {job.hard_limit:.0f} s; "
                                  "killed with its browser"))
            self._drop(slot)
