"""Learned workflows on the arena: held-out siblings, the bare-script limit, changed
pages, exploration and the copilot's second pass.

    COLORBROWSER_CACHE=/work/arena-cache PYTHONPATH=src \\
        python benchmarks/workflows.py --instance 23 [--quick] [--operator-sample 1]

1. **Families.** The arena's tasks are grouped by task file and ``intent_template_id``
   (the same question about another ticket, product, topic or article); a family has two
   or more instances. The first instance of each family teaches: its oracle plan is
   played by the replay agent through the usual episode runner on a freshly reset app,
   and the workflow is learned from that **recorded run folder** (``workflows/learn.py``),
   never from the plan file.
2. **Held-out siblings.** Every other instance runs on a fresh reset, in the same run:
   (a) the offline Operator alone (SmolLM2 through the offline server, workflows off) and
   (b) workflows on, with the same offline Operator as the fallback that heals a missed
   step. Success is the task's own evaluator; model calls and prompt tokens are the
   episode's usage; wall time is the episode's. The Operator-alone arm is slow on two
   cores: ``--operator-sample N`` runs it on the first N held-out instances of each
   family (the table says how many ran). ``heldout_success`` is over all held-out
   tasks: those of a family that taught no workflow count as failed (not run).
3. **Near the limit.** For each task the workflow solved without the Operator, the same
   resolved actions (its steps with the task's values) run again as a bare Playwright
   script on a fresh reset: ``get_by_role`` and the action, ``wait_for_load_state()``
   after each, no observation, no checks, no record. Both start on the page the task's
   setup opened, with the clock started after the setup: the episode's time is its
   whole ``run()`` (``EpisodeClock``), the script's its actions. ``time_vs_bare`` is the
   median ratio of the episode's time to the script's; the line after it splits the
   episodes' steps into observe, decide, act, record and other (mean ms per step).
4. **Changed pages.** Each held-out task whose workflow has element steps runs again with
   its pages rewritten (``arena/pagechanges.py``: a label renamed, its row or menu item
   swapped, an extra element of the same role and name before it, the element removed;
   the target is one of the workflow's step targets, drawn by the seed), by workflows
   with the Operator fallback and by blind replay (the same steps, first match, no
   checks). Counted: steps healed, decisions handed to the Operator, and actions on a
   decoy, split by who took them (a workflow step, the Operator, blind replay).
5. **From exploration alone.** ``explore APP --workflows`` runs on every single-site app
   of the chosen task files (``--explore-budget`` actions, at most ``--explore-tasks``
   proved tasks per app; the explorer never sees the arena's tasks or plans), into a
   knowledge base of its own. Then every hand-written arena task of those apps is
   matched against the workflows it learned: a task whose goal fits one runs as an
   episode on a fresh reset (workflows on; no model with ``--no-model``) and is scored by
   its own evaluator; a task none fits is not solved (no workflow answers it, and
   without a model nothing does). ``from_exploration E/N``: solved of the N tasks.
   The **copilot second pass** is ``benchmarks/copilot_study.py``'s, not run here.

The last line is the summary the README quotes:
``workflows: families N, heldout_success S%, model_calls_saved C%, wrong_element W,
healed H, from_exploration E/165, time_vs_bare X``.

The shared parts are in ``workflows_bench.py``; the measurements in
``workflows_siblings.py`` (1, 2), ``workflows_bare.py`` (3, with the clock and the
script of ``workflows_timing.py``), ``workflows_changed.py`` (4) and
``workflows_explored.py`` (5); this script runs them and prints the contract line.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from colorbrowser.arena.pagechanges import KINDS
from workflows_bare import bare_report
from workflows_bench import Bench, Family, families, pct
from workflows_changed import changed, changed_report
from workflows_explored import Explored, exploration_figure, exploration_report, from_exploration
from workflows_siblings import heldout, record_teachers, siblings_report, store_and_prove

QUICK_GROUPS = ("trac",)


def report(bench: Bench, fams: list[Family], explored: Explored, elapsed: float) -> None:
    """Every measurement's lines, then the contract line the README quotes."""
    say = print
    success, heldout_tasks, saved = siblings_report(bench, fams, say)
    ratio = bare_report(bench, say)
    wrong_wf, healed = changed_report(bench, say)
    exploration_report(explored, say)
    say("copilot second pass with workflows: see benchmarks/copilot_study.py "
        "(not run here)")
    say(f"outcomes and run folders: {bench.out} ({elapsed:.0f} s)")
    say(f"workflows: families {len(fams)}, heldout_success {pct(success, heldout_tasks)}, "
        f"model_calls_saved {f'{100 * saved:.0f}%' if saved is not None else '-'}, "
        f"wrong_element {wrong_wf}, healed {healed}, "
        f"from_exploration {exploration_figure(explored)}, "
        f"time_vs_bare {f'{ratio:.2f}' if ratio is not None else '-'}")


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instance", type=int, default=23)
    p.add_argument("--quick", action="store_true",
                   help=f"only the families of {', '.join(QUICK_GROUPS)} (a smoke test)")
    p.add_argument("--groups", default="", help="task files to use, e.g. trac,wiki")
    p.add_argument("--tasks", default="",
                   help="only families with a task matching these globs (comma-separated)")
    p.add_argument("--operator-sample", type=int, default=1,
                   help="held-out instances per family the Operator alone runs (0: none)")
    p.add_argument("--kinds", default=",".join(KINDS),
                   help="kinds of page change to run (comma-separated)")
    p.add_argument("--changed-sample", type=int, default=0,
                   help="changed-page runs at most, drawn by the seed (0: all)")
    p.add_argument("--no-model", action="store_true",
                   help="no offline model: the Operator arm is skipped and misses end runs")
    p.add_argument("--max-steps", type=int, default=10,
                   help="decisions of the Operator-alone arm (each one a model call)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per episode")
    p.add_argument("--model-timeout", type=float, default=120.0,
                   help="the offline model's client timeout in seconds; one call may "
                        "take it times (max_retries + 1), in one attempt")
    p.add_argument("--explore-budget", type=int, default=150,
                   help="browser actions the explorer spends per app for the "
                        "from-exploration figure (0: not run)")
    p.add_argument("--explore-tasks", type=int, default=40,
                   help="tasks the explorer proves per app at most (each one a workflow "
                        "candidate)")
    p.add_argument("--exploration-only", action="store_true",
                   help="measure only the from-exploration figure (no oracle runs, no "
                        "held-out siblings, no changed pages)")
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--cache", type=Path, default=None, help="arena cache")
    return p.parse_args(argv)


def chosen_families(args: argparse.Namespace) -> list[Family]:
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    if args.quick and not groups:
        groups = list(QUICK_GROUPS)
    patterns = [t.strip() for t in args.tasks.split(",") if t.strip()]
    return [f for f in families() if (not groups or f.group in groups) and
            (not patterns or any(fnmatch.fnmatch(t, p) for t in f.tasks for p in patterns))]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    from colorbrowser.arena.instances import INSTANCE_VAR

    os.environ[INSTANCE_VAR] = str(args.instance)
    from colorbrowser.arena.suite import ArenaSuite
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.run.factory import open_model

    console = Console(stderr=True)
    fams = chosen_families(args)
    if not fams:
        print("error: no family of tasks matches the chosen groups", file=sys.stderr)
        return 2
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        out = args.out or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="workflows-bench-")))
        if args.out is not None:
            out.mkdir(parents=True, exist_ok=True)
        bench = Bench(args, out, console)
        apps = sorted({f.group for f in fams} & {"trac", "shop", "forum", "wiki", "tracker"})
        suite = ArenaSuite(None if "multi" in {f.group for f in fams} else apps,
                           cache=args.cache)
        stack.callback(suite.close)
        env = BrowserEnv(bench.settings(workflows="off").browser)
        stack.callback(env.close)
        from colorbrowser.evaluation.replay import NoModel

        model: Any = NoModel()  # --no-model: a step handed to the Operator ends in error
        if not args.no_model:
            base = bench.settings(workflows="off")
            with console.status("Starting the offline model (SmolLM2)…"):
                model = open_model(base.model, stack, base.paths.cache)
            bench.model = model
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            if not args.exploration_only:
                record_teachers(bench, suite, env, fams, progress)
                store_and_prove(bench, suite, env, fams, progress)
                heldout(bench, suite, env, model, fams, progress)
                changed(bench, suite, env, model, fams, progress)
            explored = from_exploration(bench, suite, env, fams, progress)
        (out / "outcomes.json").write_text(json.dumps(
            {"outcomes": [asdict(o) for o in bench.outcomes], "bare": bench.bare,
             "breakdown": [{"seconds": c.seconds, "steps": c.steps, "parts": dict(c.parts),
                            "end": c.end, "bare": b} for c, b in bench.breakdown],
             "not_learned": bench.not_learned}, indent=1), "utf-8")
        report(bench, fams, explored, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
