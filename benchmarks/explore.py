"""Self-exploration: ours (SCALE-Hop) against a random clicker, breadth- and depth-first
link crawlers and a count-based curiosity explorer, on the same loop, budget and state
key, per app and seed.

    PYTHONPATH=src python benchmarks/explore.py                         # demo + trac, 5 seeds, 500
    PYTHONPATH=src python benchmarks/explore.py --apps demo,trac,shop,forum,wiki,tracker
    PYTHONPATH=src python benchmarks/explore.py --apps demo --seeds 1 --budget 100
    PYTHONPATH=src python benchmarks/explore.py --apps trac,shop --jobs 2   # apps side by side
    PYTHONPATH=src python benchmarks/explore.py --work ~/explore-runs     # stop at any time;
                                    # the same command again reads finished runs, resumes the rest
    PYTHONPATH=src python benchmarks/explore.py --work ~/explore-runs --finished-only
                                    # the same command plus this flag, once the measurement
                                    # is stopped: tables of the runs finished so far (the
                                    # tasks' addresses hold the measurement's ports)
    PYTHONPATH=src python benchmarks/explore.py --work ~/explore-runs --methods random,curiosity
                                    # run only these methods; the others' finished
                                    # runs are read (measure in parts, in any order)

Columns: distinct states per 100 actions (reached within the first 100 actions; an
explorer that has explored everything stops early, so a plain ratio would punish it)
and at the end of the budget (ours counts as ahead with more states, or as many
reached in fewer actions); distinct addresses at the end (Go-Browse's exact-URL key,
beside our state key); route coverage (URL templates reached, as a
share of every template any method reached on that app over all seeds: the app's known
routes); Predictor accuracy per check and its abstain rate (ours); tasks kept after
de-duplication and proof, the share proposed that passed, and the kept ones by kind
(ours); safety (requests off the allowlist, writes guarded, tried and undone); backtracking cost
by method (actions, seconds), per hop and per new state found after its hops before
the next. Then every kept task is proved again in a separate
browser on a fresh reset (``reproved``). Arena apps run on their own instance (default
7) so a person's arena on instance 0 is left alone. The last line is the summary:
``explore: apps N, ahead_on_states K/N, ahead_on_routes K/N, tasks_kept T, reproved P%``.
Beside the tables, a plot of distinct states against actions, one line per method (its
seeds averaged) and one panel per app, from every finished run (``--plot FILE``, .svg or
.png; default ``WORK/states-per-action.svg``; explore_plot.py).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import multiprocessing
import os
import signal
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import UserError
from colorbrowser.explore.backtrack import HopYield, hop_yields
from colorbrowser.explore.baselines import SEEDLESS, STRATEGIES
from colorbrowser.explore.run import ExploreRequest, explore
from colorbrowser.explore.sandbox import BrowserStorageSandbox
from colorbrowser.explore.state import load_state
from colorbrowser.explore.validate import TASKS_FILE, load_tasks, reprove
from explore_plot import app_curves, plot, title


def start_app(name: str, stack: contextlib.ExitStack, instance: int, work: Path):
    """(start URL, sandbox or 'browser') for the demo shop or an arena app."""
    if name == "demo":  # served where earlier runs in ``work`` saw it, so they resume
        from colorbrowser.explore.cli import demo_site
        from colorbrowser.explore.state import STATE_FILE

        earlier = sorted(p for p in (work / "demo").glob("*") if (p / STATE_FILE).exists())
        return demo_site(stack, earlier[0] if earlier else work / "demo").url, "browser"
    from colorbrowser.arena import Arena
    from colorbrowser.explore.cli import ArenaSandbox

    arena = Arena(instance)
    arena.down([name])  # the benchmark's own instance: left running by a stopped run
    arena.up([name])
    stack.callback(arena.down, [name])
    return arena.base_url(name) + "/", ArenaSandbox(arena, name)


def planned_runs(app: str, seeds: int, budget: int, work: Path):
    """(strategy, seed, folder) of every run an app's section reads, in order."""
    for seed in range(seeds):
        for strategy in STRATEGIES:
            if seed and strategy in SEEDLESS:  # it would repeat its seed-0 run
                continue
            yield strategy, seed, work / app / f"{strategy}-{seed}-b{budget}"


def finished_files(strategy: str) -> list[str]:
    """Written once a run has ended: graph.json when the loop has (its budget spent,
    everything explored, or no hop left it could pay for), tasks.json after it."""
    return ["graph.json"] + ([TASKS_FILE] if strategy == "ours" else [])


def one_run(start: str, sandbox, strategy: str, seed: int, budget: int, folder: Path,
            finished_only: bool = False) -> dict | None:
    request = ExploreRequest(start_url=start, budget=budget, out=folder, seed=seed,
                             strategy=strategy, allow_hosts=["127.0.0.1"], screenshots="none",
                             tasks=strategy == "ours", sandbox=sandbox)
    state = load_state(folder)
    done = state is not None and all((folder / f).exists() for f in finished_files(strategy))
    if not done and finished_only:
        return None
    if not done:  # a new run, or one an earlier invocation left unfinished: resumed
        if hasattr(sandbox, "reset"):
            sandbox.reset()
        explore(request, say=lambda _: None)
        state = load_state(folder)
    templates = {n.template.split("#")[0] for n in state.graph.nodes.values()}
    hops = hop_yields(state.hops, state.new_state_at)
    kept_tasks = load_tasks(folder)[0] if strategy == "ours" else []
    kept = {t["intent"] for t in kept_tasks}
    kinds = {t["intent"]: t["synthesised"]["kind"] for t in kept_tasks}
    tried = 0  # tasks proved after de-duplication: kept ones and failed ones
    if strategy == "ours":
        tried = len(load_tasks(folder)[0]) + len(
            json.loads((folder / "tasks.rejected.json").read_text("utf-8")))
    early = sum(1 for at in state.new_state_at if at <= 100)
    last = max(state.new_state_at, default=0)
    return {"states": len(state.graph.nodes), "early": early, "last": last,
            "used": max(state.used, 1), "routes": templates, "urls": len(state.urls),
            "tally": state.tally, "hops": hops, "kept": kept, "kinds": kinds, "folder": folder,
            "off_list": len(state.off_list), "blocked": len(state.blocked),
            "passed": len(load_tasks(folder)[0]) if strategy == "ours" else 0, "tried": tried}


SECTION_FILE = "section.json"
SECTION_VERSION = "1"  # raise it when a section's text or tallies change


def _runs_key(app: str, seeds: int, budget: int, work: Path) -> str | None:
    """A fingerprint of every run the app's section reads, or None while one of them is
    unfinished: a finished app's section (reproof included) is kept and read back when
    the measurement is resumed or printed again."""
    digest = hashlib.sha256(SECTION_VERSION.encode())
    for strategy, _, folder in planned_runs(app, seeds, budget, work):
        for name in finished_files(strategy):
            if not (folder / name).exists():
                return None
            digest.update(folder.name.encode() + (folder / name).read_bytes())
    return digest.hexdigest()


def one_app(app: str, seeds: int, budget: int, instance: int, work: Path,
            finished_only: bool = False, methods: tuple[str, ...] = STRATEGIES) -> dict | None:
    """The app's section, measured once every run on it has finished; kept in
    ``work/app/section.json`` and read back while those runs are unchanged (delete it
    to prove the tasks again)."""
    key = _runs_key(app, seeds, budget, work)
    kept_section = work / app / SECTION_FILE
    if key and kept_section.exists():
        with contextlib.suppress(ValueError, KeyError):
            section = json.loads(kept_section.read_text("utf-8"))
            if section["key"] == key:
                return section["result"]
    result = _measure_app(app, seeds, budget, instance, work, finished_only, methods)
    key = key or _runs_key(app, seeds, budget, work)  # finished runs stay as they were
    if result is not None and key:
        kept_section.write_text(json.dumps({"key": key, "result": result}), "utf-8")
    return result


def _measure_app(app: str, seeds: int, budget: int, instance: int, work: Path,
                 finished_only: bool, methods: tuple[str, ...]) -> dict | None:
    """Every method and seed on one app; the printed section and the app's tallies.
    Only ``methods`` are run; the others' finished runs are read. None when some method
    has no finished run on it yet."""
    lines: list[str] = []
    say = lines.append
    with contextlib.ExitStack() as stack:
        start, sandbox = start_app(app, stack, instance, work)
        runs: dict[str, list[dict]] = {s: [] for s in STRATEGIES}
        for strategy, seed, folder in planned_runs(app, seeds, budget, work):
            run = one_run(start, sandbox, strategy, seed, budget, folder,
                          finished_only or strategy not in methods)
            if run is not None:
                runs[strategy].append(run)
        if not all(runs.values()):
            return None
        known = set().union(*(r["routes"] for rs in runs.values() for r in rs))
        counted = f"{seeds} seeds"
        if any(len(rs) < (1 if s in SEEDLESS else seeds) for s, rs in runs.items()):
            counted = "finished runs only: " + ", ".join(
                f"{s} {len(rs)}" for s, rs in runs.items()) + f" of {seeds} seeds"
        say(f"\n## {app} ({counted}, budget {budget}, {len(known)} routes known)\n")
        if seeds > 1:
            say(f"{' and '.join(SEEDLESS)} draw no random numbers: one run each, "
                "as every seed would repeat it.\n")
        say("| method | states in first 100 actions | states at budget | addresses at budget "
            "| route coverage | backtracking: actions / s per hop, and per new state found "
            "after it |")
        say("| --- | --- | --- | --- | --- | --- |")
        per100, cover, sooner = {}, {}, {}
        for strategy, rs in runs.items():
            per100[strategy] = statistics.mean(r["early"] for r in rs)
            states = statistics.mean(r["states"] for r in rs)
            last = statistics.mean(r["last"] for r in rs)
            sooner[strategy] = (per100[strategy], -last)
            cover[strategy] = statistics.mean(len(r["routes"]) / max(len(known), 1) for r in rs)
            hops: dict[str, HopYield] = defaultdict(HopYield)
            for r in rs:
                for method, got in r["hops"].items():
                    hops[method].add(got)
            cost = "; ".join(_hop_cost(m, y) for m, y in sorted(hops.items())) or "-"
            urls = statistics.mean(r["urls"] for r in rs)
            say(f"| {strategy} | {per100[strategy]:.1f} | {states:.1f} (last new at "
                f"{last:.0f}) | {urls:.1f} | {cover[strategy]:.0%} | {cost} |")
        others = [s for s in runs if s != "ours"]
        checks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        predictions = abstained = 0
        for r in runs["ours"]:
            predictions += r["tally"].predictions
            abstained += r["tally"].abstained
            for name, (right, total) in r["tally"].checks.items():
                checks[name][0] += right
                checks[name][1] += total
        # "db" is judged only where a read wrote rows or was predicted to (learned): of
        # those, how many the Predictor foresaw
        db_right, db_all = checks.pop("db", [0, 0])
        acc = ", ".join(f"{k} {r / t:.0%}" for k, (r, t) in sorted(checks.items()) if t)
        # a task two seeds both found counts once
        kept = len(set().union(*(r["kept"] for r in runs["ours"])))
        passed = sum(r["passed"] for r in runs["ours"])
        tried = sum(r["tried"] for r in runs["ours"])
        say(f"\npredictor: {acc}; abstained {abstained / max(predictions, 1):.0%} "
            f"of {predictions}; reads writing rows foreseen {db_right} of {db_all}; tasks kept "
            f"{kept}; passed validation after de-duplication "
            f"{passed}/{tried} ({passed / max(tried, 1):.0%})")
        kinds: dict[str, str] = {}
        for r in runs["ours"]:
            kinds.update(r["kinds"])
        by_kind = ", ".join(f"{k} {n}" for k, n in sorted(Counter(kinds.values()).items()))
        asked = sum(1 for k in kinds.values() if k == "question")
        say(f"kept tasks by kind: {by_kind or 'none'}; checked by string_match rather than "
            f"the address alone: {asked / max(len(kinds), 1):.0%}")
        every = [r for rs in runs.values() for r in rs]
        writes = [r["tally"] for r in runs["ours"]]
        say(f"safety, over all {len(every)} runs: requests to hosts off the allowlist blocked "
            f"{sum(r['off_list'] for r in every)} (none sent), non-GET requests stopped by "
            f"the write guard {sum(r['blocked'] for r in every)}; ours tried "
            f"{sum(t.writes_tried for t in writes)} writes (undone by "
            f"{sum(t.restores for t in writes)} restores) and skipped "
            f"{sum(t.writes_skipped for t in writes)}")
        settings = BrowserSettings(allow_hosts=["127.0.0.1"])
        proofs_ok = proofs_all = 0
        with BrowserEnv(settings) as env:
            env.reset(None)
            box = (BrowserStorageSandbox(lambda: env.session.context)
                   if sandbox == "browser" else sandbox)
            for r in runs["ours"]:
                proofs = reprove(r["folder"], env, box)
                proofs_ok += sum(p.ok for p in proofs)
                proofs_all += len(proofs)
                for p in proofs:
                    if not p.ok:  # named, so a failed proof can be looked into
                        say(f"reproof failed: {r['folder'].name} {p.task_id}: path {p.path:g}, "
                            f"nothing {p.nothing:g}, start {p.start:g} {p.error}".rstrip())
    # more states in the first 100 actions, or as many reached in fewer actions
    return {"text": "\n".join(lines),
            "ahead_states": all(sooner["ours"] > sooner[s] for s in others),
            "ahead_routes": all(cover["ours"] >= cover[s] for s in others),
            "kept": kept, "proofs_ok": proofs_ok, "proofs_all": proofs_all}


def _hop_cost(method: str, got: HopYield) -> str:
    per_state = (f"{got.actions / got.new_states:.1f} / {got.seconds / got.new_states:.2f}"
                 if got.new_states else "no new state")
    return (f"{method} {got.actions / got.hops:.1f} / {got.seconds / got.hops:.2f}, "
            f"{per_state}")


def measure_app(app: str, seeds: int, budget: int, instance: int, work: Path,
                finished_only: bool, methods: tuple[str, ...] = STRATEGIES) -> dict | None:
    """one_app; with ``finished_only`` an app it cannot serve now (a running measurement
    holds the demo shop's port) is reported as skipped rather than ending the report."""
    try:
        return one_app(app, seeds, budget, instance, work, finished_only, methods)
    except UserError as exc:
        if not finished_only:
            raise
        return {"skipped": str(exc)}
    except SystemExit:  # stopped: the app is down by now; a pool worker takes no next app
        if multiprocessing.parent_process() is not None:
            os._exit(143)
        raise


def _stop(*_: object) -> None:
    """SIGTERM: stop the pool's workers too (a worker unwinds its app and exits), then
    unwind here, so the apps are stopped and the runs saved as they are."""
    for child in multiprocessing.active_children():
        child.terminate()
    sys.exit(143)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--apps", default="demo,trac")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=int, default=500)
    ap.add_argument("--instance", type=int, default=7,
                    help="arena instance of the first app; with --jobs, app i uses instance+i")
    ap.add_argument("--jobs", type=int, default=1, help="apps explored at the same time")
    ap.add_argument("--methods", default=",".join(STRATEGIES),
                    help="run only these; the others' finished runs in --work are read")
    ap.add_argument("--finished-only", action="store_true",
                    help="print what the runs already finished in --work measured; start "
                         "and resume none (same --apps, --instance and --jobs as the "
                         "measurement: its tasks hold those ports)")
    ap.add_argument("--plot", type=Path, default=None,
                    help="where the plot of distinct states against actions goes, .svg or "
                         ".png (default: WORK/states-per-action.svg)")
    ap.add_argument("--work", type=Path, default=None,
                    help="keep the runs here (default: a new temporary folder); the same "
                         "command with the same folder reads the finished runs and resumes "
                         "the rest, so a long measurement can be done in parts")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, _stop)
    apps = [a.strip() for a in args.apps.split(",") if a.strip()]
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    if unknown := sorted(set(methods) - set(STRATEGIES)):
        ap.error(f"unknown method {', '.join(unknown)} (known: {', '.join(STRATEGIES)})")
    work = args.work or Path(tempfile.mkdtemp(prefix="explore-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(measure_app, app, args.seeds, args.budget, args.instance + i,
                                   work, args.finished_only, methods)
                       for i, app in enumerate(apps)]
            measured = [f.result() for f in futures]
    else:
        measured = [measure_app(app, args.seeds, args.budget, args.instance, work,
                                args.finished_only, methods) for app in apps]
    results = []
    for app, result in zip(apps, measured, strict=True):
        if result is None:
            print(f"\n## {app}: not every method has a finished run yet")
        elif "skipped" in result:
            print(f"\n## {app}: skipped ({result['skipped']})")
        else:
            print(result["text"])
            results.append(result)
    # every finished run, a section's or not
    curves = {app: app_curves([(s, f) for s, _, f in planned_runs(
        app, args.seeds, args.budget, work)], args.budget) for app in apps}
    drawn = plot(curves, args.plot or work / "states-per-action.svg",
                 title(args.seeds, args.budget))
    if drawn:
        print(f"\nplot: {drawn}")
    proofs_all = sum(r["proofs_all"] for r in results)
    proofs_ok = sum(r["proofs_ok"] for r in results)
    # never rounded up to 100: one failure in a thousand reads 99.9
    reproved = "100" if proofs_all and proofs_ok == proofs_all else \
        f"{math.floor(1000 * proofs_ok / max(proofs_all, 1)) / 10:.1f}"
    print(f"\nexplore: apps {len(results)}, "
          f"ahead_on_states {sum(r['ahead_states'] for r in results)}/{len(results)}, "
          f"ahead_on_routes {sum(r['ahead_routes'] for r in results)}/{len(results)}, "
          f"tasks_kept {sum(r['kept'] for r in results)}, reproved {reproved}%")


if __name__ == "__main__":
    main()
