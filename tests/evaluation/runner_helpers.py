"""Running ``colorbrowser eval`` as a real process, and reading what it wrote."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from colorbrowser.evaluation.records import EpisodeRecord, read_records
from colorbrowser.testing import run_cli

# Hand-written for seed 0 of each task; the ids are those our observation gives there
# (e.g. click-checkboxes seed 0: "[1] checkbox 'AU'", "[2] checkbox 'HF2'", "[3] button").
SOLUTIONS = """\
click-button:
  0: ["click('1')"]
click-link:
  0: ["click('4')"]
enter-text:
  0: ["fill('1', 'Agustina')", "click('2')"]
focus-text:
  0: ["click('1')"]
click-checkboxes:
  0: ["click('2')", "click('3')"]
login-user:
  0: ["fill('2', 'karrie')", "fill('4', 'AU')", "click('5')"]
click-dialog:
  0: ["click('3')"]
"""
SOLVED = "click-button,click-link,enter-text,focus-text,click-checkboxes,login-user,click-dialog"

# The same seeds, answered wrong: another button, another link, another name, another box.
WRONG = """\
click-button:
  0: ["click('4')"]
click-link:
  0: ["click('1')"]
enter-text:
  0: ["fill('1', 'Bob')", "click('2')"]
click-checkboxes:
  0: ["click('1')", "click('3')"]
focus-text:
  0: []
"""


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """``colorbrowser ARGV`` in this process: exit code, stdout, stderr."""
    code = run_cli(*argv)
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def eval_cli(*args: str, cwd: Path, env: dict | None = None,
             timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "colorbrowser", "eval", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)


def records(study: Path) -> list[EpisodeRecord]:
    return read_records(study / "results.jsonl")


def by_task(study: Path) -> dict[str, EpisodeRecord]:
    return {r.task: r for r in records(study)}


def study_meta(study: Path) -> dict:
    return json.loads((study / "study.json").read_text())


def bench_tasks(path: Path, base: str) -> Path:
    """A YAML suite on the local test pages: one task that freezes its page when its
    button is pressed, one that is solved by following a link."""
    return write(path, f"""\
        tasks:
          - id: freeze
            goal: Press the Freeze button
            start_url: {base}/freeze.html
            eval:
              reference_url: {base}/order.html
          - id: open-order
            goal: Open the latest order
            start_url: {base}/start.html
            eval:
              reference_url: {base}/order.html
        """)


def freeze_replay(path: Path) -> Path:
    """Replay actions for ``bench_tasks``: press Freeze (the page hangs in the click),
    and solve open-order."""
    return write(path, """\
        freeze: ["click('2')", "click('2')"]
        open-order: ["click('4')", "stop('opened')"]
        """)


def assert_one_line_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def out_places_that_cannot_be_written(name: str) -> pytest.MarkDecorator:
    """Parametrize ``place(tmp_path)`` with ``--out`` targets nobody can create, root
    included: procfs refuses new entries, and no folder can be made under a file."""
    return pytest.mark.parametrize("place", [
        lambda tmp: f"/proc/colorbrowser-{name}",
        lambda tmp: f"/proc/no-such-dir/{name}",
        lambda tmp: f"{write(tmp / 'a-file', 'x')}/{name}",
    ], ids=["proc", "under-proc", "under-a-file"])
