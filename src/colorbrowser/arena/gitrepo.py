"""A git repository built from generated commits, with the same SHAs on every build.

Identity, dates and configuration are all fixed through the environment, and the
user's own git configuration is kept out, so nothing of the machine leaks in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from colorbrowser.arena.content.tracker import Commit
from colorbrowser.errors import ColorBrowserError


def _git(args: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    proc = subprocess.run(["git", *args], env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        raise ColorBrowserError(f"git {args[0]} failed: {proc.stderr.strip()[-300:]}")
    return proc.stdout.strip()


def build_repo(bare: Path, commits: Iterable[Commit], scratch: Path) -> str:
    """Create ``bare`` (a bare repository) holding ``commits``; returns the head SHA."""
    if shutil.which("git") is None:
        raise ColorBrowserError("git is not installed (apt-get install git)")
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, HOME=str(scratch),
                LC_ALL="C", TZ="UTC")
    tree = scratch / "tree"
    for path in (bare, tree):
        if path.exists():
            shutil.rmtree(path)
    tree.mkdir(parents=True)
    _git(["init", "-q", "--bare", "-b", "main", str(bare)], base)
    env = {**base, "GIT_DIR": str(bare), "GIT_WORK_TREE": str(tree)}
    for commit in commits:
        for rel, text in commit.files.items():
            target = tree / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, "utf-8")
        stamp = commit.date.strftime("%Y-%m-%dT%H:%M:%S+0000")
        who = {"GIT_AUTHOR_NAME": commit.author.name, "GIT_AUTHOR_EMAIL": commit.author.email,
               "GIT_COMMITTER_NAME": commit.author.name,
               "GIT_COMMITTER_EMAIL": commit.author.email,
               "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        _git(["add", "-A"], env, tree)
        _git(["-c", "commit.gpgsign=false", "commit", "-q", "-m", commit.message],
             {**env, **who}, tree)
    shutil.rmtree(tree)
    return _git(["rev-parse", "HEAD"], {**base, "GIT_DIR": str(bare)})
