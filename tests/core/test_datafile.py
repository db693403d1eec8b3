"""Loading a file someone sent cannot eat the machine, and its errors stay one line.

Task, plan, replay, tip and config files (YAML, JSON, TOML) go through one loader
(``colorbrowser.datafile``): a size cap, YAML aliases that may add only a bounded
number of nodes and may not loop, and a nesting limit. Each case here is what a
hostile file does at one load site; each test runs under an address-space limit, so
a loader without the bounds fails it with MemoryError instead of taking the machine.
"""

from __future__ import annotations

import contextlib
import resource
import textwrap
import time

import pytest

from colorbrowser.datafile import ALIAS_NODES, MAX_DEPTH, DataFileError, parse_yaml
from colorbrowser.errors import UserError
from tests.evaluation.runner_helpers import run_main

SHORT_LINE = 300  # an error line quotes at most a snippet of the input


def bomb(levels: int = 9, width: int = 9, key: str = "x") -> str:
    """The "billion laughs": each level lists the one before ``width`` times."""
    lines = [f'l0: &l0 [{", ".join(["lol"] * width)}]']
    for n in range(1, levels):
        lines.append(f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * width)}]")
    lines.append(f"{key}: *l{levels - 1}")
    return "\n".join(lines) + "\n"


@pytest.fixture(autouse=True)
def bounded_memory():
    """At most 768 MB more address space while the test runs: an unbounded expansion
    raises MemoryError here instead of swapping the shared machine."""
    with open("/proc/self/status") as fh:
        size_kb = next(int(line.split()[1]) for line in fh if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size_kb * 1024 + 768 * 2**20, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def one_short_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and len(lines[0]) < SHORT_LINE, text[:2000]
    assert "Traceback" not in text
    return lines[0]


def cli_error(capsys, *argv: str) -> str:
    started = time.monotonic()
    code, _, err = run_main(capsys, *argv)
    assert code == 2, err[:2000]
    assert time.monotonic() - started < 60
    return one_short_line(err)


def flow_bomb(levels: int = 9, width: int = 9) -> str:
    """The same as one flow list that can stand as any value: ``[&l0 [...], &l1 [...]]``."""
    items = [f'&l0 [{", ".join(["lol"] * width)}]']
    items += [f"&l{n} [{', '.join([f'*l{n - 1}'] * width)}]" for n in range(1, levels)]
    return "[" + ", ".join(items) + "]"


# -- the loader itself -------------------------------------------------------------
def test_the_615_byte_task_file_is_refused_at_once():
    with pytest.raises(DataFileError) as err:
        parse_yaml(bomb(), "tasks.yaml")
    assert "aliases expand it to" in str(err.value)
    one_short_line(str(err.value))


def test_aliases_within_the_bound_still_load():
    text = textwrap.dedent("""\
        base: &base {must_include: [a, b]}
        tasks:
          - {id: one, eval: *base}
          - {id: two, eval: {<<: *base, exact: c}}
        """)
    data = parse_yaml(text, "tasks.yaml")
    assert data["tasks"][0]["eval"] == {"must_include": ["a", "b"]}
    assert data["tasks"][1]["eval"] == {"must_include": ["a", "b"], "exact": "c"}
    merged = parse_yaml("base: &b {x: 1, y: 2}\nuse: {<<: *b, y: 3}\n", "ok.yaml")
    assert merged["use"] == {"x": 1, "y": 3}  # a merge key may be overridden
    widest = "a: &a [" + ", ".join(["x"] * (ALIAS_NODES // 2)) + "]\nb: [*a]\n"
    assert len(parse_yaml(widest, "ok.yaml")["b"][0]) == ALIAS_NODES // 2


@pytest.mark.parametrize(("text", "said"), [
    ("&a [*a]\n", "refers to a node that holds it"),  # a list that holds itself
    ("a: &a {b: *a}\n", "refers to a node that holds it"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested deeper"),
    ("[" * 50_000, "nest"),  # past the parser's own limit
    # Two lists of 60 levels each, one inside the other through an alias: 120 deep.
    (f"a: &a {'[' * 60}1{']' * 60}\nb: {'[' * 60}*a{']' * 60}\n", "nested deeper"),
    ("d: 2024-02-30\n", "day is out of range"),
    ("n: " + "9" * 5000 + "\n", "not valid YAML"),
    ("x: *" + "n" * 100_000 + "\n", "not valid YAML"),  # a huge name, quoted short
    # A key written twice: YAML keeps the last, a reviewer reads the first.
    ("tasks:\n- id: a\n  eval: {exact: '1'}\n  eval: {exact: '2'}\n", "'eval' appears twice"),
    ("{a: 1, b: 2, a: 3}\n", "'a' appears twice"),
])
def test_hostile_yaml_is_one_short_line(text, said):
    with pytest.raises(DataFileError) as err:
        parse_yaml(text, "f.yaml")
    assert said in one_short_line(str(err.value))


# -- every load site ------------------------------------------------------------------
def test_a_task_file_bomb_is_refused_by_eval_list(capsys, tmp_path):
    path = tmp_path / "tasks.yaml"
    path.write_text(textwrap.dedent(f"""\
        tasks:
          - id: a
            goal: g
            start_url: http://127.0.0.1:9/
            eval:
              reference_answers:
                must_include: {flow_bomb()}
        """))
    line = cli_error(capsys, "eval", str(path), "--list")
    assert line.startswith(f"error: {path}: refused YAML")


@pytest.mark.parametrize(("name", "text"), [
    ("tasks.json", "[" * 100_000),
    ("tasks.json", '[{"task_id": ' + "9" * 5000 + "}]"),
    ("tasks.yaml", "tasks:\n  - id: " + "[" * 100_000 + "\n"),
])
def test_a_task_file_nested_without_end_is_one_line(capsys, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert cli_error(capsys, "eval", str(path), "--list").startswith(f"error: {path}")


def test_a_task_file_past_the_size_cap_is_refused_before_it_is_read(capsys, tmp_path):
    path = tmp_path / "tasks.yaml"
    with path.open("w") as fh:
        fh.write("tasks:\n")
        for n in range(340_000):
            fh.write(f"  - {{id: t{n}, goal: g, start_url: 'http://127.0.0.1:9/'}}\n")
    assert "is too big" in cli_error(capsys, "eval", str(path), "--list")


def test_a_tip_file_bomb_is_one_short_line(capsys, tmp_path):
    path = tmp_path / "tips.yaml"
    path.write_text(f"- id: t1\n  site: shop\n  text: {flow_bomb()}\n")
    kb = tmp_path / "kb.sqlite"
    line = cli_error(capsys, "tips", "--db", str(kb), "import", str(path))
    assert line.startswith(f"error: {path}") and "aliases" in line


def test_a_replay_file_bomb_is_refused(tmp_path):
    from colorbrowser.evaluation.replay import ReplayScript

    path = tmp_path / "replay.yaml"
    path.write_text(bomb(key="click-button"))
    with pytest.raises(UserError) as err:
        ReplayScript.load(path)
    assert "aliases" in one_short_line(str(err.value))


def test_a_plan_file_bomb_is_refused(tmp_path):
    from colorbrowser.arena.plans import load_plans

    path = tmp_path / "plans.yaml"
    path.write_text(bomb(key="trac-comment-1"))
    with pytest.raises(UserError) as err:
        load_plans([path])
    assert "aliases" in one_short_line(str(err.value))


def test_an_explored_task_folder_bomb_is_refused(tmp_path):
    from colorbrowser.explore.validate import PLANS_FILE, TASKS_FILE, load_tasks

    (tmp_path / TASKS_FILE).write_text("[]")
    (tmp_path / PLANS_FILE).write_text(bomb())
    with pytest.raises(UserError) as err:
        load_tasks(tmp_path)
    assert "aliases" in one_short_line(str(err.value))


@pytest.mark.parametrize("text", [
    "a = " + "[" * 100_000,
    "[agent]\nmax_steps = " + "9" * 5000 + "\n",
    "# padding\n" * 120_000,  # past the 1 MB cap of a settings file
])
def test_a_config_file_is_one_line(capsys, tmp_path, text):
    config = tmp_path / "config.toml"
    config.write_text(text)
    line = cli_error(capsys, "eval", "x.yaml", "--config", str(config))
    assert line.startswith(f"error: config file {config}")


@pytest.mark.parametrize("text", [
    "a = " + "[" * 100_000,
    "[agent]\nmax_steps = " + "9" * 5000 + "\n",
])
def test_an_agent_config_is_one_line(capsys, tmp_path, text):
    config = tmp_path / "agent.toml"
    config.write_text(text)
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text("tasks:\n  - {id: a, goal: g, start_url: 'http://127.0.0.1:9/'}\n")
    with contextlib.chdir(tmp_path):
        line = cli_error(capsys, "eval", str(tasks), "--agent-config", str(config))
    assert line.startswith(f"error: agent config {config}")
