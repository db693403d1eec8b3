"""The local arena: install footprint, build time, cold start, memory, reset speed and
reset determinism of the real apps.

    python benchmarks/arena.py                    # every built app, 100 hot resets
    python benchmarks/arena.py trac --resets 20   # some apps
    python benchmarks/arena.py trac --fresh       # also time a cold install + build of
                                                  # the pip apps in a scratch cache folder
    python benchmarks/arena.py --proofs studies/arena-prove/proofs.json
                                                  # tables of an earlier `arena prove`
    python benchmarks/arena.py --agents oracle,random --tasks 'trac-*'
                                                  # success of the floor and the ceiling

Runs its own instance (default 7, ports shifted by 700) so a person's arena on instance
0 is left alone. Without ``--proofs`` the tasks of the measured apps are proven anew
(``colorbrowser arena prove``). The last line is the summary the README quotes:
``arena: apps N, start_s X, reset_p95_ms Y, hash_stable yes|no, proven P/T``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from colorbrowser.arena import APPS, Arena
from colorbrowser.arena.apps import get_app
from colorbrowser.arena.build import SnapshotMeta


def du_mb(path: Path) -> float:
    if not path.exists():
        return 0.0
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True).stdout
    return int(out.split()[0]) / 1024


def group_rss_mb(pgid: int) -> float:
    total = 0
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE and os.getpgid(proc.pid) == pgid:
                total += proc.memory_info().rss
        except (psutil.Error, ProcessLookupError):
            continue
    return total / 2**20


def fresh_install(apps: list[str]) -> None:
    """Cold install and build of the pip apps in a scratch cache (pip's own cache stays)."""
    scratch = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    try:
        arena = Arena(cache=scratch)
        for name in apps:
            if not get_app(name).pip:
                continue
            t0 = time.monotonic()
            arena.install([name])
            t1 = time.monotonic()
            arena.build([name])
            t2 = time.monotonic()
            print(f"  fresh {name:6} install {t1 - t0:6.1f} s   build {t2 - t1:6.1f} s   "
                  f"venv {du_mb(arena.layout.venv(name)):6.0f} MB")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("apps", nargs="*", help="apps to measure (default: every built one)")
    parser.add_argument("--resets", type=int, default=100)
    parser.add_argument("--instance", type=int, default=7)
    parser.add_argument("--fresh", action="store_true", help="time a cold install + build")
    parser.add_argument("--proofs", type=Path, default=None,
                        help="proofs.json of an earlier `colorbrowser arena prove` (else prove)")
    parser.add_argument("--workers", type=int, default=1, help="workers of the proof runs")
    parser.add_argument("--agents", default="",
                        help="also run these agents: oracle,random,offline")
    parser.add_argument("--tasks", default=None, help="task patterns for --agents")
    parser.add_argument("--offline-tasks", default=None,
                        help="task patterns for the offline model (default: --tasks)")
    parser.add_argument("--offline-steps", type=int, default=8,
                        help="step limit of the offline model's episodes")
    args = parser.parse_args()

    arena = Arena(args.instance)
    apps = args.apps or [n for n in APPS if SnapshotMeta.read(arena.layout.snap(n))]
    if not apps:
        sys.exit("no app is built: run `colorbrowser arena install trac && "
                 "colorbrowser arena build trac` first")
    if args.fresh:
        fresh_install(apps)

    print(f"{'app':7} {'venv MB':>8} {'snap MB':>8} {'build s':>8} {'start s':>8} "
          f"{'RSS MB':>8} {'p50 ms':>7} {'p95 ms':>7}")
    started = time.monotonic()
    waited = arena.up(apps)
    start_s = time.monotonic() - started
    try:
        rss = {a.app: group_rss_mb(a.pgid) for a in arena.status(apps) if a.pgid}
        per_app: dict[str, list[float]] = {name: [] for name in apps}
        totals = []
        for _ in range(args.resets):
            t0 = time.perf_counter()
            for name, seconds in arena.reset(apps).items():
                per_app[name].append(seconds * 1000)
            totals.append((time.perf_counter() - t0) * 1000)
        stable = all(arena.content_hash(n) == arena.content_hash(n, snapshot=True) for n in apps)
        for name in apps:
            meta = SnapshotMeta.read(arena.layout.snap(name))
            times = sorted(per_app[name])
            print(f"{name:7} {du_mb(arena.layout.venv(name)):8.0f} "
                  f"{du_mb(arena.layout.snap(name)):8.1f} "
                  f"{meta.build_seconds if meta else 0:8.1f} {waited[name]:8.2f} "
                  f"{rss.get(name, 0):8.0f} {statistics.median(times):7.1f} "
                  f"{times[int(0.95 * (len(times) - 1))]:7.1f}")
    finally:
        arena.down()
    totals.sort()
    p95 = totals[int(0.95 * (len(totals) - 1))]
    print(f"all apps: cold start {start_s:.2f} s, RSS {sum(rss.values()):.0f} MB, "
          f"reset of everything p50 {statistics.median(totals):.1f} ms / p95 {p95:.1f} ms "
          f"over {args.resets} resets")
    proofs = proof_results(apps, args)
    if args.agents:
        agent_table(apps, args)
    proven = sum(p.proven for p in proofs)
    print(f"arena: apps {len(apps)}, start_s {start_s:.2f}, reset_p95_ms {p95:.1f}, "
          f"hash_stable {'yes' if stable else 'no'}, proven {proven}/{len(proofs)}")


def proof_results(apps: list[str], args: argparse.Namespace) -> list:
    """The proofs of the measured apps' tasks (read, or run now), printed as tables."""
    from rich.console import Console

    from colorbrowser.arena.prove import prove, read_proofs
    from colorbrowser.arena.report import proof_tables

    if args.proofs is not None:
        proofs = read_proofs(args.proofs)
    else:
        out = Path(tempfile.mkdtemp(prefix="arena-prove-"))
        proofs = prove(f"arena:{','.join(apps)}", None, out, workers=args.workers)
    console = Console(width=100, force_terminal=False, color_system=None)
    for table in proof_tables(proofs):
        console.print(table)
    return proofs


def agent_table(apps: list[str], args: argparse.Namespace) -> None:
    """Success of the replay agents (oracle, random, ...) through `eval arena --replay`."""
    from rich.console import Console

    from colorbrowser.arena.plans import plans, write_script
    from colorbrowser.config import load_settings
    from colorbrowser.evaluation.coordinator import StudyOptions, run_study

    suite = f"arena:{','.join(apps)}"
    root = Path(tempfile.mkdtemp(prefix="arena-agents-"))
    settings = load_settings(overrides={("browser", "screenshots"): False})
    print(f"{'agent':8} {'tasks':>6} {'success':>8}  command")
    for agent in args.agents.split(","):
        tasks = args.tasks
        if agent == "offline":  # the offline default model (SmolLM2-135M), no script
            tasks = args.offline_tasks or args.tasks
            steps = args.offline_steps
            run_settings = load_settings(overrides={("browser", "screenshots"): False,
                                                    ("agent", "max_steps"): steps})
            options = StudyOptions(suite=suite, study_dir=root / agent, tasks=tasks,
                                   workers=args.workers, timeout=600)
            how = f"colorbrowser eval {suite} --max-steps {steps}"
        else:
            script = root / f"{agent}.yaml"
            write_script(plans(agent), script)
            run_settings = settings
            options = StudyOptions(suite=suite, study_dir=root / agent, tasks=tasks,
                                   workers=args.workers, replay=script, timeout=180)
            how = (f"colorbrowser arena plans {agent} -o {agent}.yaml && "
                   f"colorbrowser eval {suite} --replay {agent}.yaml")
        records = run_study(options, run_settings, Console(stderr=True, quiet=True)).records
        ok = sum(r.success for r in records)
        print(f"{agent:8} {len(records):6} {100 * ok / max(len(records), 1):7.1f}%  "
              + how + (f" --tasks '{tasks}'" if tasks else ""))


if __name__ == "__main__":
    main()
