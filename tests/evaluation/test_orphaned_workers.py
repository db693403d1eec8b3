"""Workers do not outlive their coordinator.

A coordinator killed with SIGKILL cannot stop anything; each worker notices its
parent is gone and ends, with its own Chromium, within a few seconds and without
a traceback in its log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from tests.evaluation.runner_helpers import bench_tasks, freeze_replay


def wait_for(path_glob: str, root: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(root.glob(path_glob)):
            return True
        time.sleep(0.2)
    return False


def test_workers_and_their_browsers_end_quietly_soon_after_the_coordinator_is_killed(
        tmp_path, bench_url):
    tasks = bench_tasks(tmp_path / "tasks.yaml", bench_url)
    replay = freeze_replay(tmp_path / "replay.yaml")
    study = tmp_path / "study"
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "colorbrowser", "eval", str(tasks), "--replay", str(replay),
         "--workers", "2", "--timeout", "300", "--out", str(study)],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    family: list[psutil.Process] = []
    try:
        # The freeze task is mid-step (its page hangs in the click) once pending.json is there.
        assert wait_for("runs/*/freeze/pending.json", study, 90), "the episode never started"
        family = psutil.Process(coordinator.pid).children(recursive=True)
        assert any("chrom" in p.name().lower() or "headless" in p.name().lower()
                   for p in family if p.is_running())
        os.kill(coordinator.pid, signal.SIGKILL)
        coordinator.wait(10)
        killed_at = time.monotonic()
        _, alive = psutil.wait_procs(family, timeout=8)
        assert not alive, [(p.pid, p.name()) for p in alive]
        assert time.monotonic() - killed_at < 8
        logs = list((study / "logs").glob("*.log"))
        assert logs
        for log in logs:
            assert "Traceback" not in log.read_text(errors="replace"), log.read_text()
    finally:
        for proc in [psutil.Process(coordinator.pid) if coordinator.poll() is None else None,
                     *family]:
            if proc is not None and proc.is_running():
                proc.kill()
