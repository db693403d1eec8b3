"""`colorbrowser demo` (what `make demo` runs) no longer calls an empty answer done: the
empty stop goes back to the agent with the reason, and an answer that stays empty ends
with the verdict "refuted" beside the status. A real `colorbrowser` process, the real
shop and browser, and a scripted model endpoint over HTTP (scripted replies)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from colorbrowser.testing import act
from tests.hitl.fake_model import Chat, fake_model, summary_json

SRC = Path(__file__).resolve().parents[2] / "src"
TOLD = "the answer is empty"


def demo(tmp_path: Path, model, *args: str) -> subprocess.CompletedProcess:
    config = tmp_path / "cfg" / "colorbrowser" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[agent]\ntips_embeddings = false\n")  # no torch in the subprocess
    env = {**os.environ, "PYTHONPATH": str(SRC), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "COLORBROWSER_CACHE": str(tmp_path / "cache"), "COLUMNS": "300",
           "FAKE_MODEL_KEY": model.token}
    return subprocess.run(
        [sys.executable, "-c", "from colorbrowser.cli import main; main()", "demo",
         "--base-url", model.url, "--model", "fake", "--api-key-env", "FAKE_MODEL_KEY",
         "--out", str(tmp_path / "run"), *args],
        capture_output=True, text=True, timeout=300, env=env)


def test_an_empty_answer_is_sent_back_and_the_second_try_is_verified(tmp_path):
    def shopper(chat: Chat) -> str:
        if chat.role != "operator":
            return summary_json("browsing the shop")
        prompt = chat.user
        if "Title: Wool hiking socks" in prompt:
            return act("The price is on the page.", "stop('$14.50')")
        if TOLD not in prompt:
            return act("I think I am done.", "stop('')")
        link = re.search(r"\[(\w+)\] link 'Wool hiking socks'", prompt)
        if link:
            return act("Open it.", f"click('{link.group(1)}')")
        template = re.search(r"demo-search: (\S+)\{query\}", prompt).group(1)
        return act("Use the search shortcut.", f"goto('{template}wool hiking')")

    with fake_model(shopper) as model:
        done = demo(tmp_path, model, "--max-steps", "6")
    assert done.returncode == 0, done.stderr
    assert f"rejected by verifier: {TOLD}" in done.stderr
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert (result["status"], result["answer"], result["verdict"]) == ("done", "$14.50",
                                                                      "verified")
    assert re.search(r"verdict\s+verified", done.stderr)


def test_an_answer_that_stays_empty_is_refuted_beside_its_status(tmp_path):
    def silent(chat: Chat) -> str:
        if chat.role != "operator":
            return summary_json("browsing the shop")
        return act("Nothing to add.", "stop('')")

    with fake_model(silent) as model:
        done = demo(tmp_path, model, "--max-steps", "6")
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert result["status"] == "done" and result["verdict"] == "refuted"
    assert result["verification"]["retries"] == 2  # sent back twice, then it stands
    assert re.search(r"verdict\s+refuted: the answer is empty", done.stderr)
