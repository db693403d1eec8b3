"""A key from the environment goes only to an endpoint the user chose for it.

A study's ``--agent-config`` file may come from someone else. When it sets the
endpoint (``base_url``), the endpoint gets a key only when the person names the
variable on the command line (``--key-for-agent-config VAR``); the file may not name
one itself (``api_key_env``), and a key from OPENAI_API_KEY or ``--api-key-env`` never
follows a base_url the file chose.
"""

from __future__ import annotations

import json
import os
from http.server import BaseHTTPRequestHandler

import pytest

from colorbrowser.testing import start_loopback, stop_loopback
from tests.evaluation.runner_helpers import assert_one_line_error, eval_cli, records, write

ENV_KEY = "sk-from-the-environment-111"
NAMED_KEY = "sk-named-by-the-file-222"


class KeyRecorder:
    """A fake OpenAI-compatible endpoint that writes down every Authorization header and
    answers every chat request with the scripted reply ``stop('seen')``."""

    def __init__(self) -> None:
        self.authorizations: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the model list
                recorder.authorizations.append(self.headers.get("Authorization", ""))
                self._send({"object": "list", "data": [{"id": "m"}]})

            def do_POST(self) -> None:
                recorder.authorizations.append(self.headers.get("Authorization", ""))
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self._send({
                    "id": "x", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant",
                        "content": "<think>x</think><action>stop('seen')</action>"}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })

            def _send(self, data: dict) -> None:
                body = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.handler = Handler

    def __enter__(self) -> KeyRecorder:
        self.server = start_loopback(self.handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        stop_loopback(self.server)


@pytest.fixture
def recorder():
    with KeyRecorder() as endpoint:
        yield endpoint


@pytest.fixture
def tasks(tmp_path, pages_url):
    return write(tmp_path / "tasks.yaml", f"""\
        tasks:
          - id: look
            goal: Say what you see
            start_url: {pages_url}/agent/login.html
            eval:
              reference_answers:
                must_include: ["seen"]
        """)


def study_env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "COLORBROWSER_API_KEY", "OPENAI_BASE_URL",
                        "COLORBROWSER_BASE_URL")}
    return {**env, "OPENAI_API_KEY": ENV_KEY, **more}


def run_study(tmp_path, tasks, config_text: str, *flags: str, env: dict[str, str]):
    config = write(tmp_path / "agent.toml", config_text)
    return eval_cli(str(tasks), "--agent-config", str(config), "--memory", "none",
                    "--knowledge", "off", "--max-steps", "2", "--verify", "off", *flags,
                    "--out", str(tmp_path / "study"), cwd=tmp_path, env=env)


def test_an_endpoint_chosen_by_the_study_file_gets_no_key_from_the_environment(
        tmp_path, tasks, recorder):
    proc = run_study(tmp_path, tasks, f'[model]\nbase_url = "{recorder.url}"\n',
                     env=study_env())
    assert proc.returncode == 0, proc.stderr
    assert records(tmp_path / "study")[0].answer == "seen"
    assert recorder.authorizations and not any(ENV_KEY in a for a in recorder.authorizations)
    assert "gets no API key" in " ".join(proc.stderr.split())  # rich wraps long lines


def test_the_study_file_may_not_name_the_variable_sent_to_its_endpoint(tmp_path, tasks,
                                                                         recorder):
    text = f'[model]\nbase_url = "{recorder.url}"\napi_key_env = "SOME_SECRET"\n'
    proc = run_study(tmp_path, tasks, text, env=study_env(SOME_SECRET=NAMED_KEY))
    assert_one_line_error(proc, "api_key_env")
    assert "--key-for-agent-config" in proc.stderr
    assert recorder.authorizations == []  # nothing reached the file's endpoint
    assert NAMED_KEY not in proc.stderr + proc.stdout


def test_the_person_sends_a_key_to_the_files_endpoint_on_the_command_line(tmp_path, tasks,
                                                                          recorder):
    proc = run_study(tmp_path, tasks, f'[model]\nbase_url = "{recorder.url}"\n',
                     "--key-for-agent-config", "STUDY_MODEL_KEY",
                     env=study_env(STUDY_MODEL_KEY=NAMED_KEY))
    assert proc.returncode == 0, proc.stderr
    assert set(recorder.authorizations) == {f"Bearer {NAMED_KEY}"}
    assert NAMED_KEY not in proc.stderr  # the note names the variable, not its value


def test_a_key_flag_without_an_endpoint_of_the_file_is_refused(tmp_path, tasks):
    proc = run_study(tmp_path, tasks, "[agent]\nmax_steps = 2\n",
                     "--key-for-agent-config", "STUDY_MODEL_KEY",
                     env=study_env(STUDY_MODEL_KEY=NAMED_KEY))
    assert_one_line_error(proc, "--key-for-agent-config")


def test_the_users_own_endpoint_flag_beats_the_file_and_gets_the_users_key(
        tmp_path, tasks, recorder):
    proc = run_study(tmp_path, tasks, '[model]\nbase_url = "http://127.0.0.1:9/v1"\n',
                     "--base-url", recorder.url, env=study_env())
    assert proc.returncode == 0, proc.stderr
    assert set(recorder.authorizations) == {f"Bearer {ENV_KEY}"}


def test_a_summarizer_endpoint_from_the_file_gets_no_key_either(tmp_path, tasks, recorder):
    text = (f'[model]\nbase_url = "{recorder.url}"\n'
            f'[summarizer_model]\nbase_url = "{recorder.url}"\nmodel = "other"\n')
    config = write(tmp_path / "agent.toml", text)
    proc = eval_cli(str(tasks), "--agent-config", str(config), "--knowledge", "off",
                    "--max-steps", "2", "--out", str(tmp_path / "study"), cwd=tmp_path,
                    env=study_env())
    assert proc.returncode == 0, proc.stderr
    assert len(recorder.authorizations) >= 2  # the Operator's calls and the Summarizer's
    assert not any(ENV_KEY in a for a in recorder.authorizations)


def test_the_key_flag_reaches_the_files_summarizer_endpoint_too(tmp_path, tasks, recorder):
    text = ('[model]\nbase_url = "http://127.0.0.1:9/v1"\n'
            f'[summarizer_model]\nbase_url = "{recorder.url}"\nmodel = "other"\n')
    config = write(tmp_path / "agent.toml", text)
    proc = eval_cli(str(tasks), "--agent-config", str(config), "--knowledge", "off",
                    "--base-url", recorder.url, "--key-for-agent-config", "STUDY_MODEL_KEY",
                    "--max-steps", "2", "--out", str(tmp_path / "study"), cwd=tmp_path,
                    env=study_env(STUDY_MODEL_KEY=NAMED_KEY))
    assert proc.returncode == 0, proc.stderr
    # The person's own --base-url gets their key; the file's summarizer the named one.
    assert set(recorder.authorizations) == {f"Bearer {ENV_KEY}", f"Bearer {NAMED_KEY}"}


def test_a_key_flag_for_an_endpoint_the_file_chose_is_refused_in_one_line(tmp_path, tasks):
    proc = run_study(tmp_path, tasks, '[model]\nbase_url = "http://127.0.0.1:9/v1"\n',
                     "--api-key-env", "OPENAI_API_KEY", env=study_env())
    assert_one_line_error(proc, "--api-key-env", "--key-for-agent-config")


def test_a_key_of_your_own_summarizer_does_not_follow_the_files_endpoint(tmp_path, tasks,
                                                                        recorder):
    """Your config's summarizer keeps the model's endpoint (it names none): when the
    study file moves that endpoint, your summarizer key must not go along."""
    own = write(tmp_path / "config.toml", """\
        [summarizer_model]
        model = "other"
        api_key = "sk-your-summarizer-333"
        """)
    proc = run_study(tmp_path, tasks, f'[model]\nbase_url = "{recorder.url}"\n',
                     "--config", str(own), "--memory", "summary", env=study_env())
    assert proc.returncode == 0, proc.stderr
    assert len(recorder.authorizations) >= 2  # the Operator's calls and the Summarizer's
    assert not any("sk-your-summarizer-333" in a or ENV_KEY in a
                   for a in recorder.authorizations)
