"""``session import`` and ``session export`` take a folder someone may have sent: strict,
atomic, one ``error:`` line for anything wrong, no file outside the folder read or
written, nothing already saved lost, and the run's file modes kept."""

from __future__ import annotations

import base64
import errno
import json
import os
import random
import stat
import struct
import threading
import zlib
from pathlib import Path

import pytest
from PIL import Image

from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.browser.som import encode_png
from colorbrowser.steps import GateNote, Step, StepResult, StepUsage, TabNote
from colorbrowser.testing import run_cli

PNG = encode_png(Image.new("RGB", (3, 2), (200, 30, 30)))
SECRET = "local-secret-7f3a"  # a file of this machine no export may pull in


def make_run(folder: Path, steps: int = 2) -> Path:
    """A run folder as a run writes it (the real writer)."""
    t = Trajectory(folder)
    t.write_meta({"goal": "Sign in as ada", "start_url": "http://127.0.0.1:1/login"})
    for n in range(1, steps + 1):
        t.append_step(Step(
            step=n, time="2026-01-01T00:00:00Z", url="http://127.0.0.1:1/login",
            tabs=[TabNote(index=0, url="http://127.0.0.1:1/login", active=True)],
            observation="[a1] textbox 'User'", thought="type", action="fill('a1', 'ada')",
            result=StepResult(ok=True, info={"changed": ["a1"]}), gate=[GateNote(verdict="run")],
            usage=StepUsage(prompt_tokens=10, cost=0.5, calls=1), timings={"act": 0.25},
            screenshot=t.save_image(f"{n:04d}.png", PNG),
            som=t.save_image(f"{n:04d}-som.png", PNG)))
    t.write_result({"status": "done", "answer": "ok", "steps": steps,
                    "usage": {"calls": steps}, "elapsed": 1.5, "run_dir": str(folder),
                    "error": None})
    return folder


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".lock"}


def modes(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): stat.S_IMODE(p.stat().st_mode)
            for p in [folder, *sorted(folder.rglob("*"))] if p.name != ".lock"}


@pytest.fixture
def place(tmp_path):
    """A folder holding an exported run, a local secret beside it, and the CLI."""
    (tmp_path / "secret.txt").write_text(SECRET)
    make_run(tmp_path / "run")
    assert run_cli("session", "export", str(tmp_path / "run"), str(tmp_path / "export")) == 0
    return tmp_path


def steps_of(export: Path) -> list[dict]:
    return [json.loads(line) for line in (export / "steps.jsonl").read_text().splitlines()]


def write_steps(export: Path, lines: list) -> None:
    (export / "steps.jsonl").write_bytes(b"".join(
        (line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n"
        for line in lines))


def refused(capsys, *argv: str) -> str:
    """The command fails with exit 2 and one ``error:`` line; that line."""
    code = run_cli(*argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and SECRET not in err
    return err


def nothing_left(parent: Path, name: str) -> None:
    assert not (parent / name).exists()
    assert not [p.name for p in parent.iterdir() if p.name.startswith(f".{name}")]


# -- the round trip ---------------------------------------------------------------------
def test_an_import_gives_back_the_run_byte_for_byte_with_the_runs_file_modes(place):
    assert run_cli("session", "import", str(place / "export"), str(place / "back")) == 0
    assert files(place / "back") == files(place / "run")
    assert modes(place / "back") == modes(place / "run")
    for path, mode in modes(place / "back").items():  # pages and screenshots are private
        assert path in (".", "screenshots") or mode == 0o600, path
    assert all(mode == 0o600 for name, mode in modes(place / "export").items() if name != ".")


def test_an_empty_folder_may_receive_the_import(place):
    (place / "back").mkdir()
    assert run_cli("session", "import", str(place / "export"), str(place / "back")) == 0
    assert files(place / "back") == files(place / "run")


# -- atomic, never over what is there -------------------------------------------------
def test_a_failed_import_leaves_nothing_and_a_retry_works(place, capsys):
    good = steps_of(place / "export")
    write_steps(place / "export", [good[0], {**good[1], "step": "two"}])
    err = refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    assert "line 2" in err and "step" in err
    nothing_left(place, "back")
    write_steps(place / "export", good)
    assert run_cli("session", "import", str(place / "export"), str(place / "back")) == 0
    assert files(place / "back") == files(place / "run")


def test_the_export_itself_the_current_folder_or_a_link_are_no_destinations(place, capsys,
                                                                           monkeypatch):
    monkeypatch.chdir(place)
    (place / "empty").mkdir()
    (place / "link").symlink_to(place / "empty")
    for where in ("export", ".", "link", "run/steps.jsonl"):
        refused(capsys, "session", "import", "export", where)
    assert files(place / "export") and not list((place / "empty").iterdir())


def test_a_disk_that_fills_up_halfway_leaves_no_half_run(place, capsys, monkeypatch):
    """The file system failing mid-import (simulated: the third file write fails as a
    full disk does) is one line, and the half-written folder is gone."""
    from colorbrowser.copilot import export

    real, calls = export.write_private, []

    def filling(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data)

    monkeypatch.setattr(export, "write_private", filling)
    assert "No space left" in refused(capsys, "session", "import", str(place / "export"),
                                      str(place / "back"))
    nothing_left(place, "back")


def test_a_folder_with_files_but_no_steps_is_never_written(place, capsys):
    (place / "mine").mkdir()
    (place / "mine" / "meta.json").write_text('{"goal": "my own run"}')
    (place / "mine" / "notes.txt").write_text("keep me")
    refused(capsys, "session", "import", str(place / "export"), str(place / "mine"))
    assert files(place / "mine") == {"meta.json": b'{"goal": "my own run"}',
                                     "notes.txt": b"keep me"}


# -- links and special files -------------------------------------------------------------
@pytest.mark.parametrize("name", ["meta.json", "result.json", "steps.jsonl"])
def test_a_linked_file_in_an_export_is_refused_and_never_copied(place, capsys, name):
    (place / "export" / name).unlink()
    (place / "export" / name).symlink_to(place / "secret.txt")
    refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    nothing_left(place, "back")
    (place / "export" / name).unlink()
    os.link(place / "secret.txt", place / "export" / name)  # a hard link reads the same
    refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    nothing_left(place, "back")


def test_a_steps_file_that_is_a_folder_or_a_pipe_is_refused_without_waiting(place, capsys):
    (place / "export" / "steps.jsonl").unlink()
    (place / "export" / "steps.jsonl").mkdir()
    refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    (place / "export" / "steps.jsonl").rmdir()
    os.mkfifo(place / "export" / "steps.jsonl")
    codes = []
    worker = threading.Thread(target=lambda: codes.append(run_cli(
        "session", "import", str(place / "export"), str(place / "back"))), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # release the reader stuck on the pipe before failing
        os.close(os.open(place / "export" / "steps.jsonl", os.O_WRONLY | os.O_NONBLOCK))
    assert codes == [2]
    nothing_left(place, "back")


def test_an_export_of_a_run_folder_with_links_does_not_pull_in_local_files(place, capsys):
    (place / "run" / "meta.json").unlink()
    (place / "run" / "meta.json").symlink_to(place / "secret.txt")
    refused(capsys, "session", "export", str(place / "run"), str(place / "out"))
    nothing_left(place, "out")
    (place / "run" / "meta.json").write_text('{"goal": "x"}')
    shot = place / "run" / "screenshots" / "0001.png"
    shot.unlink()
    shot.symlink_to(place / "secret.txt")
    refused(capsys, "session", "export", str(place / "run"), str(place / "out"))
    nothing_left(place, "out")


# -- what the files hold ------------------------------------------------------------------
def png_claiming(width: int, height: int) -> bytes:
    """A valid PNG header for an image of that size, with almost no pixel data: what
    decodes to gigabytes from a few bytes."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


def _step(place) -> dict:
    return steps_of(place / "export")[0]


HOSTILE_STEPS = {
    "a number as text": lambda s: {**s, "step": "1"},
    "a boolean step": lambda s: {**s, "step": True},
    "a string result": lambda s: {**s, "result": "ok"},
    "a list for an object": lambda s: {**s, "usage": [1, 2]},
    "an unknown actor": lambda s: {**s, "actor": "root"},
    "a text where a bool belongs": lambda s: {**s, "executed": "yes"},
    "a gate verdict of its own": lambda s: {**s, "gate": [{"verdict": "approve-all"}]},
    "a string timing": lambda s: {**s, "timings": {"act": "fast"}},
    "no step number": lambda s: {k: v for k, v in s.items() if k != "step"},
    "a screenshot up a folder": lambda s: {**s, "screenshot": "screenshots/.."},
    "a screenshot outside": lambda s: {**s, "screenshot": "../../secret.txt"},
    "an absolute screenshot": lambda s: {**s, "screenshot": "/etc/passwd"},
    "a hidden screenshot": lambda s: {**s, "screenshot": "screenshots/.x.png"},
    "a long screenshot name": lambda s: {**s, "screenshot": f"screenshots/{'a' * 300}.png"},
    "a screenshot in a subfolder": lambda s: {**s, "screenshot": "screenshots/a/b.png"},
    "a screenshot of another kind": lambda s: {**s, "screenshot": "screenshots/x.html"},
    "images of another key": lambda s: {**s, "images": {"meta": s["images"]["screenshot"]}},
    "images as a list": lambda s: {**s, "images": [s["images"]["screenshot"]]},
    "an image that is not base64": lambda s: {**s, "images": {"screenshot": "%%%"}},
    "an image that is not an image": lambda s: {
        **s, "images": {"screenshot": base64.b64encode(b"<script>x</script>").decode()}},
    "an image for a step without one": lambda s: {**s, "screenshot": None},
    "a PNG of a few bytes that claims 30,000 x 30,000 pixels": lambda s: {
        **s, "images": {"screenshot": base64.b64encode(png_claiming(30_000, 30_000)).decode()}},
    "a PNG that claims 8,000 x 8,000 pixels (below Pillow's own bound)": lambda s: {
        **s, "images": {"screenshot": base64.b64encode(png_claiming(8_000, 8_000)).decode()}},
    "the same file twice": lambda s: {**s, "som": s["screenshot"]},
    "a step that is a list": lambda s: [s],
    "a step that is a number": lambda s: 7,
}


@pytest.mark.parametrize("case", sorted(HOSTILE_STEPS))
def test_a_step_that_does_not_fit_the_record_is_one_error_line(place, capsys, case):
    write_steps(place / "export", [HOSTILE_STEPS[case](_step(place))])
    err = refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    assert "line 1" in err
    nothing_left(place, "back")


RAW_LINES = {
    "NaN": b'{"step": 1, "usage": {"cost": NaN}}',
    "Infinity": b'{"step": 1, "timings": {"act": -Infinity}}',
    "an overflowing float": b'{"step": 1, "timings": {"act": 1e999}}',
    "5,000 digits": b'{"step": 1' + b"0" * 5000 + b"}",
    "a 64-bit overflow": b'{"step": 99999999999999999999}',
    "a duplicate key": b'{"step": 1, "action": "a", "action": "b"}',
    "deep nesting": b'{"step": 1, "result": {"info": {"x": ' + b"[" * 100_000 + b"]" * 100_000
                    + b"}}}",
    "moderately deep nesting": b'{"step": 1, "result": {"info": {"x": ' + b"[" * 200
                               + b"]" * 200 + b"}}}",
    "not UTF-8": b'{"step": 1, "thought": "\xff\xfe"}',
    "UTF-16": '{"step": 1}'.encode("utf-16"),
    "not JSON": b'{"step": 1,',
    "a NUL byte": b'{"step": 1}\x00',
}


@pytest.mark.parametrize("case", sorted(RAW_LINES))
def test_a_line_that_is_not_strict_json_is_one_error_line(place, capsys, case):
    write_steps(place / "export", [_step(place), RAW_LINES[case]])
    err = refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    assert "line 2" in err and len(err) < 400
    nothing_left(place, "back")


@pytest.mark.parametrize("name,text", [
    ("meta.json", "[1, 2]"), ("meta.json", "not json"), ("meta.json", '{"goal": 5}'),
    ("meta.json", '{"goal": "a", "goal": "b"}'), ("meta.json", '{"x": NaN}'),
    ("result.json", '{"steps": "2"}'), ("result.json", '"done"'),
    ("result.json", '{"usage": ' + "[" * 50_000 + "]" * 50_000 + "}"),
])
def test_meta_and_result_that_are_not_what_a_run_writes_are_refused(place, capsys, name, text):
    (place / "export" / name).write_text(text)
    refused(capsys, "session", "import", str(place / "export"), str(place / "back"))
    nothing_left(place, "back")


def test_a_step_line_longer_than_the_cap_is_refused_without_reading_it_all(place, capsys,
                                                                         monkeypatch):
    from colorbrowser.copilot import session_files

    monkeypatch.setattr(session_files, "LINE_BYTES", 1000)
    write_steps(place / "export", [{"step": 1, "thought": "x" * 5000}])
    assert "longer than" in refused(capsys, "session", "import", str(place / "export"),
                                    str(place / "back"))


# -- exporting a damaged or hostile run folder ----------------------------------------------
@pytest.mark.parametrize("damage", [
    lambda run: (run / "steps.jsonl").write_text('{"step": 1, "result": "done"}\n'),
    lambda run: (run / "meta.json").write_text("[1]"),
    lambda run: (run / "meta.json").write_text("{not json"),
    lambda run: (run / "result.json").write_text('{"status": 3}'),
    lambda run: (run / "steps.jsonl").write_text('{"step": 1, "screenshot": "../secret.txt"}\n'),
    lambda run: (run / "steps.jsonl").write_bytes(b'{"step": 1, "x": "\xff"}\n{"step": 2}\n'),
    lambda run: (run / "steps.jsonl").write_bytes(b'{"step": 1, "act\n{"step": 2}\n'),
])
def test_exporting_a_damaged_run_folder_is_one_error_line(place, capsys, damage):
    damage(place / "run")
    refused(capsys, "session", "export", str(place / "run"), str(place / "out"))
    nothing_left(place, "out")


@pytest.mark.parametrize("tail", [b'{"step": 3, "act', b'{"step": 3, "thought": "\xc3'])
def test_a_torn_last_line_of_a_killed_run_is_left_out_of_the_export(place, tail):
    with open(place / "run" / "steps.jsonl", "ab") as fh:
        fh.write(tail)
    assert run_cli("session", "export", str(place / "run"), str(place / "out")) == 0
    assert [s["step"] for s in steps_of(place / "out")] == [1, 2]


@pytest.mark.parametrize("where", ["secret.txt/out", "/proc/self/out", "/sys/out",
                                   "/dev/null/out", "a" * 300])
def test_export_and_import_destinations_that_cannot_be_folders_are_one_line(
        place, capsys, monkeypatch, where):
    monkeypatch.chdir(place)
    refused(capsys, "session", "export", "run", where)
    refused(capsys, "session", "import", "export", where)


# -- fuzzing ---------------------------------------------------------------------------------
_VALUES = [None, True, 0, -1, 2**70, 1.5, "", "x" * 3, "screenshots/0001.png", "\ud800",
           [], [None], {}, {"ok": "no"}, {"bid": 1}, [{"verdict": None}], "../" * 5]


def _mutate(rng: random.Random, value):
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(sorted(value))
        return {**value, key: _mutate(rng, value[key])}
    if isinstance(value, list) and value and rng.random() < 0.5:
        return [_mutate(rng, value[0]), *value[1:]]
    return rng.choice(_VALUES)


def test_random_damage_to_an_export_never_gives_a_traceback_or_a_half_folder(place, capsys):
    rng = random.Random(25)
    good = steps_of(place / "export")
    for attempt in range(150):
        step = _mutate(rng, dict(good[attempt % 2]))
        write_steps(place / "export", [good[0], step])
        dest = place / f"back{attempt}"
        code = run_cli("session", "import", str(place / "export"), str(dest))
        err = capsys.readouterr().err
        assert code in (0, 2) and "Traceback" not in err, (step, err)
        if code == 2:
            assert err.startswith("error: ") and err.count("\n") == 1, err
            nothing_left(place, dest.name)
        else:  # what was accepted is a run the typed record reads back as written
            lines = (dest / "steps.jsonl").read_text().splitlines()
            assert [Step.model_validate(json.loads(x), strict=True).step for x in lines]
            assert all(p.resolve().is_relative_to(dest.resolve()) for p in dest.rglob("*"))
    assert (place / "secret.txt").read_text() == SECRET
