"""The copilot benchmarks run end to end and end with their contract lines."""

import re

from .scripts import load


def test_a_short_capture_run_scores_ours_and_the_baseline_and_replays(capsys):
    capture = load("capture")
    assert capture.main(["--limit", "4"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(r"capture: f1 (\d\.\d{3}) baseline_f1 (\d\.\d{3}) replay_same (\d+\.\d)% "
                     r"heldout_f1 (\d\.\d{3}|n/a)", last)
    assert m, last
    assert float(m.group(1)) > float(m.group(2))


def test_the_capture_corpus_is_150_hand_labelled_sessions_most_on_the_arena_apps():
    capture = load("capture")
    local, arena = capture.local_sessions(), capture.arena_sessions()
    sessions = local + arena
    assert len(sessions) >= 150 and all(s.expected for s in sessions)
    assert len(arena) > len(sessions) / 2
    assert {s.app for s in arena} == {"trac", "wiki", "tracker", "forum", "shop"}
    assert sum(s.heldout for s in sessions) >= 0.45 * len(sessions)  # the held-out half
    assert len({s.kind for s in sessions}) >= 40


def test_the_baseline_debounces_typing_into_several_fills_and_loses_keys():
    capture = load("capture")
    from colorbrowser.browser.capture import RawEvent

    def ev(kind, t, **more):
        return RawEvent(kind=kind, t=t, bid="7", role="textbox", name="Name", tag="input",
                        **more)

    events = [ev("input", 0, value="A"), ev("input", 100, value="Ad"),
              ev("input", 600, value="Ada"), ev("key", 700, key="Enter")]
    assert capture.baseline(events) == ["fill(textbox 'Name', 'Ad')",
                                        "fill(textbox 'Name', 'Ada')"]


def test_a_short_gate_run_prints_its_line_and_no_accepted_pause_lets_an_action_run(capsys):
    gate = load("gate")
    assert gate.main(["--races", "30", "--countdowns", "3", "--pauses", "3"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(r"gate: countdown_err_ms (\d+\.\d) pause_p95_ms (\d+\.\d) races 30 "
                     r"ran_after_pause (\d+)", last)
    assert m, last
    assert m.group(3) == "0"


def _study_rows(out: str) -> dict[tuple[str, str], list[str]]:
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 9 and parts[0] in ("oracle", "random", "model"):
            rows[(parts[0], parts[1])] = parts[2:]
    return rows


def test_the_copilot_study_on_two_trac_tasks_gives_sane_collaboration_figures(
        arena_cache, capsys):
    study = load("copilot_study")
    tasks = "trac-ticket-owner-18,trac-milestone-size-1.1"
    assert study.main(["--tasks", tasks, "--agents", "oracle,random", "--max-steps", "6",
                       "--cache", str(arena_cache), "--show"]) == 0
    out = capsys.readouterr().out
    rows = _study_rows(out)
    assert set(rows) == {("oracle", "off"), ("oracle", "on"), ("random", "off"),
                         ("random", "on")}, out
    # tasks, success, agent steps, human steps, human share, interventions, agent-driven
    for knowledge in ("off", "on"):
        oracle, rand = rows[("oracle", knowledge)], rows[("random", knowledge)]
        assert oracle[0] == rand[0] == "2"
        assert oracle[1] == "100%" and oracle[3] == "0.0" and oracle[4] == "0%", out
        assert float(oracle[2]) >= 2 and oracle[5] == "0.00" and oracle[6] == "100%", out
        # The person corrects the random agent: it takes steps and the task still succeeds.
        assert int(rand[4].rstrip("%")) > 0 and float(rand[3]) > 0, out
        assert float(rand[5]) > 0 and rand[1] == "100%", out
    m = re.search(r"tips accepted from the first pass's corrections: oracle (\d+), "
                  r"random (\d+)", out)
    assert m and m.group(1) == "0" and int(m.group(2)) > 0, out
    assert "not comparable to CowPilot's human study" in out
