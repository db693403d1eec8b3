"""A study's ``--agent-config`` file is data, never authority.

It may come from someone else, so it may set how the agent behaves (steps, memory,
the model's name and endpoint) but nothing that chooses a program, a file that is
loaded or written, a secret, a debug port, a trusted local page or where the agent
may go. Each of those is refused in one line that names the setting and says how
the person sets it themselves; nothing starts before that.
"""

from __future__ import annotations

import os
import stat

import pytest

from colorbrowser.config import AUTHORITY, ENDPOINTS, Settings
from tests.evaluation.runner_helpers import assert_one_line_error, eval_cli, run_main, write

# Every setting an agent config may set: behaviour, not authority. A new setting must be
# put here or in config.AUTHORITY, so that someone decides which it is.
DATA = {
    "model": {"model", "vision", "timeout", "max_retries", "temperature", "max_tokens",
              "context_tokens", "price_input", "price_output", "constrain"},
    "browser": {"headless", "viewport_width", "viewport_height", "action_timeout_ms",
                "navigation_timeout_ms", "interactive_only", "offscreen", "screenshots",
                "dialogs", "hang_timeout_ms", "stall_steps", "network_retries"},
    "agent": {"max_steps", "max_cost", "format_retries", "recent_actions", "memory",
              "summary_budget", "summary_every", "knowledge", "tips_k", "tips_token_budget",
              "tips_embeddings", "send_screenshot", "verify", "verify_retries", "workflows"},
    "hitl": {"interactive", "triggers", "critic_every", "cooldown", "cycle_repeats",
             "cycle_max_len", "repeat_actions", "still_actions", "error_actions",
             "error_window", "budget_fraction", "progress_window", "error_phrases"},
    "copilot": {"risk"},
    "paths": set(),
}
DATA["summarizer_model"] = DATA["judge"] = DATA["model"]

HOSTILE_VALUES = {
    ("model", "api_key"): '"sk-from-the-file"',
    ("summarizer_model", "api_key"): '"sk-from-the-file"',
    ("judge", "api_key"): '"sk-from-the-file"',
    ("browser", "executable"): '"./evil.sh"',
    ("browser", "trusted_pages"): '["file:///etc/passwd"]',
    ("browser", "remote_debugging_port"): "9222",
    ("browser", "allow_hosts"): '["evil.example"]',
    ("paths", "runs"): '"/tmp/elsewhere"',
    ("paths", "knowledge"): '"/tmp/their-tips.sqlite"',
    ("paths", "cache"): '"/tmp/their-models"',
    ("agent", "learn_workflows"): 'true',
}


def test_every_setting_is_either_data_or_authority():
    for section, field in Settings.model_fields.items():
        if section == "secret_sources":
            continue  # [secrets] is refused whole (the test below)
        model = field.annotation
        model = next(a for a in getattr(model, "__args__", (model,)) if a is not type(None))
        for key in model.model_fields:
            is_data = key in DATA[section]
            is_authority = (section, key) in AUTHORITY or (section, key) in ENDPOINTS
            assert is_data != is_authority, f"decide whether {section}.{key} is authority"


@pytest.fixture
def tasks(tmp_path):
    return write(tmp_path / "tasks.yaml", """\
        tasks:
          - id: look
            goal: Say what you see
            start_url: http://127.0.0.1:9/
            eval:
              reference_answers:
                must_include: ["seen"]
        """)


@pytest.mark.parametrize(("section", "key"), sorted(AUTHORITY))
def test_each_authority_setting_is_refused_naming_it_and_the_way_to_set_it(
        capsys, tmp_path, tasks, section, key):
    value = HOSTILE_VALUES[section, key]
    config = write(tmp_path / "agent.toml", f"[{section}]\n{key} = {value}\n")
    code, _, err = run_main(capsys, "eval", str(tasks), "--agent-config", str(config),
                            "--out", str(tmp_path / "study"))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: agent config"), err
    assert f"[{section}] {key}" in lines[0] and AUTHORITY[section, key] in lines[0]
    assert not (tmp_path / "study").exists()  # refused before anything started


@pytest.mark.parametrize("text", [
    'browser = { executable = "./evil.sh" }\n',  # an inline table is the same section
    '[agent]\nmax_steps = 3\n[browser]\nheadless = true\nexecutable = "./evil.sh"\n',
    '[model]\nmodel = "m"\napi_key_env = "HOME"\n',
    '[summarizer_model]\napi_key_env = "HOME"\n',
    '[judge]\napi_key_env = "HOME"\n',
    '[secrets]\nshop = { env = "HOME" }\n',
])
def test_authority_is_refused_wherever_it_stands_in_the_file(capsys, tmp_path, tasks, text):
    config = write(tmp_path / "agent.toml", text)
    code, _, err = run_main(capsys, "eval", str(tasks), "--agent-config", str(config),
                            "--out", str(tmp_path / "study"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "is refused" in err, err


def test_a_browser_named_by_the_file_never_runs(tmp_path, tasks):
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\n")
    evil.chmod(evil.stat().st_mode | stat.S_IXUSR)
    config = write(tmp_path / "agent.toml", f'[browser]\nexecutable = "{evil}"\n')
    env = {k: v for k, v in os.environ.items() if k != "CHROMIUM_PATH"}
    proc = eval_cli(str(tasks), "--agent-config", str(config), "--replay",
                    str(write(tmp_path / "replay.yaml", "look: [\"stop('seen')\"]\n")),
                    "--out", str(tmp_path / "study"), cwd=tmp_path, env=env)
    assert_one_line_error(proc, "[browser] executable", "CHROMIUM_PATH")
    assert not marker.exists()
