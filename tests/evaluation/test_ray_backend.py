"""``--backend ray`` on a real local Ray cluster that the test starts and stops: the
same episodes and the same results format as the local backend.

Where the test may (root, or user namespaces), the cluster lives in its own network
namespace with only a loopback interface, so nothing it opens is reachable from
outside this machine."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from tests.evaluation.runner_helpers import SOLUTIONS, by_task, eval_cli, write

CLUSTER = Path(__file__).with_name("ray_cluster.py")
TASKS = "click-button,click-link,enter-text"
COMPARED = ("task", "seed", "reward", "success", "steps", "status", "error_class",
            "config_hash", "variant", "trajectory")


def _own_netns_works() -> bool:
    unshare = shutil.which("unshare")
    return bool(unshare) and subprocess.run(
        [unshare, "-n", "true"], capture_output=True).returncode == 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_ray_backend_gives_the_local_backends_results(tmp_path):
    solutions = write(tmp_path / "solutions.yaml", SOLUTIONS)
    common = ("miniwob", "--tasks", TASKS, "--replay", str(solutions), "--workers", "2")

    local = eval_cli(*common, "--out", str(tmp_path / "local"), cwd=tmp_path)
    assert local.returncode == 0, local.stderr

    eval_argv = [sys.executable, "-m", "colorbrowser", "eval", *common,
                 "--backend", "ray", "--out", str(tmp_path / "ray")]
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    if _own_netns_works():
        argv = ["unshare", "-n", sys.executable, str(CLUSTER), "6379", "--", *eval_argv]
        env["RAY_TEST_NETNS"] = "1"
    else:
        argv = [sys.executable, str(CLUSTER), str(_free_port()), "--", *eval_argv]
    proc = subprocess.run(argv, cwd=tmp_path, env=os.environ | env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    on_ray, on_local = by_task(tmp_path / "ray"), by_task(tmp_path / "local")
    assert sorted(on_ray) == sorted(on_local) == sorted(f"miniwob:{t}" for t in TASKS.split(","))
    for task, record in on_ray.items():
        assert record.success and record.reward == 1.0, record
        assert record.worker.startswith("ray-")
        assert (tmp_path / "ray" / record.trajectory / "steps.jsonl").is_file()
        assert set(record.model_dump()) == set(on_local[task].model_dump())
        assert ({k: getattr(record, k) for k in COMPARED}
                == {k: getattr(on_local[task], k) for k in COMPARED})
