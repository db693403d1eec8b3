"""The curve behind explore.py's first columns: distinct states found against actions
taken, one line per method (its seeds averaged), one panel per app. Read from the run
folders' saved state (the action count at each new state), so it costs no browser:
explore.py draws it after its tables, and this script alone draws it from the runs
finished so far while a measurement is still going (no app is started):

    PYTHONPATH=src python benchmarks/explore_plot.py --work DIR --apps demo,trac \
        --seeds 1 --budget 150 --out states.svg
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

from colorbrowser.explore.state import load_state

COLOURS = {"ours": "#d1242f", "random": "#8c959f", "bfs": "#0969da", "dfs": "#8250df",
           "curiosity": "#bf8700"}


def curve(new_state_at: list[int], budget: int) -> list[int]:
    """States known after each action 0..budget (a run that stopped early stays flat)."""
    counts = [0] * (budget + 1)
    for at in new_state_at:
        if at <= budget:
            counts[at] += 1
    total = 0
    for i, n in enumerate(counts):
        total += n
        counts[i] = total
    return counts


def app_curves(runs: list[tuple[str, Path]], budget: int) -> dict[str, list[float]]:
    """Method -> mean states after each action, over its finished runs."""
    by_method: dict[str, list[list[int]]] = {}
    for method, folder in runs:
        state = load_state(folder)
        if state is not None and (folder / "graph.json").exists():
            by_method.setdefault(method, []).append(curve(state.new_state_at, budget))
    return {m: [statistics.fmean(col) for col in zip(*cs, strict=True)]
            for m, cs in by_method.items()}


def plot(apps: dict[str, dict[str, list[float]]], out: Path, title: str) -> Path | None:
    """One panel per app; None when nothing finished yet. SVG or PNG by ``out``'s suffix."""
    apps = {a: c for a, c in apps.items() if c}
    if not apps:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9,
                         "svg.hashsalt": "colorbrowser"})  # the same runs: the same file
    cols = min(3, len(apps))
    rows = math.ceil(len(apps) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(max(3.6 * cols, 7.2), 2.7 * rows + 0.6),
                             squeeze=False)
    for ax, (app, curves) in zip(axes.flat, apps.items(), strict=False):
        for method, ys in curves.items():
            ax.plot(range(len(ys)), ys, label=method, color=COLOURS.get(method),
                    drawstyle="steps-post",
                    linewidth=2.2 if method == "ours" else 1.3, zorder=3 if method == "ours" else 2)
        ax.set_title(app)
        ax.set_xlabel("actions")
        ax.set_ylabel("distinct states")
        ax.grid(alpha=0.3)
        ax.set_xlim(0, max(len(ys) for ys in curves.values()) - 1)
        ax.set_ylim(bottom=0)
    for ax in list(axes.flat)[len(apps):]:
        ax.axis("off")
    legend = {}  # every method of every panel, once
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    fig.legend(list(legend.values()), list(legend), loc="lower center", ncol=len(legend),
               frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None,
                dpi=110)
    plt.close(fig)
    return out


def title(seeds: int, budget: int) -> str:
    return ("Distinct states against actions ("
            + (f"{seeds} seeds averaged" if seeds > 1 else "1 seed") + f", budget {budget})")


def main() -> None:
    from explore import planned_runs  # explore.py imports this module: not at the top

    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--apps", default="demo,trac")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=int, default=500)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    apps = [a.strip() for a in args.apps.split(",") if a.strip()]
    curves = {app: app_curves([(s, f) for s, _, f in planned_runs(
        app, args.seeds, args.budget, args.work)], args.budget) for app in apps}
    for app, by_method in curves.items():
        print(f"{app}: " + (", ".join(f"{m} {ys[-1]:.1f} states at {len(ys) - 1}"
                                      for m, ys in by_method.items()) or "no finished run"))
    drawn = plot(curves, args.out or args.work / "states-per-action.svg",
                 title(args.seeds, args.budget))
    print(f"plot: {drawn}" if drawn else "plot: no finished run")


if __name__ == "__main__":
    main()
