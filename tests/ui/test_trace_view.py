"""``colorbrowser view``: one self-contained trace.html per episode, opened in real Chromium.

Run folders come from the real writers: a study run by ``colorbrowser eval`` with the
replay agent on MiniWoB pages, and folders written with ``Trajectory`` for what the
replay agent does not produce (summaries, tips, triggers, model usage, a crash).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from colorbrowser.agent.trajectory import Redactor, Trajectory
from colorbrowser.cli import main
from colorbrowser.steps import Step
from tests.evaluation.runner_helpers import eval_cli, out_places_that_cannot_be_written, write
from tests.evaluation.runner_helpers import run_main as run

PAYLOAD = "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
REPLAY = f"""\
enter-text:
  0: ["fill('1', '{PAYLOAD}')", "click('2')"]
click-button:
  0: ["click('1')"]
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """Two MiniWoB episodes; enter-text types markup into the page, which the next
    observation then reads back as page text."""
    root = tmp_path_factory.mktemp("trace-study")
    replay = write(root / "replay.yaml", REPLAY)
    proc = eval_cli("miniwob", "--tasks", "enter-text,click-button", "--replay", str(replay),
                    "--out", str(root / "study"), cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root / "study"


def png(width: int = 40, height: int = 30, color: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="PNG")
    return out.getvalue()


def step(number: int, **fields) -> Step:
    """A step line with the keys the episode loop writes."""
    record = {
        "step": number, "url": f"http://127.0.0.1:9/page{number}", "title": f"Page {number}",
        "observation": f"[1] button 'Go {number}'", "memory": "", "tips": [], "tip_ids": [],
        "hints": [], "notes": [], "thought": f"thinking {number}", "action": f"click('{number}')",
        "reply": None, "format_errors": [], "triggers": [],
        "result": {"ok": True, "error": None, "output": None, "done": False, "answer": None,
                   "info": {}},
        "usage": {"prompt_tokens": 100 * number, "completion_tokens": 10 * number,
                  "cost": 0.001 * number, "calls": 1},
    }
    record.update(fields)
    return Step.read(record)


def open_page(page, path):
    page.goto(path.resolve().as_uri(), wait_until="load")
    return page


def decoded_widths(page) -> list[int]:
    return page.evaluate("[...document.images].map(i => i.complete ? i.naturalWidth : -1)")


def test_a_run_folder_becomes_one_page_with_every_step_and_its_screenshots(
        capsys, study, page):
    run_dir = study / "runs" / "default" / "miniwob-enter-text-s0"
    code, out, err = run(capsys, "view", str(run_dir))
    assert code == 0, err
    trace = run_dir / "trace.html"
    assert out.strip() == str(trace)
    steps = [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]
    assert len(steps) == 2
    open_page(page, trace)
    goal = json.loads((run_dir / "meta.json").read_text())["goal"]
    assert page.inner_text("#goal") == goal
    actions = page.locator(".action").all_inner_texts()
    assert actions == [s["action"] for s in steps]
    # Each step: its marked screenshot, and the plain one folded away; all decoded.
    widths = decoded_widths(page)
    assert len(widths) == 4 and all(w > 0 for w in widths), widths
    html = trace.read_text()
    assert 'src="data:image/png;base64,' in html
    assert not re.search(r'(src|href)="(?!data:|#)', html)  # nothing outside the file


def test_page_text_with_markup_is_shown_as_text_and_never_runs(capsys, study, page):
    run_dir = study / "runs" / "default" / "miniwob-enter-text-s0"
    assert run(capsys, "view", str(run_dir))[0] == 0
    open_page(page, run_dir / "trace.html")
    assert page.evaluate("window.pwned") is None
    assert page.locator("script").count() == 0
    assert page.locator("img[src='x']").count() == 0
    assert PAYLOAD in page.locator(".action").first.inner_text()
    page.locator("details", has_text="observation").nth(1).locator("summary").click()
    assert f"value='{PAYLOAD}'" in page.locator("details pre").nth(1).inner_text()


def test_a_study_gets_a_page_in_every_run_folder_and_the_count_is_printed(capsys, study):
    code, out, err = run(capsys, "view", str(study))
    assert code == 0, err
    folders = sorted(p for p in (study / "runs" / "default").iterdir())
    assert len(folders) == 2
    assert all((p / "trace.html").is_file() for p in folders)
    assert out.startswith("wrote 2 trace(s)")
    # The study's record fills in the verdict: click-button s0 was solved.
    html = (study / "runs" / "default" / "miniwob-click-button-s0" / "trace.html").read_text()
    assert '<span class="badge ok">success</span>' in html


def test_each_step_shows_thought_summary_tips_triggers_and_token_usage(tmp_path, page):
    traj = Trajectory(tmp_path / "run")
    traj.write_meta({"goal": "Find the cheapest flight", "start_url": "http://127.0.0.1:9/"})
    traj.append_step(step(1, som=traj.save_image("0001-som.png", png()),
                          screenshot=traj.save_image("0001.png", png(color="blue"))))
    traj.append_step(step(
        2, memory="Belief: the search form is filled; next, sort by price.",
        tips=["Sort results before reading prices."], tip_ids=["t7"],
        triggers=[{"kind": "repeat", "reason": "same action three times", "step": 2}],
        result={"ok": False, "error": "element 9 is not visible", "output": None,
                "done": False, "answer": None, "info": {}},
        som=traj.save_image("0002-som.png", png())))
    traj.write_result({"status": "done", "answer": "$120", "steps": 2, "elapsed": 3.5,
                       "usage": {"prompt_tokens": 300, "completion_tokens": 30, "cost": 0.003,
                                 "calls": 2}})
    assert main(["view", str(traj.dir), "--out", str(tmp_path / "out" / "t.html")]) is None
    open_page(page, tmp_path / "out" / "t.html")
    assert page.inner_text("#answer") == "$120"
    assert page.locator(".thought").all_inner_texts() == ["thinking 1", "thinking 2"]
    second = page.locator("#step-2")
    assert second.locator(".summary").inner_text() == (
        "Belief: the search form is filled; next, sort by price.")
    assert second.locator(".tips li").all_inner_texts() == ["Sort results before reading prices."]
    assert second.locator(".triggers li").all_inner_texts() == ["repeat: same action three times"]
    assert "error: element 9 is not visible" in second.inner_text()
    assert second.locator(".usage").inner_text() == "200 in, 20 out, 1 calls, cost 0.0020"
    assert "330 (300 in, 30 out, 2 calls)" in page.inner_text("header")
    assert all(w == 40 for w in decoded_widths(page))


def test_a_run_killed_mid_write_still_renders_with_placeholders_and_a_note(tmp_path, page):
    traj = Trajectory(tmp_path / "run")
    traj.write_meta({"goal": "Book a room"})
    traj.append_step(step(1, som=traj.save_image("0001-som.png", png())))
    traj.append_step(step(2, som=traj.save_image("0002-som.png", png()),
                          screenshot=traj.save_image("0002.png", png())))
    (traj.dir / "screenshots" / "0002-som.png").unlink()
    (traj.dir / "screenshots" / "0002.png").unlink()
    with open(traj.steps_path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(step(3).to_json())[:50])  # the process died while writing step 3
    assert main(["view", str(traj.dir)]) is None
    open_page(page, traj.dir / "trace.html")
    assert page.locator("section.step").count() == 2
    assert page.locator("#step-2 .missing").inner_text() == (
        "screenshot missing: screenshots/0002-som.png")
    notes = page.locator(".notice").all_inner_texts()
    assert any("line 3 is torn" in n for n in notes), notes
    assert any("result.json is missing" in n for n in notes), notes
    assert "unfinished" in page.inner_text("header")


def test_screenshot_paths_leading_out_of_the_run_folder_are_not_embedded(tmp_path):
    secret = tmp_path / "elsewhere.png"
    secret.write_bytes(png(color="green"))
    traj = Trajectory(tmp_path / "run")
    traj.append_step(step(1, som="../elsewhere.png", screenshot=str(secret)))
    assert main(["view", str(traj.dir)]) is None
    html = (traj.dir / "trace.html").read_text()
    assert "data:image" not in html
    assert "screenshot missing: ../elsewhere.png" in html


def test_keys_never_reach_the_page(tmp_path):
    key = "sk-live-0123456789abcdef"
    traj = Trajectory(tmp_path / "run", Redactor({key}))
    traj.write_meta({"goal": "Check the balance", "settings": {"model": {"api_key": key}}})
    traj.append_step(step(1, thought=f"the key is {key}"))
    # A meta.json written by hand or by an older version, keys and all.
    meta = json.loads((traj.dir / "meta.json").read_text())
    meta["settings"]["model"]["api_key"] = key
    (traj.dir / "meta.json").write_text(json.dumps(meta))
    assert main(["view", str(traj.dir)]) is None
    html = (traj.dir / "trace.html").read_text()
    assert key not in html
    assert "the key is ***" in html


@pytest.mark.parametrize(
    ("make", "extra", "message"),
    [
        (lambda p: p / "missing", [], "error: no such folder: {p}/missing"),
        (lambda p: write(p / "notes.txt", "x"), [], "error: {p}/notes.txt is a file"),
        (lambda p: p, [], "error: {p} is neither a run folder (steps.jsonl) nor a study"),
        (lambda p: write(p / "results.jsonl", "") and p, ["--out", "x.html"],
         "error: --out names one file, so it works with a run folder only"),
    ],
    ids=["missing", "file", "neither", "out-with-a-study"],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, make, extra, message):
    target = make(tmp_path)
    code, out, err = run(capsys, "view", str(target), *extra)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(message.format(p=tmp_path)), err
    assert out == ""


@out_places_that_cannot_be_written("trace.html")
def test_a_page_that_cannot_be_written_is_one_error_line(capsys, tmp_path, place):
    run_dir = tmp_path / "run"
    Trajectory(run_dir).append_step(step(1))
    out = place(tmp_path)
    code, printed, err = run(capsys, "view", str(run_dir), "--out", out)
    assert code == 2 and printed == ""
    assert err.count("\n") == 1 and err.startswith(f"error: cannot write the page {out}:"), err
