"""The workflows benchmark: its families are the arena's intent templates, its bare
script reaches what the oracle plan reaches, and its quick plumbing (record, learn,
prove, held-out sibling, bare timing, changed pages) runs end to end on the test Trac
without a model and ends with its contract line."""

from __future__ import annotations

import json
import re

import pytest

from .scripts import load


def test_families_are_the_shared_intent_templates_of_the_arena():
    bench = load("workflows")
    fams = bench.families()
    assert len(fams) == 58
    assert sum(len(f.tasks) for f in fams) == 127  # the "127 of 165"
    owner = next(f for f in fams if f.teacher == "trac-ticket-owner-18")
    assert owner.heldout == ["trac-ticket-owner-42", "trac-ticket-owner-76"]
    assert all(f.group != "multi" or len(f.tasks) >= 2 for f in fams)
    quick = bench.chosen_families(bench.parse(["--quick"]))
    assert quick and {f.group for f in quick} == {"trac"}
    only = bench.chosen_families(bench.parse(["--tasks", "trac-comment-*"]))
    assert [f.teacher for f in only] == ["trac-comment-33"]


@pytest.mark.slow
def test_the_quick_plumbing_runs_on_trac_and_ends_with_the_contract_line(arena_cache, capsys,
                                                                          tmp_path):
    bench = load("workflows")
    assert bench.main(["--tasks", "trac-priority-*", "--no-model", "--kinds", "extra",
                       "--explore-budget", "0",
                       "--cache", str(arena_cache), "--instance", "23",
                       "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    m = re.fullmatch(r"workflows: families 1, heldout_success (\d+)%, model_calls_saved -, "
                     r"wrong_element (\d+), healed (\d+), from_exploration (\S+)/165, "
                     r"time_vs_bare (\S+)", last)
    assert m, last
    assert int(m.group(1)) == 100  # the held-out sibling solved by its workflow alone
    assert m.group(2) == "0"  # no workflow step acted on a decoy
    assert float(m.group(5)) > 0
    assert "changed pages" in out and "extra" in out
    # Near the limit: where the timed episodes' steps went, beside the bare script's time.
    assert re.search(r"per step \(ms, mean of \d+ steps in 1 episodes\): observe \d+, "
                     r"decide \d+, act \d+, record \d+, other -?\d+; end of episode \d+ ms",
                     out), out
    saved = json.loads((tmp_path / "out" / "outcomes.json").read_text("utf-8"))
    [timed] = saved["breakdown"]
    assert timed["steps"] >= 2 and timed["bare"] > 0  # an action and the stop
    steps = sum(timed["parts"].values())
    assert 0 < steps <= timed["seconds"]  # the parts are inside the episode's time
    assert steps + timed["end"] <= timed["seconds"] + 1e-6
    blind = next(line for line in out.splitlines() if line.startswith("extra"))
    assert int(blind.split()[-1]) >= 1  # blind replay clicked the decoy: the change bites
