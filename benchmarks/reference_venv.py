"""The reference venv: BrowserGym's observation code on our Playwright version.

Created once under the cache folder (``~/.cache/colorbrowser/evaluation-venv`` by default),
separate from the project's environment: ``browsergym-core`` pins an old Playwright,
but installed with ``--no-deps`` over the same Playwright we use it runs unchanged,
so both sides of the benchmark drive the same browser through the same driver.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from colorbrowser.config import Settings

BROWSERGYM_VERSION = "0.14.3"
# browsergym-core's own imports (bs4 for its HTML helpers, gymnasium for its task
# registry, lxml<6 as it declares); its MCP server extra is not needed.
SMALL_DEPS = ["beautifulsoup4", "lxml<6", "numpy", "pillow", "pyparsing", "gymnasium"]
READY = ".colorbrowser-ready"


def venv_dir() -> Path:
    return Settings().paths.cache / "bench-venv"


def venv_python(root: Path | None = None) -> Path:
    return (root or venv_dir()) / "bin" / "python"


def wanted() -> dict[str, str]:
    return {"playwright": importlib.metadata.version("playwright"),
            "browsergym-core": BROWSERGYM_VERSION}


def is_ready(root: Path | None = None) -> bool:
    marker = (root or venv_dir()) / READY
    try:
        return json.loads(marker.read_text()) == wanted()
    except (OSError, ValueError):
        return False


def _run(step: list[str], progress: Progress, label: str) -> None:
    """Run one install command, showing its latest output line under the bar."""
    task = progress.add_task(label, total=None, status="")
    proc = subprocess.Popen(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    tail: list[str] = []
    for line in proc.stdout:
        line = line.strip()
        if line:
            tail = [*tail, line][-20:]
            progress.update(task, status=line[:70])
    if proc.wait() != 0:
        raise RuntimeError(f"{label} failed:\n" + "\n".join(tail))
    progress.update(task, total=1, completed=1, status="done")


def ensure(console: Console, root: Path | None = None) -> Path:
    """Python of a ready reference venv, creating or repairing it when needed."""
    root = root or venv_dir()
    python = venv_python(root)
    if is_ready(root):
        return python
    versions = wanted()
    console.print(f"Preparing the BrowserGym reference venv in {root} (once)")
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "install",
           "--progress-bar", "off"]
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               TimeElapsedColumn(), TextColumn("[dim]{task.fields[status]}"))
    with Progress(*columns, console=console) as progress:
        _run([sys.executable, "-m", "venv", "--clear", str(root)], progress, "create venv")
        _run([*pip, f"playwright=={versions['playwright']}", *SMALL_DEPS],
             progress, "install Playwright and small deps")
        _run([*pip, "--no-deps", f"browsergym-core=={versions['browsergym-core']}"],
             progress, "install browsergym-core (--no-deps)")
        _run([str(python), "-c", "import browsergym.core.observation, browsergym.utils.obs"],
             progress, "check imports")
    (root / READY).write_text(json.dumps(versions))
    return python
