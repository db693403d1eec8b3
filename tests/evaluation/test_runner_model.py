"""Studies with a model agent. The endpoint is an OpenAI-compatible server giving
scripted replies (ScriptedEndpoint), except in the last test, which runs the real
offline model through the real llama.cpp server."""

from __future__ import annotations

import os
import re
import time

import pytest

from colorbrowser.testing import ScriptedEndpoint, user_text
from tests.evaluation.runner_helpers import (
    bench_tasks,
    by_task,
    eval_cli,
    records,
    study_meta,
    write,
)

TOKEN = "sk-scripted-study-key-0123456789"


def click_the_named_button(messages):
    """Scripted Operator for miniwob:click-button: reads the goal, clicks that button."""
    text = user_text(messages)
    name = re.search(r'Click on the "(.+?)" button', text).group(1)
    bid = re.search(rf"\[(\w+)\] button '{re.escape(name)}'", text).group(1)
    return f"<think>the goal names {name}</think><action>click('{bid}')</action>"


def endpoint_env(endpoint) -> dict:
    return {**os.environ, "COLORBROWSER_BASE_URL": endpoint.url, "STUDY_KEY": TOKEN}


def test_a_model_agent_study_counts_tokens_and_cost_and_keeps_the_key_out(tmp_path):
    config = write(tmp_path / "agent.toml", """\
        [model]
        model = "scripted"
        price_input = 2.0
        price_output = 10.0
        [agent]
        memory = "none"
        knowledge = "off"
        """)
    study = tmp_path / "study"
    with ScriptedEndpoint(click_the_named_button, token=TOKEN) as endpoint:
        proc = eval_cli("miniwob:click-button", "--seeds", "0-2", "--workers", "2",
                        "--agent-config", str(config), "--api-key-env", "STUDY_KEY",
                        "--out", str(study), cwd=tmp_path, env=endpoint_env(endpoint))
    assert proc.returncode == 0, proc.stderr
    found = {r.seed: r for r in records(study)}
    assert sorted(found) == [0, 1, 2]
    for record in found.values():
        assert record.success and record.reward == 1.0
        # One Operator call per step; the endpoint reports 10 prompt + 5 completion tokens.
        assert record.steps == 1
        assert (record.prompt_tokens, record.completion_tokens, record.tokens) == (10, 5, 15)
        assert record.cost == pytest.approx((10 * 2.0 + 5 * 10.0) / 1e6)
    assert len(endpoint.requests) == 3
    for path in study.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".log"):
            assert TOKEN not in path.read_text(errors="replace"), path
    assert TOKEN not in proc.stderr + proc.stdout


def test_a_model_that_never_answers_is_cut_off_at_the_episode_time_limit(tmp_path, bench_url):
    """The episode is stuck in a model call, where no step boundary comes and killing
    the browser cannot help: the call itself is abandoned at the time limit, so the
    record says timeout a few seconds after it, and the same worker goes on."""
    def policy(messages):
        text = user_text(messages)
        if "Press the Freeze button" in text:
            time.sleep(600)  # the scripted model never answers this task
        link = re.search(r"\[(\w+)\] link 'Latest order'", text)
        if link is None:  # on order.html
            return "<think>there</think><action>stop('opened')</action>"
        return f"<think>open it</think><action>click('{link.group(1)}')</action>"

    tasks = bench_tasks(tmp_path / "tasks.yaml", bench_url)
    study = tmp_path / "study"
    with ScriptedEndpoint(policy, token=TOKEN) as endpoint:
        proc = eval_cli(str(tasks), "--memory", "none", "--knowledge", "off",
                        "--api-key-env", "STUDY_KEY", "--timeout", "6", "--out", str(study),
                        cwd=tmp_path, env=endpoint_env(endpoint))
    assert proc.returncode == 0, proc.stderr
    found = by_task(study)
    frozen = found["freeze"]
    assert frozen.error_class == "timeout" and "waiting for the model" in frozen.error
    assert frozen.wall_time < 6 + 5
    assert found["open-order"].success and found["open-order"].worker == frozen.worker


@pytest.mark.model
@pytest.mark.slow
def test_the_offline_model_runs_a_small_study_on_one_shared_server(tmp_path):
    """Real SmolLM2 through the real llama.cpp server, started once for both workers.
    It is too small to be judged on its score; the plumbing must hold."""
    study = tmp_path / "study"
    proc = eval_cli("miniwob", "--tasks", "click-button,focus-text", "--workers", "2",
                    "--max-steps", "2", "--memory", "none", "--knowledge", "off",
                    "--out", str(study), cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    found = by_task(study)
    assert sorted(found) == ["miniwob:click-button", "miniwob:focus-text"]
    for record in found.values():
        assert record.error_class is None, record
        assert 1 <= record.steps <= 2 and record.prompt_tokens > 0
        steps = (study / record.trajectory / "steps.jsonl").read_text().splitlines()
        assert len(steps) == record.steps
    settings = next(iter(study_meta(study)["variants"].values()))["settings"]
    assert settings["model"]["base_url"] is None  # the variant is "the offline default"
