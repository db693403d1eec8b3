"""db_match: a read-only query against the site's SQLite file, compared with expected rows."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from pydantic import ValidationError

from colorbrowser.errors import UserError
from colorbrowser.evaluation import dbmatch
from colorbrowser.evaluation.configured import ConfiguredTask
from colorbrowser.evaluation.dbmatch import db_match
from colorbrowser.evaluation.spec import DbCheck, EvalSpec
from colorbrowser.evaluation.taskfiles import load_webarena


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "trac.db"
    with sqlite3.connect(path) as con:
        con.execute("create table ticket (id integer, status text, owner text, hours real)")
        con.executemany("insert into ticket values (?, ?, ?, ?)",
                        [(1, "closed", "hugo", 3.0), (2, "new", "clara", 1.5),
                         (3, "closed", "hugo", 2.0)])
    return path


def spec(query: str, expected: list, **extra) -> EvalSpec:
    return EvalSpec.model_validate({"db_match": [{"site": "trac", "query": query,
                                                  "expected": expected, **extra}]})


def test_rows_match_as_a_multiset_and_numbers_by_value(db):
    check = spec("select owner, count(*), sum(hours) from ticket group by owner",
                 [["hugo", 2, 5], ["clara", 1.0, 1.5]])
    outcome = db_match(check, {"trac": db})
    assert outcome.score == 1.0 and outcome.error is None
    assert outcome.info["checks"][0]["rows"] == [["clara", 1, 1.5], ["hugo", 2, 5.0]]


def test_ordered_rows_must_come_in_order(db):
    query = "select id from ticket where status='closed' order by id desc"
    assert db_match(spec(query, [[1], [3]], ordered=True), {"trac": db}).score == 0.0
    assert db_match(spec(query, [[3], [1]], ordered=True), {"trac": db}).score == 1.0


def test_a_different_row_scores_zero_and_shows_what_was_found(db):
    outcome = db_match(spec("select status from ticket where id=2", [["closed"]]),
                       {"trac": db})
    assert outcome.score == 0.0 and outcome.error is None
    assert outcome.info["checks"][0]["rows"] == [["new"]]


def test_the_database_is_opened_read_only(db):
    query = "with doomed as (select 1) delete from ticket"
    outcome = db_match(spec(query, []), {"trac": db})
    assert outcome.error and ("readonly" in outcome.error or "not authorized" in outcome.error)
    with sqlite3.connect(db) as con:
        assert con.execute("select count(*) from ticket").fetchone() == (3,)


def test_a_missing_database_is_an_error_not_a_failure(tmp_path):
    outcome = db_match(spec("select 1", [[1]]), {"trac": tmp_path / "gone.db"})
    assert outcome.score == 0.0 and "no database at" in outcome.error


@pytest.mark.parametrize(("check", "reason"), [
    ({"site": "trac", "query": "update ticket set status='x'", "expected": []},
     "query must be a SELECT"),
    ({"site": "Trac!", "query": "select 1", "expected": []}, "site"),
    ({"site": "trac", "query": "select 1"}, "expected"),
])
def test_bad_db_checks_are_one_line_errors_in_a_task_file(tmp_path, check, reason):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"task_id": 1, "intent": "x", "start_url": "http://a",
                                "eval": {"eval_types": ["db_match"], "db_match": [check]}}))
    with pytest.raises(UserError, match=reason):
        load_webarena(path, env={})


def test_a_task_file_names_the_database_through_wa_db_variables(tmp_path, db):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({
        "task_id": 1, "sites": ["trac"], "intent": "Close ticket 2", "start_url": "http://a",
        "eval": {"eval_types": ["db_match"], "db_match": [
            {"site": "trac", "query": "select status from ticket where id=2",
             "expected": [["new"]]}]}}))
    unset = load_webarena(path, env={})[0]
    assert unset.unsupported == ["WA_DB_TRAC not set"]
    task = load_webarena(path, env={"WA_DB_TRAC": str(db)})[0]
    assert task.unsupported == [] and task.databases == {"trac": db}
    verdict = ConfiguredTask(task).validate(page=None, answer="")
    assert verdict.success and verdict.info["db_match"]["score"] == 1.0


ENDLESS = ("with recursive n(x) as (select 1 union all select x + 1 from n) "
           "select count(*) from n")


def test_a_query_without_end_is_an_evaluation_error_within_its_time_limit(db, monkeypatch):
    monkeypatch.setattr(dbmatch, "QUERY_SECONDS", 1.0)
    started = time.monotonic()
    outcome = db_match(spec(ENDLESS, [[1]]), {"trac": db})
    assert time.monotonic() - started < 5
    assert outcome.score == 0.0 and "took longer than 1 s" in outcome.error


def test_a_query_returning_endless_rows_stops_at_the_row_cap(db, monkeypatch):
    monkeypatch.setattr(dbmatch, "MAX_ROWS", 1000)
    endless_rows = "with recursive n(x) as (select 1 union all select x + 1 from n) select x from n"
    outcome = db_match(spec(endless_rows, [[1]]), {"trac": db})
    assert outcome.score == 0.0 and "more than 1,000 rows" in outcome.error


def test_a_query_cannot_reach_another_database_file(db, tmp_path):
    """ATTACH is no SELECT, so a task file cannot name it; even a check built past that
    test is refused by SQLite, and nothing of the other file is read."""
    other = tmp_path / "secrets.db"
    with sqlite3.connect(other) as con:
        con.execute("create table secret (value text)")
        con.execute("insert into secret values ('hunter2')")
    with pytest.raises(ValidationError, match="SELECT"):
        spec(f"attach '{other}' as s", [])
    for sql in (f"attach '{other}' as s", "pragma database_list"):
        check = DbCheck.model_construct(site="trac", query=sql, expected=[], ordered=False)
        outcome = db_match(EvalSpec.model_construct(eval_types=["db_match"], db_match=[check]),
                           {"trac": db})
        assert outcome.error and "not authorized" in outcome.error


def test_a_plain_reading_query_with_functions_and_recursion_still_works(db):
    query = ("with recursive n(x) as (select 1 union all select x + 1 from n where x < 3) "
             "select upper(status), (select count(*) from n) from ticket where id = 2")
    assert db_match(spec(query, [["NEW", 3]]), {"trac": db}).score == 1.0
