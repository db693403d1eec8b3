"""A session exported with its screenshots and turns, and imported back byte for byte;
a typed password never leaves the run."""

from __future__ import annotations

import json
import re
import threading

from colorbrowser.copilot.channel import Command
from colorbrowser.testing import act, run_cli

from .test_gate import Panel, copilot_episode, env, fill_user, login  # noqa: F401


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.startswith(".")}


PASSWORD = "s3cret-pass"


def session_with_a_person(env, pages_url, tmp_path):  # noqa: F811
    """The agent proposes eve; the person takes over, types ada and a password."""
    episode, copilot, _ = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), act("done", "stop()")], countdown=30)

    def person():
        box = panel.proposal(1)["target"]["bbox"]
        copilot.channel.send(Command(kind="pause"))
        panel.person_acts(Command(kind="click", x=box[0] + 5, y=box[1] + 5),
                          Command(kind="type", text="ada"), Command(kind="press", key="Tab"),
                          Command(kind="type", text=PASSWORD), settle=0.5)

    panel = Panel(copilot)
    threading.Thread(target=person, daemon=True).start()
    episode.run()
    return tmp_path / "run"


def test_export_then_import_gives_back_the_same_run_folder(env, pages_url, tmp_path):  # noqa: F811
    run = session_with_a_person(env, pages_url, tmp_path)
    assert run_cli("session", "export", str(run), str(tmp_path / "export")) == 0
    turns = [json.loads(line) for line in
             (tmp_path / "export" / "turns.jsonl").read_text().splitlines()]
    assert [t["actor"] for t in turns] == ["agent", "person", "person", "agent"]
    assert turns[0]["goal"] == "Sign in as ada"
    assert re.fullmatch(r"fill\('\w+', '\*+'\)", turns[2]["action"])  # the password, masked
    for name, data in files(tmp_path / "export").items():
        assert PASSWORD.encode() not in data, name
    first = json.loads((tmp_path / "export" / "steps.jsonl").read_text().splitlines()[0])
    assert first["images"]["screenshot"]
    assert run_cli("session", "import", str(tmp_path / "export"), str(tmp_path / "back")) == 0
    original, back = files(run), files(tmp_path / "back")
    shared = {k: v for k, v in original.items() if k.endswith((".jsonl", ".png")) or
              k in ("meta.json", "result.json")}
    assert shared and {k: back.get(k) for k in shared} == shared


def test_importing_into_a_used_folder_is_one_line_error(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "steps.jsonl").write_text("{}\n")
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "steps.jsonl").write_text("{}\n")
    assert run_cli("session", "import", str(tmp_path / "export"), str(tmp_path / "run")) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'run'} already holds a run"
