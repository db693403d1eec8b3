"""Installing the apps: one virtual environment per pip app, Debian packages for the others.

Idempotent: a venv whose marker lists the same requirements is kept, and apt runs only
for packages that are missing. apt needs root (or sudo); without either it is a
user mistake, told in one line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from colorbrowser.arena.apps.base import App
from colorbrowser.arena.layout import Layout
from colorbrowser.arena.process import Command, run_step
from colorbrowser.errors import UserError

MARKER = "arena-requirements.txt"


def missing_apt(packages: tuple[str, ...]) -> list[str]:
    if not packages:
        return []
    if shutil.which("dpkg-query") is None:
        return list(packages)
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n",
                           *packages], capture_output=True, text=True)
    installed = {line.split()[0] for line in proc.stdout.splitlines()
                 if line.endswith(" installed")}
    return [p for p in packages if p not in installed]


def venv_ready(venv: Path, requirements: tuple[str, ...]) -> bool:
    marker = venv / MARKER
    return (venv / "bin" / "python").exists() and marker.exists() and \
        marker.read_text("utf-8").split() == list(requirements)


def is_installed(app: App, layout: Layout) -> bool:
    return not missing_apt(app.apt) and (not app.pip or venv_ready(layout.venv(app.name), app.pip))


def _as_root(argv: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return argv
    if shutil.which("sudo"):
        return ["sudo", "-n", *argv]
    raise UserError(f"installing Debian packages needs root or sudo: run "
                    f"`sudo {' '.join(argv)}` yourself, then install again")


def install_apt(packages: list[str], log: Path, say: Callable[[str], None]) -> None:
    if shutil.which("apt-get") is None:
        raise UserError(f"apt-get is not available; install {' '.join(packages)} by hand")
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    say("apt-get update")
    run_step(Command(_as_root(["apt-get", "update", "-q"]), env), log, "apt-get update")
    say(f"apt-get install {' '.join(packages)}")
    run_step(Command(_as_root(["apt-get", "install", "-y", "-q", "--no-install-recommends",
                               *packages]), env), log, "apt-get install")


def install_venv(venv: Path, requirements: tuple[str, ...], log: Path,
                 say: Callable[[str], None]) -> None:
    if not (venv / "bin" / "python").exists():
        say("create venv")
        venv.parent.mkdir(parents=True, exist_ok=True)
        run_step(Command([sys.executable, "-m", "venv", str(venv)]), log, "python -m venv")
    say(f"pip install {' '.join(requirements)}")
    run_step(Command([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                      "--disable-pip-version-check", *requirements]), log, "pip install")
    (venv / MARKER).write_text("\n".join(requirements) + "\n", "utf-8")


def install(app: App, layout: Layout, log: Path, say: Callable[[str], None]) -> bool:
    """Install what ``app`` lacks; returns False when everything was already there."""
    did = False
    missing = missing_apt(app.apt)
    if missing:
        install_apt(missing, log, say)
        did = True
    if app.pip and not venv_ready(layout.venv(app.name), app.pip):
        install_venv(layout.venv(app.name), app.pip, log, say)
        did = True
    return did
