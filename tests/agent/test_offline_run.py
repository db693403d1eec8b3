"""`colorbrowser run` on the offline default: the real SmolLM2 behind the real llama.cpp
server, the real CLI in its own process, a real Chromium. The model is far too small to
solve anything; the test checks the pipeline: valid actions, usage, a trajectory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import colorbrowser
from colorbrowser.actions import parse_action
from colorbrowser.agent.trajectory import read_steps

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_run_with_the_offline_model_takes_valid_steps_and_writes_the_run(pages_url, tmp_path):
    run_dir = tmp_path / "run"
    src = str(Path(colorbrowser.__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items()
           if k not in {"COLORBROWSER_BASE_URL", "OPENAI_BASE_URL"}}
    env["PYTHONPATH"] = src
    proc = subprocess.run(
        [sys.executable, "-m", "colorbrowser", "run", "click the Sign in button",
         "--url", f"{pages_url}/agent/login.html", "--max-steps", "2", "--memory", "none",
         "--knowledge", "off", "--verify", "off", "--out", str(run_dir), "--json"],
        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] in {"done", "step_limit"}, result
    assert result["usage"]["prompt_tokens"] > 0 and result["usage"]["calls"] >= 1
    steps = read_steps(run_dir)
    assert 1 <= len(steps) == result["steps"] <= 2
    for step in steps:
        assert step["action"], step  # the grammar leaves the model no invalid call
        parse_action(step["action"])
        assert not step["format_errors"]
        assert (run_dir / step["screenshot"]).exists() and (run_dir / step["som"]).exists()
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["model"].startswith("smollm2") and meta["settings"]["model"]["base_url"] is None
    assert "step 1/2" in proc.stderr and "tokens" in proc.stderr
