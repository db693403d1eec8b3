"""User mistakes are one `error:` line and exit 2, never a traceback."""

from __future__ import annotations

import socket

import pytest

from colorbrowser.arena import Arena
from colorbrowser.errors import UserError

from .conftest import cli


def one_error_line(done) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def test_unknown_app_is_one_line(tmp_path):
    line = one_error_line(cli(tmp_path, "up", "gitlab"))
    assert "unknown arena app 'gitlab'" in line and "trac" in line


def test_an_app_that_is_not_built_is_one_line(tmp_path):
    line = one_error_line(cli(tmp_path, "up", "trac"))
    assert "trac is not built" in line and "colorbrowser arena build trac" in line


def test_building_an_app_that_is_not_installed_is_one_line(tmp_path):
    line = one_error_line(cli(tmp_path, "build", "trac"))
    assert "trac is not installed" in line


def test_bad_port_setting_is_one_line(tmp_path):
    assert "expected APP=PORT" in one_error_line(cli(tmp_path, "status", "--ports", "trac"))
    assert "bad port 'x'" in one_error_line(cli(tmp_path, "status", "--ports", "trac=x"))


def test_up_refuses_a_port_another_server_holds(arena_cache, trac_port):
    holder = socket.socket()
    holder.bind(("127.0.0.1", trac_port + 5 * 100))
    holder.listen()
    try:
        line = one_error_line(cli(arena_cache, "up", "trac", "--instance", "5",
                                  "--ports", f"trac={trac_port}"))
        assert f"port {trac_port + 500} for trac is busy" in line
        assert not Arena(5, cache=arena_cache).running()
    finally:
        holder.close()


def test_instance_out_of_range_is_a_user_error(tmp_path):
    with pytest.raises(UserError):
        Arena(-1, cache=tmp_path)
