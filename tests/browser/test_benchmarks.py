"""The observation and step-overhead benchmarks run, and their coverage check is sound.

The speed targets themselves are proved by the benchmark scripts (ratios against
BrowserGym measured in the same run), not here.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from colorbrowser.types import ElementInfo, Observation

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
FINAL_OBS = re.compile(r"^big page: time ratio (\d+\.\d\d), token ratio (\d+\.\d\d), "
                       r"coverage (\d+\.\d)%$")


def run_script(*args: str, timeout: int) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="140")
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_observation_benchmark_quick_mode_prints_table_and_final_line():
    done = run_script("benchmarks/observation.py", "--runs", "2", "--pages", "big",
                      "--no-reference", timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "big page: time ratio n/a, token ratio n/a, coverage n/a"
    row = next(line for line in lines if line.startswith("│ big"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert re.fullmatch(r"\d+ / \d+", cells[1])  # our median / p90 ms
    assert int(cells[4].replace(",", "")) > 5000  # our tokens on the 500+ control page


def test_observation_benchmark_rejects_unknown_pages():
    done = run_script("benchmarks/observation.py", "--pages", "nope", "--no-reference",
                      timeout=60)
    assert done.returncode == 2
    assert "unknown page nope" in done.stderr


@pytest.mark.slow
def test_observation_benchmark_against_browsergym_on_the_big_page():
    """The real comparison (the reference venv is created on first use)."""
    done = run_script("benchmarks/observation.py", "--runs", "2", "--pages", "big",
                      timeout=280)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    final = FINAL_OBS.match(done.stdout.strip().splitlines()[-1])
    assert final, done.stdout[-500:]
    time_ratio, token_ratio, cover = map(float, final.groups())
    assert time_ratio > 0 and 0 < token_ratio < 1  # ours is smaller; timing is not asserted
    assert cover == 100.0


def test_step_overhead_benchmark_quick_mode():
    done = run_script("benchmarks/step_overhead.py", "--steps", "10", "--per-episode", "5",
                      timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.fullmatch(r"step overhead median_ms=\d+\.\d rss_growth=-?\d+\.\d%", lines[-1])
    assert any("Python + driver + Chromium PSS" in line for line in lines)


def test_committed_corpus_matches_its_generator():
    spec = importlib.util.spec_from_file_location("generate", BENCH / "corpus" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.pages().items():
        assert (BENCH / "corpus" / name).read_text(encoding="utf-8") == text, name


# -- the coverage check itself ---------------------------------------------------------

THEIRS = """RootWebArea 'Shop', focused
\t[5] heading 'Orders'
\t\tStaticText 'Orders'
\t[6] button 'Save', focused
\t[7] textbox 'City' value='Lyon', required
\t[8] image 'Logo'
\t[9] DisclosureTriangle 'More'
\t[10] Date ''
\t\t[10] spinbutton 'Month' value=0
\t\t\tStaticText 'mm'
\tStaticText "It's here"
\t[11] link 'Gone'"""
PATHS = {str(i): f"html[0]/body[1]/x[{i}]" for i in range(5, 12)}


def our_obs() -> tuple[Observation, str, dict[str, str]]:
    elements = [ElementInfo("a", "heading", "Orders"),
                ElementInfo("b", "button", "Save", interactive=True),
                ElementInfo("c", "textbox", "City", interactive=True, states={"value": "Lyon"}),
                ElementInfo("d", "img", "Logo"),
                ElementInfo("e", "button", "More", interactive=True),
                ElementInfo("f", "textbox", "", interactive=True,
                            states={"format": "yyyy-mm-dd"})]
    text = ("[a] heading 'Orders' level=1\n[b] button 'Save'\n[c] textbox 'City' "
            "value='Lyon'\n[d] img 'Logo'\n[e] button 'More'\n[f] textbox format=yyyy-mm-dd\n"
            "text: It\\'s here")
    paths = {b: f"html[0]/body[1]/x[{i}]" for b, i in zip("abcdef", range(5, 11), strict=True)}
    obs = Observation(url="u", title="t", axtree=text, elements={e.bid: e for e in elements})
    return obs, text, paths


def test_coverage_matches_controls_by_dom_path_and_text_by_content():
    compare = load("obs_compare")
    obs, text, paths = our_obs()
    result = compare.coverage({"text": THEIRS, "paths": PATHS}, obs, text, paths)
    # Controls: button, textbox, disclosure triangle, date (one control, two lines), link.
    assert result.controls == 5 and result.controls_ok == 4
    assert result.misses == ["[11] link 'Gone': not in our observation"]
    # Text: 'Orders', 'mm', "It's here", and the textbox value 'Lyon'.
    assert (result.texts, result.texts_ok) == (4, 4)
    assert result.pct == 80.0


def test_coverage_reports_wrong_roles_names_and_inert_elements():
    compare = load("obs_compare")
    obs, text, paths = our_obs()
    obs.elements["b"].name = "Store"
    obs.elements["c"].role = "combobox"
    obs.elements["e"].interactive = False
    result = compare.coverage({"text": THEIRS, "paths": PATHS}, obs, text, paths)
    assert "[6] button 'Save': ours [b] is named 'Store'" in result.misses
    assert "[7] textbox 'City': ours [c] has role combobox" in result.misses
    assert "[9] DisclosureTriangle 'More': ours [e] button is not actionable" in result.misses
    assert result.controls_ok == 1  # only the date field


def test_clickable_elements_count_unless_they_are_labels_or_the_page():
    compare = load("obs_compare")
    obs, text, paths = our_obs()
    theirs = {"text": "RootWebArea 'x'", "paths": {"1": "html[0]/body[1]",
                                                  "2": "html[0]/body[1]/label[0]",
                                                  "3": "html[0]/body[1]/x[5]"},
              "clickable": ["1", "2", "3"], "visible": ["1", "2", "3"]}
    result = compare.coverage(theirs, obs, text, paths)
    assert result.controls == 1
    assert result.misses == ["[3] clickable '': ours [a] heading is not actionable"]
