"""Our own YAML task files: same eval block as WebArena, one-line errors per entry/field."""

from __future__ import annotations

import textwrap

import pytest

from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import ConfigSuite
from colorbrowser.evaluation.taskfiles import load_yaml

GOOD = """\
tasks:
  - id: open-order
    goal: Open the latest order
    start_url: {base}/start.html
    eval:
      reference_url: {base}/order.html
  - id: order-status
    site: my-shop
    goal: What is the status of the latest order?
    start_url: {base}/start.html
    eval:
      reference_answers:
        exact_match: Pending
      program_html:
        - url: last
          locator: "document.querySelector('h1').outerText"
          required_contents:
            must_include: ["Order"]
"""


def write(tmp_path, text: str, name="tasks.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def error_of(path) -> str:
    with pytest.raises(UserError) as err:
        load_yaml(path, env={})
    return str(err.value)


def test_tasks_load_with_eval_types_inferred_and_site_from_the_host(tmp_path):
    path = write(tmp_path, GOOD.format(base="http://127.0.0.1:8000"))
    first, second = load_yaml(path, env={})
    assert first.eval.eval_types == ["url_match"]
    assert first.site == "127.0.0.1"
    assert second.eval.eval_types == ["string_match", "program_html"]
    assert second.site == "my-shop"
    assert first.entry().runnable and second.entry().runnable


def test_a_bare_list_at_the_top_level_works_too(tmp_path):
    path = write(tmp_path, """\
        - id: a
          goal: Open it
          start_url: http://x/
          eval: {reference_url: http://x/a}
        """)
    assert [d.id for d in load_yaml(path, env={})] == ["a"]


def test_yaml_task_runs_end_to_end_on_a_local_site(tmp_path, page, bench_url):
    path = write(tmp_path, GOOD.format(base=bench_url))
    suite = ConfigSuite(str(path), load_yaml(path, env={}))
    task = suite.task("order-status")
    task.setup(page)
    page.click("#order")
    page.wait_for_url("**/order.html")  # under load the click can return before the load
    assert task.validate(page, "pending").reward == 1.0
    assert task.validate(page, "shipped").reward == 0.0


def test_placeholders_work_in_yaml_and_a_missing_one_makes_the_task_unsupported(tmp_path):
    path = write(tmp_path, """\
        - id: a
          goal: Open it
          start_url: __SHOPPING__/start.html
          eval: {reference_url: __SHOPPING__/a}
        """)
    [missing] = load_yaml(path, env={})
    assert missing.entry().unsupported == "WA_SHOPPING not set"
    [filled] = load_yaml(path, env={"WA_SHOPPING": "http://shop:1"})
    assert filled.start_url == "http://shop:1/start.html" and filled.entry().runnable


def test_storage_state_is_relative_to_the_file_and_must_exist(tmp_path):
    path = write(tmp_path, """\
        - id: a
          goal: Open it
          start_url: http://x/
          storage_state: auth/me.json
          eval: {reference_url: http://x/a}
        """)
    [task] = load_yaml(path, env={})
    assert task.entry().unsupported == "login state auth/me.json not found"
    (tmp_path / "auth").mkdir()
    (tmp_path / "auth" / "me.json").write_text('{"cookies": []}')
    [task] = load_yaml(path, env={})
    assert task.entry().runnable and task.storage_state == tmp_path / "auth" / "me.json"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- id: a\n  start_url: http://x/\n  eval: {reference_url: http://x/a}\n",
         "entry 0 (id 'a'): goal: Field required"),
        ("- id: a\n  goal: g\n  start_url: http://x/\n  eval: {}\n",
         "entry 0 (id 'a'): eval.eval_types: List should have at least 1 item after "
         "validation, not 0"),
        ("- id: a\n  goal: g\n  start_url: http://x/\n"
         "  eval: {reference_answers: {must_include: yes}}\n",
         "entry 0 (id 'a'): eval.reference_answers.must_include: Input should be a valid list"),
        ("- id: a\n  goal: g\n  start_url: http://x/\n  eval: {reference_url: http://x/a}\n"
         "- id: b\n  goal: g\n  start_url: http://x/\n  evaluation: {reference_url: http://x}\n",
         "entry 1 (id 'b'): eval: Field required (and 1 more problem)"),
        ("- id: a\n  goal: g\n  start_url: http://x/\n  eval: {reference_url: http://x/a}\n"
         "- id: a\n  goal: g\n  start_url: http://x/\n  eval: {reference_url: http://x/a}\n",
         "entry 1: id 'a' repeats entry 0"),
        ("- id: has space\n  goal: g\n  start_url: http://x/\n  eval: {reference_url: u}\n",
         "entry 0 (id 'has space'): id: String should match pattern"),
        ("- id: a\n  goal: g\n  start_url: http://x/\n  eval:\n    program_html:\n"
         "      - url: last\n        required_contents: {}\n",
         "entry 0 (id 'a'): eval.program_html.0.required_contents: needs exactly one of "
         "exact_match or must_include"),
        ("- id: a\n  goal: g\n  start_url: http://x/\n"
         "  eval: {reference_answers: {fuzzy_match: maybe}}\n",
         "entry 0 (id 'a'): eval.reference_answers.fuzzy_match: Input should be a valid list "
         "or 'N/A'"),
        ("- just a string\n", "entry 0: expected a mapping with id, goal, start_url and eval"),
        ("tasks: []\n", "expected a non-empty list of tasks"),
        ("task:\n  - id: a\n", "unknown top-level key 'task' (expected 'tasks')"),
        ("", "expected a non-empty list of tasks"),
        ("- id: a\n  goal: [unclosed\n", "not valid YAML:"),
    ],
)
def test_mistakes_are_one_line_naming_the_entry_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    error = error_of(path)
    assert "\n" not in error
    assert error.startswith(f"{path}: ")
    assert message in error


def test_yaml_syntax_error_gives_the_line(tmp_path):
    path = write(tmp_path, "- id: a\n  goal: g\n   bad: indent\n")
    assert "(line 3, column" in error_of(path)
