"""The Trac tasks prove themselves on every run: through the real runner, its worker,
the arena suite and the replay agent, on the test arena's own Trac."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from colorbrowser.arena.prove import KINDS, WANT, prove
from colorbrowser.arena.suite import ORDER_VAR
from colorbrowser.evaluation.suites import open_suite

from .conftest import own_trac_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trac_env(arena_cache, trac_port, tmp_path_factory):
    """The arena suite, in this process and in the eval workers, on the test arena (in a
    cache of this module's own, so runs beside it cannot reset its instance)."""
    with own_trac_env(arena_cache, tmp_path_factory.mktemp("trac-tasks"), trac_port, 3):
        yield


@pytest.fixture(scope="module")
def proofs(trac_env, tmp_path_factory):
    return prove("arena:trac", None, tmp_path_factory.mktemp("prove"))


def test_every_trac_task_is_proven(proofs):
    unproven = {p.task: p.why() for p in proofs if not p.proven}
    assert not unproven
    assert len(proofs) >= 25
    kinds = {k for p in proofs for k in p.eval_types}
    assert {"db_match", "url_match", "program_html", "string_match/exact_match",
            "string_match/must_include"} <= kinds


def test_the_proof_sees_every_kind_of_run(proofs):
    for proof in proofs:
        assert {k: proof.rewards[k] for k in KINDS} == WANT


def test_the_suite_lists_trac_tasks_with_filled_addresses(trac_env, trac_port):
    choice = open_suite("arena:trac")
    with choice.suite as suite:
        entries = choice.select("trac-comment-*")
        definition = suite.tasks[entries[0].id].definition
    assert all(e.runnable for e in entries) and len(entries) == 3
    assert definition.start_url.startswith("http://127.0.0.1:")
    assert definition.databases["trac"].name == "trac.db"
    state = json.loads(definition.storage_state.read_text())
    assert {c["name"] for c in state["cookies"]} >= {"trac_auth"}


def test_a_shuffled_run_with_resets_gives_the_same_outcomes(proofs, trac_env, tmp_path,
                                                           monkeypatch):
    monkeypatch.setenv(ORDER_VAR, "shuffle:7")
    choice = open_suite("arena:trac")
    with choice.suite:
        order = [e.id for e in choice.select(None)]
    assert order != sorted(order) and order != [p.task for p in proofs]
    again = prove("arena:trac", None, tmp_path, kinds=("oracle", "null"))
    before = {p.task: (p.rewards["oracle"], p.rewards["null"]) for p in proofs}
    after = {p.task: (p.rewards["oracle"], p.rewards["null"]) for p in again}
    assert after == before


def test_a_users_own_webarena_file_runs_on_the_arena(trac_env, tmp_path):
    """``eval arena:<file>.json``: placeholders and login state come from the arena."""
    from colorbrowser.config import load_settings
    from colorbrowser.evaluation.coordinator import StudyOptions, run_study

    tasks = tmp_path / "mine.json"
    tasks.write_text(json.dumps([{
        "task_id": 1, "sites": ["trac"], "storage_state": "./.auth/trac_state.json",
        "start_url": "__TRAC__/", "intent": "Open the roadmap",
        "eval": {"eval_types": ["url_match"], "reference_url": "__TRAC__/roadmap"}}]))
    plan = tmp_path / "plan.yaml"
    plan.write_text("1:\n  - click: {role: link, name: Roadmap}\n")
    options = StudyOptions(suite=f"arena:{tasks}", study_dir=tmp_path / "study", replay=plan)
    records = run_study(options, load_settings(), Console(quiet=True)).records
    assert [(r.task, r.success) for r in records] == [("arena:1", True)]


def test_arena_env_prints_exports_for_webarena_files(trac_env, arena_cache, trac_port):
    from .conftest import cli

    done = cli(arena_cache, "env", "--instance", "2")
    assert done.returncode == 0, done.stderr
    lines = dict(line.removeprefix("export ").split("=", 1) for line in done.stdout.split("\n")
                 if line)
    assert lines["WA_TRAC"] == f"http://127.0.0.1:{trac_port + 200}"
    assert lines["WA_DB_TRAC"].endswith("inst/2/trac/env/db/trac.db")
    assert (Path(lines["WA_AUTH_DIR"]) / "trac_state.json").is_file()
