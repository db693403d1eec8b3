"""Which arena instance a process uses: the lock in the instance's folder, the rule that
picks an instance when none is named, and the one-line refusals of `eval --instance`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from colorbrowser.arena.instances import (
    INSTANCE_VAR,
    SHARE_VAR,
    claim,
    holder,
    lock_path,
    running_instances,
    study_env,
    try_lock,
)
from colorbrowser.arena.layout import Layout
from colorbrowser.arena.process import Command, start_group, stop_group
from colorbrowser.arena.state import InstanceState, ServerRecord, write_state
from colorbrowser.errors import UserError

HOLD = ("import sys; from pathlib import Path; "
        "from colorbrowser.arena.instances import try_lock; "
        "from colorbrowser.arena.layout import Layout; "
        "lock = try_lock(Layout(Path(sys.argv[1])), int(sys.argv[2])); "
        "print('held' if lock else 'busy', flush=True); sys.stdin.read()")


@pytest.fixture
def layout(tmp_path) -> Layout:
    return Layout(tmp_path / "arena")


@pytest.fixture
def hold(layout):
    """Holds instance N's lock from another process until the test ends."""
    procs: list[subprocess.Popen] = []

    def start(number: int) -> int:
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(layout.root), str(number)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        procs.append(proc)
        assert proc.stdout.readline().strip() == "held"
        return proc.pid

    yield start
    for proc in procs:
        proc.stdin.close()
        proc.wait(timeout=30)


@pytest.fixture
def running(layout):
    """Marks instance N as running: a real process group recorded in its state file,
    as `arena up` records a server."""
    groups: list[int] = []

    def start(number: int) -> None:
        pgid = start_group(Command(["sleep", "120"]), layout.log(number, "trac"))
        groups.append(pgid)
        write_state(layout.state_file(number), InstanceState(instance=number, servers={
            "trac": ServerRecord(pgid=pgid, port=18103 + number * 100,
                                 url="http://127.0.0.1", started_at=0.0, log="x")}))

    yield start
    for pgid in groups:
        stop_group(pgid)


def test_the_lock_lives_in_the_instance_folder_and_names_its_holder(layout, hold):
    pid = hold(4)
    assert lock_path(layout, 4) == layout.instance(4) / "lock"
    assert holder(layout, 4).pid == pid
    assert try_lock(layout, 4) is None
    assert holder(layout, 5) is None


def test_a_lock_is_free_again_once_its_process_is_gone(layout):
    proc = subprocess.run([sys.executable, "-c", HOLD, str(layout.root), "2"], input="",
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.stdout.strip() == "held"
    assert holder(layout, 2) is None
    lock = try_lock(layout, 2)
    assert lock is not None and holder(layout, 2).pid == os.getpid()
    lock.release()


def test_a_named_instance_held_by_another_process_is_refused_with_its_pid(layout, hold):
    pid = hold(6)
    with pytest.raises(UserError) as err:
        claim(layout, {INSTANCE_VAR: "6"})
    assert str(err.value) == (f"arena instance 6 is in use by pid {pid}; pass "
                              "--share-instance to use it too, or choose another --instance")


def test_sharing_a_held_instance_must_be_asked_for(layout, hold):
    hold(6)
    lock = claim(layout, {INSTANCE_VAR: "6", SHARE_VAR: "1"})
    assert (lock.instance, lock.shared) == (6, True)
    lock.release()


def test_a_studys_workers_take_the_instances_of_its_range_in_turn(layout):
    first = claim(layout, {INSTANCE_VAR: "6-7"})
    second = claim(layout, {INSTANCE_VAR: "6-7"})
    assert (first.instance, second.instance) == (6, 7)
    with pytest.raises(UserError) as err:
        claim(layout, {INSTANCE_VAR: "6-7"})
    me = os.getpid()
    assert str(err.value) == (f"arena instances 6 to 7 are all in use (6 by pid {me}, 7 by "
                              f"pid {me}); choose another --instance")
    first.release()
    second.release()


def test_with_no_instance_named_a_running_instance_nobody_uses_comes_first(
        layout, running, hold):
    running(3)
    running(5)
    hold(3)  # instance 3 runs, but another eval is on it
    lock = claim(layout, {})
    assert lock.instance == 5
    lock.release()
    assert running_instances(layout) == [3, 5]


def test_with_nothing_running_the_first_free_instance_is_taken(layout, running, hold):
    hold(0)
    running(1)
    hold(1)
    lock = claim(layout, {})
    assert lock.instance == 2
    after = claim(layout, {})  # the next process does not share it
    assert after.instance == 3
    lock.release()
    after.release()


def test_study_env_checks_the_whole_range_of_a_studys_workers(layout, hold):
    pid = hold(8)
    assert study_env(layout, 6, 2) == {INSTANCE_VAR: "6-7"}
    with pytest.raises(UserError, match=f"arena instance 8 is in use by pid {pid}"):
        study_env(layout, 7, 2)
    assert study_env(layout, 8, 1, listing=True) == {INSTANCE_VAR: "8", SHARE_VAR: "1"}
    assert study_env(layout, 8, 1, share=True) == {INSTANCE_VAR: "8", SHARE_VAR: "1"}
    with pytest.raises(UserError, match="one worker"):
        study_env(layout, 8, 2, share=True)
    with pytest.raises(UserError, match="needs --instance"):
        study_env(layout, None, 1, share=True)
    with pytest.raises(UserError, match="up to 51"):
        study_env(layout, 50, 2)


def eval_cli(cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLORBROWSER_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "colorbrowser", "eval", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def test_eval_on_a_held_instance_fails_in_one_line_naming_the_holder(tmp_path, layout,
                                                                      hold):
    tasks = tmp_path / "mine.json"
    tasks.write_text("[]")
    pid = hold(9)
    done = eval_cli(tmp_path, f"arena:{tasks}", "--instance", "9", "--out",
                    str(tmp_path / "study"))
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"error: arena instance 9 is in use by pid {pid}; pass --share-instance to use "
        "it too, or choose another --instance"]
    assert not (tmp_path / "study").exists()


def test_instance_options_are_refused_where_they_mean_nothing(tmp_path):
    done = eval_cli(tmp_path, "miniwob", "--instance", "2", "--list")
    assert done.returncode != 0
    assert done.stderr.strip() == ("error: --instance and --share-instance are for arena "
                                   "suites (arena, arena:<apps>, arena:<file>.json)")
    done = eval_cli(tmp_path, "arena", "--share-instance", "--list")
    assert done.stderr.strip() == "error: --share-instance needs --instance N"
