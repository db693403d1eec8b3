"""A real Trac arena for the tests: installed into a fresh cache folder (its own venv from
PyPI), built once per session, served on high ports so a person's own arena on the
default ports is never touched."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from colorbrowser.arena import Arena
from colorbrowser.arena.build import SnapshotMeta
from colorbrowser.arena.instances import INSTANCE_VAR
from colorbrowser.arena.ports import STRIDE, port_busy

TEST_TRAC_PORT = 18103  # instance N serves on 18103 + N * STRIDE


def free_base(start: int) -> int:
    port = start
    while port_busy(port) or port_busy(port + STRIDE):
        port += 7
    return port


@pytest.fixture(scope="session")
def arena_cache(tmp_path_factory) -> Path:
    """The cache folder, with Trac installed and built (or COLORBROWSER_ARENA_TEST_CACHE)."""
    preset = os.environ.get("COLORBROWSER_ARENA_TEST_CACHE")
    cache = Path(preset) if preset else tmp_path_factory.mktemp("arena-cache")
    arena = Arena(cache=cache)
    arena.install(["trac"])
    if not (preset and SnapshotMeta.read(arena.layout.snap("trac"))):
        arena.build(["trac"])  # a prebuilt cache is shared: rebuilding races other runs
    return cache


def own_cache(arena_cache: Path, folder: Path) -> Path:
    """A cache folder of a test's own that shares the built Trac (venv and snapshot) of
    ``arena_cache`` but no instance, so no other run on the machine can take or reset
    the instances the test uses."""
    (folder / "arena").mkdir(parents=True)
    for part in ("venv", "snap"):
        (folder / "arena" / part).symlink_to(arena_cache / "arena" / part)
    return folder


@contextmanager
def own_trac_env(arena_cache: Path, folder: Path, trac_port: int, instance: int):
    """The arena suite, in this process and in the eval workers, on the test Trac in a
    cache of the module's own (``own_cache``) and an instance clear of the other tests."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLORBROWSER_CACHE", str(own_cache(arena_cache, folder)))
        mp.setenv("COLORBROWSER_ARENA_PORTS", f"trac={trac_port}")
        mp.setenv(INSTANCE_VAR, str(instance))
        yield


@pytest.fixture(scope="session")
def trac_port() -> int:
    return free_base(TEST_TRAC_PORT)


@pytest.fixture
def arena(arena_cache, trac_port):
    """Instance 0 of the test arena; every server it started is stopped afterwards."""
    arena = Arena(0, cache=arena_cache, ports={"trac": trac_port})
    yield arena
    arena.down()


@pytest.fixture
def trac(arena):
    arena.up(["trac"])
    return arena


def cli(cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLORBROWSER_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "colorbrowser", "arena", *args], env=env,
                          capture_output=True, text=True, timeout=120)
