"""``colorbrowser explore trac`` on an instance where Trac already runs: exploring resets
the app again and again, so a person's data there is never wiped unless they say so."""

from __future__ import annotations

import pytest

from colorbrowser.testing import run_cli

from .test_trac_arena import create_ticket, ticket_count

pytestmark = pytest.mark.slow


@pytest.fixture
def person_ticket(trac, arena_cache, monkeypatch):
    """A ticket a person filed on the running Trac; the CLI sees the test arena's cache."""
    monkeypatch.setenv("COLORBROWSER_CACHE", str(arena_cache))
    create_ticket(trac, trac.accounts("trac")[1].username, "A person's own ticket")
    assert ticket_count(trac, "A person's own ticket") == 1
    return "A person's own ticket"


def test_exploring_a_running_app_is_refused_and_its_data_kept(capsys, trac, person_ticket,
                                                              tmp_path):
    code = run_cli("explore", "trac", "--instance", "0", "--budget", "2", "--no-tasks",
                   "--out", str(tmp_path / "x"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("error: trac is already running on arena instance 0")
    assert "--instance N" in err[0] and "--reset-running" in err[0]
    assert ticket_count(trac, person_ticket) == 1
    assert "trac" in trac.running()
    assert not (tmp_path / "x").exists()


def test_reset_running_explores_the_running_app_and_leaves_it_running(capsys, trac,
                                                                      person_ticket, tmp_path):
    code = run_cli("explore", "trac", "--instance", "0", "--reset-running", "--budget", "2",
                   "--no-tasks", "--screenshots", "none", "--out", str(tmp_path / "x"))
    err = capsys.readouterr().err
    assert code == 0, err
    assert "explored " + trac.base_url("trac") in err.replace("\n", "")
    assert ticket_count(trac, person_ticket) == 0  # reset to the snapshot, as asked
    assert "trac" in trac.running()  # not ours to stop


def test_reset_running_is_for_arena_apps_only(capsys, tmp_path):
    code = run_cli("explore", "http://127.0.0.1:9/", "--reset-running", "--out",
                   str(tmp_path / "x"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["error: --reset-running is for arena apps only"], err
