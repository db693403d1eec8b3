"""The exploration benchmark's plot: distinct states against actions, read from the run
folders' saved state, one line per method (seeds averaged) and one panel per app."""

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

from colorbrowser.explore.state import ExploreState

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "explore_plot.py"


def _module():
    spec = importlib.util.spec_from_file_location("explore_plot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["explore_plot"] = module
    spec.loader.exec_module(module)
    return module


def _run(folder: Path, new_state_at: list[int], finished: bool = True) -> Path:
    folder.mkdir(parents=True)
    ExploreState(start_url="http://h/", strategy="ours", seed=0,
                 new_state_at=new_state_at).save(folder)
    if finished:
        (folder / "graph.json").write_text("{}")
    return folder


def test_a_curve_counts_states_known_after_each_action_and_stays_flat_after_the_last():
    plot = _module()
    assert plot.curve([0, 2, 2, 5], 7) == [1, 1, 3, 3, 3, 4, 4, 4]


def test_seeds_are_averaged_and_unfinished_runs_left_out(tmp_path):
    plot = _module()
    runs = [("ours", _run(tmp_path / "a", [0, 1, 2])), ("ours", _run(tmp_path / "b", [0, 3])),
            ("random", _run(tmp_path / "c", [0, 1, 2, 3], finished=False)),
            ("random", _run(tmp_path / "d", [0]))]
    curves = plot.app_curves(runs, 3)
    assert curves == {"ours": [1.0, 1.5, 2.0, 2.5], "random": [1.0, 1.0, 1.0, 1.0]}


def test_the_plot_has_a_panel_per_app_and_a_line_per_method(tmp_path):
    plot = _module()
    apps = {"demo": {"ours": [1, 2, 3], "random": [1, 1, 2]},
            "trac": {"ours": [1, 3, 5], "bfs": [1, 2, 2], "dfs": [1, 1, 1]}}
    out = plot.plot(apps, tmp_path / "states.svg", "Distinct states")
    svg = out.read_text()
    assert len(re.findall(r'<g id="axes_\d+"', svg)) == 2
    texts = set(re.findall(r">([^<>]+)</text>", svg))
    assert {"demo", "trac", "ours", "random", "bfs", "dfs", "Distinct states"} <= texts
    # a line per method in each panel, and one per method in the legend below them
    colours = re.findall(r'<g id="line2d_\d+">\s*<path d="[^"]+"[^>]*style="[^"]*stroke: #'
                         r"(d1242f|8c959f|0969da|8250df)", svg)
    assert Counter(colours) == {"d1242f": 3, "8c959f": 2, "0969da": 2, "8250df": 2}
    assert plot.plot({"demo": {}}, tmp_path / "none.svg", "x") is None
