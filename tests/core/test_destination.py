"""Every command that writes where the person says (``--out``, ``-o``, an export folder,
a page, a store) checks the place the same way: a path through a file, into /proc,
/sys or /dev, onto the wrong kind of thing, or too long is one ``error:`` line before
any work starts."""

from __future__ import annotations

import click
import pytest

from colorbrowser.cli import cli
from colorbrowser.destination import Destination, destination_problem
from colorbrowser.testing import run_cli


def commands(group: click.Group, prefix: str = ""):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # the top group loads its commands lazily
        command = group.get_command(ctx, name)
        yield f"{prefix}{name}", command
        if isinstance(command, click.Group):
            yield from commands(command, f"{prefix}{name} ")


# Options and arguments that name a place to write, by their parameter names.
WRITES = {"out", "out_dir", "screenshot", "kb_path", "db"}
WRITES_IN = {("session export", "out"), ("session import", "run_dir"), ("tips export", "file")}


def test_every_output_option_of_every_command_uses_the_one_destination_check():
    checked = []
    for path, command in commands(cli):
        for param in command.params:
            opts = set(getattr(param, "opts", ()))
            if param.name in WRITES or opts & {"--out", "-o"} or (path, param.name) in WRITES_IN:
                assert isinstance(param.type, Destination), f"{path} {param.name}"
                assert param.type.what.startswith("the "), f"{path} {param.name}"
                checked.append(f"{path} {param.name}")
    assert {"run out_dir", "copilot out_dir", "eval out_dir", "view out", "report out_dir",
            "session export out", "session import run_dir", "tips export file"} <= set(checked)


@pytest.mark.parametrize("where,folder,fragment", [
    ("{tmp}/file/sub", True, "part of the path is a file"),
    ("{tmp}/file/sub/deeper/x.html", False, "part of the path is a file"),
    ("{tmp}/file", True, "is a file, not a folder"),
    ("{tmp}", False, "is a folder, not a file"),
    ("/proc/self/out", True, "/proc"),
    ("/proc/sys/kernel/x", False, "/proc"),
    ("/sys/power/x", False, "/sys"),
    ("/dev/null", False, "/dev"),
    ("{tmp}/to-proc/x", True, "/proc"),  # through a symbolic link
    ("{tmp}/" + "n" * 300, True, "longer than 255"),
    ("{tmp}/" + "/".join(["d" * 200] * 30), True, "longer than"),
    ("{tmp}/loop/x", True, "loop"),
])
def test_places_that_cannot_be_written_have_one_reason(tmp_path, where, folder, fragment):
    (tmp_path / "file").write_text("x")
    (tmp_path / "to-proc").symlink_to("/proc/self")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    problem = destination_problem(where.format(tmp=tmp_path), folder=folder)
    assert problem is not None and fragment in problem


@pytest.mark.parametrize("where,folder", [
    ("{tmp}/new/deeper/out", True), ("{tmp}/page.html", False), ("{tmp}", True),
    ("{tmp}/file", False), ("relative/out", True),
])
def test_ordinary_places_pass(tmp_path, monkeypatch, where, folder):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    assert destination_problem(where.format(tmp=tmp_path), folder=folder) is None


@pytest.mark.parametrize("argv", [
    ("view", "{tmp}/run", "--out", "{tmp}/file/page.html"),
    ("view", "{tmp}/run", "--out", "/proc/self/page.html"),
    ("report", "{tmp}", "--out", "{tmp}/file/report"),
    ("report", "{tmp}", "--out", "/sys/report"),
    ("tips", "--db", "{tmp}/kb.db", "export", "{tmp}/file/tips.yaml"),
    ("tips", "--db", "{tmp}/kb.db", "export", "/proc/tips.yaml"),
    ("tips", "--db", "{tmp}/file/kb.db", "list"),
    ("tips", "--db", "/sys/kb.db", "list"),
    ("session", "export", "{tmp}/run", "{tmp}/file/out"),
    ("session", "import", "{tmp}/run", "/proc/self/run"),
    ("arena", "plans", "null", "-o", "{tmp}/file/plans.yaml"),
    ("arena", "plans", "null", "-o", "/proc/plans.yaml"),
    ("arena", "plans", "null", "-o", "/sys/plans.yaml"),
])
def test_commands_refuse_such_places_with_one_line(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.delenv("COLORBROWSER_KB", raising=False)
    (tmp_path / "file").write_text("x")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "steps.jsonl").write_text('{"step": 1}\n')
    (tmp_path / "results.jsonl").write_text("")
    code = run_cli(*(a.format(tmp=tmp_path) for a in argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert (tmp_path / "file").read_text() == "x"


@pytest.mark.parametrize("argv", [
    ("session", "import", "{long}", "{tmp}/back"),
    ("session", "import", "{tmp}/{long}/x", "{tmp}/back"),
    ("session", "export", "{long}", "{tmp}/out"),
    ("view", "{long}"),
    ("report", "{long}"),
    ("report", "{tmp}", "--compare", "{long}"),
    ("resume", "{long}"),
])
def test_a_path_to_read_that_no_file_system_holds_is_one_line(tmp_path, capsys, argv):
    code = run_cli(*(a.format(tmp=tmp_path, long="n" * 300) for a in argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "longer than 255" in err
