"""A run killed with SIGKILL mid-episode resumes at the right step with nothing lost or
done twice. The model is a scripted endpoint; browser, CLI and processes are real."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import colorbrowser
from colorbrowser.agent.trajectory import read_steps
from colorbrowser.static_server import StaticServer, send_html
from colorbrowser.testing import ScriptedEndpoint, user_text

TARGET = 6
PAGE = """<!doctype html><title>Counter</title>
<p>Count: {count}</p><p>Local: <span id="local"></span></p>
<a href="/inc" onclick="localStorage.setItem('n', +(localStorage.getItem('n') || 0) + 1)">
Increment</a>
<script>document.getElementById('local').textContent = localStorage.getItem('n') || 0;</script>
"""


class Counter:
    def __init__(self):
        self.hits = 0

    def page(self, req):
        send_html(req, PAGE.format(count=self.hits))

    def inc(self, req):
        self.hits += 1
        req.send_response(302)
        req.send_header("Location", "/step")
        req.end_headers()


def policy(messages):
    """Click Increment until the page says Count: 6, then report both counters."""
    text = user_text(messages)
    count = int(re.search(r"Count: (\d+)", text).group(1))
    local = re.search(r"Local:\s*(\d+)", text)
    if count >= TARGET:
        return f"<think>done</think><action>stop('{count} local {local.group(1)}')</action>"
    bid = re.search(r"\[(\w+)\] link 'Increment'", text).group(1)
    return f"<think>count is {count}</think><action>click('{bid}')</action>"


def cli(*args, env):
    return [sys.executable, "-m", "colorbrowser", *args]


def test_resume_after_sigkill_continues_at_the_right_step(tmp_path):
    counter = Counter()
    routes = {"/step": counter.page, "/inc": counter.inc}
    run_dir = tmp_path / "run"
    src = str(Path(colorbrowser.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src, "COLORBROWSER_API_KEY": "test-token",
           "XDG_CONFIG_HOME": str(tmp_path)}
    with StaticServer(tmp_path, token="", routes=routes) as site, \
            ScriptedEndpoint(policy, delay=0.4) as model:
        args = ["run", "Increment the counter to 6", "--url", f"{site.url}/step",
                "--base-url", model.url, "--memory", "none", "--max-steps", "15",
                "--knowledge", "off",
                "--out", str(run_dir), "--json"]
        first = subprocess.Popen(cli(*args, env=env), env=env, start_new_session=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while len(read_steps(run_dir)) < 3:
            assert first.poll() is None, first.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)  # the process and its browser, no cleanup
        first.wait()
        killed_at = len(read_steps(run_dir))
        assert not (run_dir / "result.json").exists()

        resumed = subprocess.run(cli("resume", str(run_dir), "--json", env=env), env=env,
                                 capture_output=True, text=True, timeout=180)
        assert resumed.returncode == 0, resumed.stderr[-2000:]

    result = json.loads(resumed.stdout.strip().splitlines()[-1])
    steps = read_steps(run_dir)
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))  # none twice
    assert len(steps) > killed_at
    assert result["status"] == "done"
    # Server and browser storage both count every click once: the cookies and local
    # storage came back from the checkpoint, and no click was repeated or lost.
    assert counter.hits == TARGET
    assert result["answer"] == f"{TARGET} local {TARGET}"
    clicks = [s for s in steps if s["action"] and s["action"].startswith("click")]
    interrupted = any("interrupted" in " ".join(s["hints"]) for s in steps)
    assert len(clicks) + (1 if interrupted else 0) >= TARGET
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["resumed"][0]["from_step"] == killed_at


def test_a_run_that_is_still_alive_cannot_be_resumed_beside_it(tmp_path, capsys):
    """Two processes must never write one run folder: resume refuses while the run's
    process lives (and SIGKILL frees the folder, as the test above shows)."""
    from colorbrowser.cli import main
    from colorbrowser.testing import act

    run_dir = tmp_path / "run"
    src = str(Path(colorbrowser.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src, "COLORBROWSER_API_KEY": "test-token"}
    with StaticServer(tmp_path, token="", routes={"/p": lambda r: send_html(r, "<p>x</p>")}) \
            as site, ScriptedEndpoint(lambda m: act("wait", "scroll(0, 10)"), delay=0.3) as model:
        first = subprocess.Popen(
            cli("run", "wait", "--url", f"{site.url}/p", "--base-url", model.url,
                "--memory", "none", "--knowledge", "off", "--max-steps", "200",
                "--out", str(run_dir), env=env),
            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while len(read_steps(run_dir)) < 1:
                assert first.poll() is None, first.stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "the run made no progress"
                time.sleep(0.05)
            before = len(read_steps(run_dir))
            try:
                main(["resume", str(run_dir)])
            except SystemExit as exc:
                assert exc.code == 2
            else:
                raise AssertionError("resume ran beside a live run")
            assert "in use by another running colorbrowser process" in capsys.readouterr().err
            assert first.poll() is None  # the live run is untouched and goes on
            time.sleep(1)
            steps = read_steps(run_dir)
            assert len(steps) > before
            assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
        finally:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
