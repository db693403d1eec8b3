"""Several real processes writing to one store at once lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from colorbrowser.knowledge import KnowledgeBase

PER_PROCESS = 60
SRC = Path(__file__).resolve().parents[2] / "src"

# Each writer waits for a "go" file so that both start writing at the same moment.
WRITER = """
import sys, time
from pathlib import Path
from colorbrowser.knowledge import KnowledgeBase, Tip
path, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
kb = KnowledgeBase.open(path, embeddings=False)
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
for i in range(count):
    kb.add(Tip(id=f"{name}-{i}", site="shop.local", url_patterns=["http://shop.local/*"],
               text=f"Tip {i} from {name}."))
    if i % 10 == 0:
        kb.record_retrieval([f"{name}-0"])
kb.close()
"""


def _start_writers(path: Path, names: list[str], count: int, go: Path) -> list[subprocess.Popen]:
    env = os.environ | {"PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(count), str(go)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in names
    ]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return procs


def _finish(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err


def test_two_processes_adding_tips_at_the_same_time_lose_none(tmp_path):
    path = tmp_path / "shared.db"
    go = tmp_path / "go"
    KnowledgeBase.open(path, embeddings=False).close()
    procs = _start_writers(path, ["alpha", "beta"], PER_PROCESS, go)
    started = time.monotonic()
    go.touch()
    _finish(procs)
    assert time.monotonic() - started < 120
    with KnowledgeBase.open(path, embeddings=False) as kb:
        ids = {t.id for t in kb.list()}
        assert len(ids) == 2 * PER_PROCESS
        assert {f"alpha-{i}" for i in range(PER_PROCESS)} <= ids
        assert {f"beta-{i}" for i in range(PER_PROCESS)} <= ids
        assert kb.get("alpha-0").stats.retrieved == PER_PROCESS // 10
        assert kb.get("beta-0").stats.retrieved == PER_PROCESS // 10
        assert len(kb.keyword_hits("beta", None, limit=500)) == PER_PROCESS


def test_two_processes_creating_a_new_store_at_once_both_succeed(tmp_path):
    path = tmp_path / "fresh.db"
    go = tmp_path / "go"
    go.touch()
    procs = _start_writers(path, ["x", "y"], 5, go)
    _finish(procs)
    with KnowledgeBase.open(path, embeddings=False) as kb:
        assert len(kb.list()) == 10
