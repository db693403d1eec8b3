"""Run folders are written step by step, atomically, with secrets masked."""

import json

from colorbrowser.agent.trajectory import Redactor, Trajectory, read_steps, write_json_atomic
from colorbrowser.steps import Step


def test_steps_are_appended_and_read_back_even_after_a_torn_write(tmp_path):
    t = Trajectory(tmp_path / "run")
    t.append_step(Step(step=1, action="click('1')"))
    t.append_step(Step(step=2, action="stop()"))
    with open(t.steps_path, "a") as fh:  # a kill in the middle of a write
        fh.write('{"step": 3, "act')
    assert [s["step"] for s in read_steps(t.dir)] == [1, 2]


def test_secrets_are_masked_in_every_file(tmp_path):
    t = Trajectory(tmp_path / "run", Redactor({"hunter22"}))
    t.write_meta({"goal": "log in with password hunter22", "nested": ["x hunter22"]})
    t.append_step(Step(step=1, action="fill('3', 'hunter22')"))
    t.write_result({"answer": "done hunter22"})
    for path in (tmp_path / "run").rglob("*.json*"):
        assert "hunter22" not in path.read_text(), path
        assert "***" in path.read_text()


def test_a_secret_is_masked_in_any_letter_case_and_a_longer_one_first():
    """Graders lower-case answers; a secret inside another must not leave a tail."""
    redactor = Redactor({"Hunter22", "Hunter22-long"})
    assert redactor.text("HUNTER22-LONG and hunter22.") == "*** and ***."
    redactor.add("x.y*z")  # regex characters are plain text here
    assert redactor.text("a x.y*z b xAyyz") == "a *** b xAyyz"


def test_atomic_json_leaves_no_temp_files(tmp_path):
    write_json_atomic(tmp_path / "a.json", {"x": 1})
    write_json_atomic(tmp_path / "a.json", {"x": 2})
    assert json.loads((tmp_path / "a.json").read_text()) == {"x": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_lone_surrogate_anywhere_is_written_as_a_replacement_character(tmp_path):
    # JSON from a model or a page may hold "\ud800"; strict UTF-8 cannot encode it.
    t = Trajectory(tmp_path / "run", Redactor({"hunter22"}))
    t.write_meta({"goal": "a\ud800b", "key\udfff": ["hunter22\ud800"]})
    t.append_step(Step(step=1, thought="x\udc80", title="\ud83d\ude00"))
    t.write_result({"answer": "\ud800"})
    assert json.loads((t.dir / "meta.json").read_text(encoding="utf-8")) == {
        "goal": "a\ufffdb", "key\ufffd": ["***\ufffd"]}
    [back] = read_steps(t.dir)
    assert (back["step"], back["thought"], back["title"]) == (1, "x\ufffd", "\U0001f600")
    assert json.loads((t.dir / "result.json").read_text(encoding="utf-8")) == {
        "answer": "\ufffd"}
