"""``colorbrowser report``: success rates with Wilson intervals, errors apart from
failures, costs, per-task rows, and the comparison of two studies.

The studies are real: ``colorbrowser eval`` with the replay agent on MiniWoB pages,
two seeds per task. The baseline solves 2 of 6 episodes, the other study 4 of 6:

    task           baseline (A)   other (B)
    click-button   s0 ✓  s1 ✗     s0 ✗  s1 ✗
    enter-text     s0 ✓  s1 ✗     s0 ✓  s1 ✓
    focus-text     s0 ✗  s1 ✗     s0 ✓  s1 ✓
"""

from __future__ import annotations

import re
import shutil

import pytest

from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evaluation.report import build_report, compare, wilson
from colorbrowser.evaluation.study import StudyDir
from tests.evaluation.runner_helpers import eval_cli, records, write
from tests.evaluation.runner_helpers import run_main as run

TASKS = "click-button,enter-text,focus-text"
BASELINE = """\
click-button:
  0: ["click('1')"]
  1: ["click('2')"]
enter-text:
  0: ["fill('1', 'Agustina')", "click('2')"]
  1: ["fill('1', 'Bob')", "click('2')"]
focus-text:
  0: []
  1: []
"""
OTHER = """\
click-button:
  0: ["click('4')"]
  1: ["click('2')"]
enter-text:
  0: ["fill('1', 'Agustina')", "click('2')"]
  1: ["fill('1', 'Jerald')", "click('2')"]
focus-text:
  0: ["click('1')"]
  1: ["click('1')"]
"""


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("report-studies")
    made = {}
    for name, script in (("A", BASELINE), ("B", OTHER)):
        replay = write(root / f"{name}.yaml", script)
        proc = eval_cli("miniwob", "--tasks", TASKS, "--seeds", "0,1", "--replay", str(replay),
                        "--out", str(root / name), cwd=root)
        assert proc.returncode == 0, proc.stderr
        made[name] = root / name
    return made


@pytest.fixture
def copy_of(studies, tmp_path):
    """A study to change without touching the shared ones."""
    def make(name: str):
        return shutil.copytree(studies[name], tmp_path / f"copy-{name}")
    return make


def with_errors(study):
    """Newer attempts that errored: enter-text s0 timed out, focus-text s1 crashed."""
    folder = StudyDir(study)
    old = {(r.task, r.seed): r for r in records(study)}
    for key, kind, message in ((("miniwob:enter-text", 0), "timeout", "past the 900 s limit"),
                               (("miniwob:focus-text", 1), "crash", "worker process died")):
        folder.append(old[key].model_copy(update={
            "attempt": 2, "success": False, "reward": 0.0, "status": "error",
            "error_class": kind, "error": message}))
    return study


def flat(text: str) -> str:
    """Terminal output without table borders or repeated spaces."""
    return " ".join(re.sub(r"[│┃┏┓┗┛┡┩└┘━─┳┻╇┼]", " ", text).split())


# -- the interval -----------------------------------------------------------------------
@pytest.mark.parametrize(("successes", "total", "low", "high"), [
    (0, 10, 0.0, 0.2775),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
    (1, 20, 0.0089, 0.2361),
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_interval_matches_published_values(successes, total, low, high):
    assert wilson(successes, total) == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_of_no_episodes_claims_nothing_and_narrows_with_more():
    assert wilson(0, 0) == (0.0, 1.0)
    small, large = wilson(5, 10), wilson(500, 1000)
    assert large[1] - large[0] < small[1] - small[0]
    with pytest.raises(ValueError):
        wilson(11, 10)


# -- one study ----------------------------------------------------------------------
def test_report_writes_both_files_into_the_study_and_prints_a_short_table(capsys, studies):
    code, out, err = run(capsys, "report", str(studies["B"]))
    assert code == 0, err
    assert (studies["B"] / "report.md").is_file() and (studies["B"] / "report.html").is_file()
    lines = out.splitlines()
    assert lines[-2:] == [str(studies["B"] / "report.md"), str(studies["B"] / "report.html")]
    assert "all 6 4 66.7% 30.0–90.3% 2 0" in flat(out)


def test_rates_per_variant_site_and_task_count_success_across_seeds(capsys, studies):
    assert run(capsys, "report", str(studies["B"]))[0] == 0
    md = (studies["B"] / "report.md").read_text()
    assert "| all | 6 | 4 | 66.7% | 30.0–90.3% | 2 | 0 |" in md
    assert "| default | 6 | 4 | 66.7% | 30.0–90.3% | 2 | 0 |" in md  # the variant
    assert "| miniwob | 6 | 4 | 66.7% | 30.0–90.3% | 2 | 0 |" in md  # the site
    assert "| miniwob:click-button | miniwob | 0/2 | 0.0% | s0 ✗ · s1 ✗ |" in md
    assert "| miniwob:enter-text | miniwob | 2/2 | 100.0% | s0 ✓ · s1 ✓ |" in md
    assert "No episode errored." in md


def test_steps_tokens_cost_and_time_are_mean_and_median_over_episodes(studies):
    report = build_report(studies["A"])
    steps = sorted(r.steps for r in records(studies["A"]))
    spread = report.overall.spreads["steps"]
    assert spread.mean == pytest.approx(sum(steps) / 6)
    assert spread.median == (steps[2] + steps[3]) / 2
    assert spread.total == sum(steps)
    wall = report.overall.spreads["wall_time"]
    assert 0 < wall.median <= wall.total == pytest.approx(sum(r.wall_time for r in
                                                              records(studies["A"])))


def test_a_study_with_errors_counts_them_apart_from_failures(capsys, copy_of):
    study = with_errors(copy_of("A"))
    code, out, err = run(capsys, "report", str(study))
    assert code == 0, err
    md = (study / "report.md").read_text()
    # The newest attempt counts: 6 episodes, not 8; 1 success, 3 failures, 2 errors.
    assert "| all | 6 | 1 | 16.7% | 3.0–56.4% | 3 | 2 |" in md
    assert "2 episode(s) errored: 1 timeout, 1 crash." in md
    assert "| miniwob:enter-text | s0 ! timeout | default | timeout | past the 900 s limit |" \
        in md
    assert "(errors left out):\n1/4, 25.0%" in md
    assert "| miniwob:enter-text | miniwob | 0/2 | 0.0% | s0 ! timeout · s1 ✗ |" in md
    assert "errored (counted as not successful): 1 timeout, 1 crash" in out
    assert "all 6 1 16.7% 3.0–56.4% 3 2" in flat(out)


def test_a_torn_last_line_is_skipped_with_a_warning(capsys, copy_of):
    study = copy_of("A")
    with open(study / "results.jsonl", "a") as fh:
        fh.write('{"task": "miniwob:click-button", "se')
    code, out, err = run(capsys, "report", str(study))
    assert code == 0, err
    assert "skipped the torn last line 7" in out
    assert "> warning: " in (study / "report.md").read_text()
    assert "| all | 6 |" in (study / "report.md").read_text()


def test_several_variants_get_a_row_each_and_a_column_in_the_task_table(
        capsys, studies, copy_of):
    study = copy_of("A")
    for record in records(studies["B"]):
        StudyDir(study).append(record.model_copy(update={
            "variant": "memory=none", "config_hash": "b" * 12, "trajectory": None}))
    code, out, err = run(capsys, "report", str(study))
    assert code == 0, err
    md = (study / "report.md").read_text()
    assert "| all | 12 | 6 | 50.0% | 25.4–74.6% | 6 | 0 |" in md
    assert "| default | 6 | 2 | 33.3% | 9.7–70.0% | 4 | 0 |" in md
    assert "| memory=none | 6 | 4 | 66.7% | 30.0–90.3% | 2 | 0 |" in md
    assert "| miniwob:focus-text | miniwob | memory=none | 2/2 | 100.0% | s0 ✓ · s1 ✓ |" in md
    assert "memory=none 6 4 66.7%" in flat(out)


# -- two studies ----------------------------------------------------------------------
def test_compare_shows_per_task_deltas_flips_and_the_overall_delta(capsys, studies, tmp_path):
    code, out, err = run(capsys, "report", str(studies["B"]), "--compare", str(studies["A"]),
                         "--out", str(tmp_path / "cmp"))
    assert code == 0, err
    md = (tmp_path / "cmp" / "report.md").read_text()
    assert f"## Compared with {studies['A']}" in md
    assert "Over 6 matched episode(s): 2/6 (33.3%) → 4/6 (66.7%), **+33.3 pts**." in md
    assert "| miniwob:click-button | 1/2 (50.0%) | 0/2 (0.0%) | -50.0 pts |" in md
    assert "| miniwob:enter-text | 1/2 (50.0%) | 2/2 (100.0%) | +50.0 pts |" in md
    assert "| miniwob:focus-text | 0/2 (0.0%) | 2/2 (100.0%) | +100.0 pts |" in md
    flips = re.findall(r"^- (fixed|broken): (.*)$", md, flags=re.MULTILINE)
    assert flips == [("fixed", "miniwob:enter-text s1"), ("fixed", "miniwob:focus-text s0"),
                     ("fixed", "miniwob:focus-text s1"), ("broken", "miniwob:click-button s0")]
    assert "2/6 -> 4/6 (+33.3 pts) over matched episodes; 3 fixed, 1 broken" in flat(out)
    assert not (studies["B"] / "report.md").exists() or "Compared" not in (
        studies["B"] / "report.md").read_text()


def test_compare_matches_on_seeds_both_studies_ran_and_marks_flips_caused_by_errors(
        studies, copy_of):
    baseline = records(studies["A"])
    errored = {(r.task, r.seed): r for r in records(with_errors(copy_of("A")))}
    # The other study ran seed 0 only, enter-text s0 timed out, and one task is new.
    other = [errored[(r.task, 0)] for r in baseline if r.seed == 0]
    other.append(other[0].model_copy(update={"task": "miniwob:new-task"}))
    result = compare(baseline, other)
    assert [(d.task, d.a.total, d.b.total) for d in result.tasks] == [
        ("miniwob:click-button", 1, 1), ("miniwob:enter-text", 1, 1),
        ("miniwob:focus-text", 1, 1)]
    assert result.unmatched_seeds == 3 and result.only_b == ["miniwob:new-task"]
    assert [(f.task, f.seed, f.fixed, f.error) for f in result.flips] == [
        ("miniwob:enter-text", 0, False, "timeout")]
    assert (result.a.successes, result.b.successes) == (2, 1)


def test_compare_matches_unseeded_tasks_on_the_task_alone():
    def rec(task, success, seed=None):
        return EpisodeRecord(task=task, config_hash="h", seed=seed, success=success)

    result = compare([rec("a", True), rec("b", False), rec("c", True, seed=3)],
                     [rec("a", False), rec("b", True), rec("c", True, seed=4)])
    assert [(d.task, d.delta) for d in result.tasks] == [("a", -1.0), ("b", 1.0)]
    assert [(f.task, f.seed, f.fixed) for f in result.flips] == [("a", None, False),
                                                                  ("b", None, True)]
    assert result.unmatched_seeds == 2  # task c ran seed 3 in one study and 4 in the other


# -- links and the page -------------------------------------------------------------------
def test_task_rows_link_to_each_episodes_trace_page_once_it_is_written(
        capsys, copy_of, tmp_path):
    study = copy_of("B")
    assert run(capsys, "report", str(study))[0] == 0
    assert "trace.html" not in (study / "report.md").read_text()
    assert run(capsys, "view", str(study))[0] == 0
    out_dir = tmp_path / "elsewhere" / "reports"
    for target, prefix in ((study, "runs/default/"), (out_dir, "../../copy-B/runs/default/")):
        assert run(capsys, "report", str(study), "--out", str(target))[0] == 0
        md = (target / "report.md").read_text()
        links = re.findall(r"\[(s\d [✓✗])\]\(([^)]+)\)", md)
        assert len(links) == 6
        assert ("s0 ✗", prefix + "miniwob-click-button-s0/trace.html") in links
        assert all((target / href).resolve().is_file() for _, href in links)
        html = (target / "report.html").read_text()
        assert all(f'href="{href}"' in html for _, href in links)


def test_html_report_is_one_file_with_small_thumbnails_and_escaped_text(
        capsys, copy_of, page):
    study = copy_of("A")
    evil = records(study)[0].model_copy(update={
        "task": "miniwob:evil", "trajectory": None, "error_class": "eval", "success": False,
        "error": "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>"})
    StudyDir(study).append(evil)
    assert run(capsys, "report", str(study))[0] == 0
    html = (study / "report.html").read_text()
    assert not re.search(r'(src|href)="(?!data:|#)', html)  # no traces yet, no assets
    assert "<link" not in html and "<script" not in html
    page.goto((study / "report.html").as_uri(), wait_until="load")
    assert page.evaluate("window.pwned") is None
    assert "<script>window.pwned=1</script>" in page.locator("table.errors").inner_text()
    widths = page.evaluate("[...document.images].map(i => i.naturalWidth)")
    assert len(widths) == 6 and all(0 < w <= 160 for w in widths), widths  # one per episode
    md = (study / "report.md").read_text()
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in md and "<script" not in md


def test_no_thumbnails_flag_leaves_images_out(capsys, copy_of):
    study = copy_of("A")
    assert run(capsys, "report", str(study), "--no-thumbnails")[0] == 0
    assert "<img" not in (study / "report.html").read_text()


# -- mistakes ---------------------------------------------------------------------------
def study_holding(name, text):
    """A maker of a study folder ``s`` with one file in it."""
    def make(p):
        study = p / "s"
        study.mkdir()
        write(study / name, text)
        return study
    return make


broken_middle_line = study_holding("results.jsonl", '{"task": "a", "config_hash": "h"}\n'
                                                    'not json\n'
                                                    '{"task": "b", "config_hash": "h"}\n')
missing_field = study_holding("results.jsonl", '{"task": "a"}\n')
endless_line = study_holding("results.jsonl", "[" * 100_000 + "\n")
only_study_json = study_holding("study.json", "{}")
empty_results = study_holding("results.jsonl", "\n")


@pytest.mark.parametrize(("make", "extra", "message"), [
    (lambda p: p / "nope", [], "no such study folder: {p}/nope"),
    (lambda p: write(p / "f.txt", "x"), [], "{p}/f.txt is a file, not a study folder"),
    (lambda p: p, [], "{p} is not a study folder (no results.jsonl or study.json)"),
    (only_study_json, [], "{p}/s has no results yet (results.jsonl is missing)"),
    (empty_results, [], "{p}/s has no finished episodes yet"),
    (broken_middle_line, [], "{p}/s/results.jsonl: line 2 is not JSON (Expecting value)"),
    (missing_field, [], "{p}/s/results.jsonl: line 1 is not an episode record "
                        "(config_hash: Field required)"),
    (endless_line, [], "{p}/s/results.jsonl: line 1 is not JSON (nested deeper than 100 "
                       "levels)"),
], ids=["missing", "file", "not-a-study", "no-results", "empty", "broken-line", "not-a-record",
        "nested-without-end"])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, make, extra, message):
    target = make(tmp_path)
    code, out, err = run(capsys, "report", str(target), *extra)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: " + message.format(p=tmp_path)), err
    assert out == ""


def test_bad_compare_or_out_folder_is_one_line(capsys, studies, tmp_path):
    code, _, err = run(capsys, "report", str(studies["A"]), "--compare", str(tmp_path / "x"))
    assert code == 2 and err == f"error: no such study folder: {tmp_path / 'x'}\n"
    target = write(tmp_path / "file", "x")
    code, _, err = run(capsys, "report", str(studies["A"]), "--out", str(target))
    assert code == 2
    assert err == (f"error: cannot write the report folder {target}: it is a file, not a "
                   "folder (given as --out)\n")
