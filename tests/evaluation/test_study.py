"""A study folder: seeds, the ablation matrix, configuration hashes, and what a re-run
still has to do. Plain data, no browser."""

from __future__ import annotations

import json

import pytest

from colorbrowser.config import Settings
from colorbrowser.errors import ConfigError, UserError
from colorbrowser.evaluation.records import STUDY, EpisodeRecord, latest, read_records
from colorbrowser.evaluation.study import (
    StudyDir,
    build_variants,
    config_hash,
    parse_matrix,
    parse_seeds,
    plan_jobs,
)

TASKS = [("miniwob:click-button", "miniwob"), ("miniwob:focus-text", "miniwob")]


def record(variant, task, seed, **fields) -> EpisodeRecord:
    return EpisodeRecord(task=task, seed=seed, variant=variant.name,
                         config_hash=variant.config_hash, **fields)


# -- seeds ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "seeds"), [
    (None, [0]),
    ("3", [3]),
    ("0,1,2", [0, 1, 2]),
    ("0-4", [0, 1, 2, 3, 4]),
    ("5, 0-2, 1", [5, 0, 1, 2]),
])
def test_seeds_are_lists_and_ranges_without_duplicates(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["x", "1-", "4-2", "-1", "0-999999"])
def test_bad_seeds_are_refused_in_one_line(text):
    with pytest.raises(UserError, match="--seeds"):
        parse_seeds(text)


# -- the matrix -----------------------------------------------------------------------
def test_a_matrix_key_is_found_in_its_settings_section():
    axes = parse_matrix(["memory=full,summary", "knowledge=off,on"])
    assert [(key, path, values) for key, path, values in axes] == [
        ("memory", ("agent", "memory"), ["full", "summary"]),
        ("knowledge", ("agent", "knowledge"), ["off", "on"]),
    ]


def test_a_dotted_key_names_its_section_and_cells_can_share_one_argument():
    axes = parse_matrix(["agent.memory=full,summary knowledge=on"])
    assert [path for _, path, _ in axes] == [("agent", "memory"), ("agent", "knowledge")]


@pytest.mark.parametrize(("item", "message"), [
    ("nosuch=1,2", "unknown setting 'nosuch'"),
    ("agent.nosuch=1", "unknown setting 'agent.nosuch'"),
    ("memory", "expected KEY=V1,V2"),
    ("memory=", "expected KEY=V1,V2"),
    ("memory=full agent.memory=summary", "given twice"),
])
def test_a_bad_matrix_is_refused_with_the_reason(item, message):
    with pytest.raises(UserError, match=message):
        parse_matrix([item])


def test_the_matrix_makes_one_variant_per_cell_with_its_settings():
    variants = build_variants(Settings(), ["memory=full,summary", "knowledge=off,on"])
    assert [v.name for v in variants] == [
        "memory=full knowledge=off", "memory=full knowledge=on",
        "memory=summary knowledge=off", "memory=summary knowledge=on",
    ]
    cell = variants[2]
    assert (cell.settings.agent.memory, cell.settings.agent.knowledge) == ("summary", "off")
    assert len({v.config_hash for v in variants}) == 4


def test_a_matrix_value_the_setting_refuses_is_a_one_line_error():
    with pytest.raises(UserError, match=r"--matrix: agent\.memory"):
        build_variants(Settings(), ["memory=everything"])


def test_no_matrix_is_one_default_variant():
    [variant] = build_variants(Settings())
    assert variant.name == "default" and variant.slug == "default"


# -- configuration hash ----------------------------------------------------------------
def test_the_hash_is_stable_and_ignores_paths_keys_and_headless():
    base = Settings()
    other = Settings.model_validate({
        "model": {"api_key": "sk-something", "timeout": 5},
        "browser": {"headless": False},
        "paths": {"runs": "/elsewhere"},
    })
    assert config_hash(base) == config_hash(Settings()) == config_hash(other)


def test_the_hash_changes_with_what_changes_results():
    base = config_hash(Settings())
    assert config_hash(Settings.model_validate({"agent": {"memory": "none"}})) != base
    assert config_hash(Settings.model_validate({"model": {"model": "other"}})) != base
    assert config_hash(Settings(), agent="replay:abc") != base


# -- the folder -----------------------------------------------------------------------
def test_a_variant_name_cannot_change_meaning_in_one_study(tmp_path):
    study = StudyDir(tmp_path / "study")
    [first] = build_variants(Settings())
    study.register("miniwob", [first], ["eval", "miniwob"])
    [changed] = build_variants(Settings.model_validate({"agent": {"memory": "none"}}))
    with pytest.raises(ConfigError, match="already holds variant 'default'"):
        study.register("miniwob", [changed], ["eval", "miniwob"])
    study.register("miniwob", [first], ["eval", "miniwob"])  # the same settings again: fine
    assert len(study.meta()["commands"]) == 2


OLD_ID = "0123abcd4567"


@pytest.fixture
def older_study(tmp_path) -> StudyDir:
    """A study as a release without ``model.context_tokens`` wrote it, under its old id."""
    study = StudyDir(tmp_path / "study")
    [variant] = build_variants(Settings())
    study.register("miniwob", [variant], ["eval", "miniwob"])
    meta = study.meta()
    [entry] = meta["variants"].values()
    del entry["settings"]["model"]["context_tokens"]
    meta["variants"] = {OLD_ID: entry}
    (study.path / STUDY).write_text(json.dumps(meta), encoding="utf-8")
    return study


def test_a_study_from_before_a_new_setting_resumes_where_it_stopped(older_study):
    older_study.append(EpisodeRecord(task=TASKS[0][0], seed=0, variant="default",
                                     config_hash=OLD_ID, success=True, reward=1.0))
    [again] = build_variants(Settings())
    older_study.register("miniwob", [again], ["eval", "miniwob"])
    assert again.config_hash == OLD_ID
    jobs, done = plan_jobs(older_study, [again], TASKS, [0], timeout=60)
    assert done == 1 and [j.task for j in jobs] == [TASKS[1][0]]


def test_a_study_from_before_a_new_setting_is_refused_when_the_setting_is_not_default(
        older_study):
    [windowed] = build_variants(Settings.model_validate({"model": {"context_tokens": 2048}}))
    with pytest.raises(ConfigError, match="already holds variant 'default'"):
        older_study.register("miniwob", [windowed], ["eval", "miniwob"])


def test_a_torn_last_line_and_foreign_lines_are_skipped(tmp_path):
    study = StudyDir(tmp_path / "study")
    [variant] = build_variants(Settings())
    study.append(record(variant, "miniwob:click-button", 0, success=True, reward=1.0))
    with open(study.results_path, "a", encoding="utf-8") as fh:
        fh.write('{"not": "a record"}\n')
        fh.write('{"task": "miniwob:focus-text", "config_ha')  # killed mid-write
    [only] = read_records(study.path)
    assert only.task == "miniwob:click-button" and only.success


def test_the_newest_attempt_of_an_episode_wins():
    [variant] = build_variants(Settings())
    first = record(variant, "t", 0, error_class="timeout", attempt=1)
    second = record(variant, "t", 0, success=True, attempt=2)
    other_seed = record(variant, "t", 1)
    assert latest([first, other_seed, second]) == [second, other_seed]


def test_a_rerun_skips_finished_episodes_and_errored_ones_unless_asked(tmp_path):
    study = StudyDir(tmp_path / "study")
    [variant] = build_variants(Settings())
    study.append(record(variant, "miniwob:click-button", 0, success=True))
    study.append(record(variant, "miniwob:click-button", 1, error_class="timeout"))
    jobs, done = plan_jobs(study, [variant], TASKS, [0, 1], timeout=60)
    assert done == 2
    assert [(j.task, j.seed) for j in jobs] == [("miniwob:focus-text", 0),
                                               ("miniwob:focus-text", 1)]

    jobs, done = plan_jobs(study, [variant], TASKS, [0, 1], timeout=60, retry_errors=True)
    assert done == 1
    retried = next(j for j in jobs if j.task == "miniwob:click-button")
    assert (retried.seed, retried.attempt) == (1, 2)
    assert retried.rel_dir == "runs/default/miniwob-click-button-s1-a2"


def test_a_run_folder_left_by_a_killed_attempt_is_cleared(tmp_path):
    study = StudyDir(tmp_path / "study")
    [variant] = build_variants(Settings())
    stale = study.run_dir(variant, "miniwob:focus-text", 0, 1)
    stale.mkdir(parents=True)
    (stale / "steps.jsonl").write_text("half an episode\n")
    jobs, _ = plan_jobs(study, [variant], TASKS[1:], [0], timeout=60)
    assert [j.run_dir for j in jobs] == [stale]
    assert not stale.exists()


def test_the_hard_limit_adds_both_graces_to_the_timeout(tmp_path):
    study = StudyDir(tmp_path / "study")
    [variant] = build_variants(Settings())
    [job] = plan_jobs(study, [variant], TASKS[:1], [0], timeout=100, kill_grace=10,
                      hard_grace=30)[0]
    assert job.hard_limit == 140


def test_a_file_in_place_of_the_study_folder_is_refused(tmp_path):
    (tmp_path / "study").write_text("oops")
    with pytest.raises(UserError, match="is a file, not a study folder"):
        StudyDir(tmp_path / "study")


def test_an_unreadable_study_description_is_a_user_error(tmp_path):
    (tmp_path / "study.json").write_text("{broken")
    with pytest.raises(UserError, match="unreadable"):
        StudyDir(tmp_path).meta()


def test_the_study_masks_the_keys_it_knows_in_every_record_and_in_study_json(tmp_path):
    """Whatever a worker (or a Ray actor) sends back, the coordinator writes no key."""
    from colorbrowser.agent.trajectory import Redactor

    key = "sk-coordinator-known-key"
    [variant] = build_variants(Settings(model={"base_url": "http://127.0.0.1:9/v1",
                                               "api_key": key}))
    study = StudyDir(tmp_path / "study", Redactor({key}))
    study.register("suite.yaml", [variant], ["colorbrowser", "eval", f"--note={key}"])
    study.append(record(variant, "t", 0, answer=f"the key is {key.upper()}",
                        error=f"echoed {key}", info={"answer": key}))
    for name in ("results.jsonl", "study.json"):
        assert key not in (tmp_path / "study" / name).read_text().lower()
    [back] = study.records()
    assert back.answer == "the key is ***" and back.info == {"answer": "***"}


def test_a_lone_surrogate_in_a_record_is_written_as_a_replacement_character(tmp_path):
    study = StudyDir(tmp_path / "study")
    variant = build_variants(Settings())[0]
    study.append(record(variant, "miniwob:click-button", 0, answer="a\ud800",
                        error="b\udfff", info={"page\ud800": "c"}))
    found = read_records(study.results_path)
    assert [(r.answer, r.error, r.info) for r in found] == [
        ("a\ufffd", "b\ufffd", {"page\ufffd": "c"})]
