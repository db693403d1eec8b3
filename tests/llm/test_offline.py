"""The offline default: real SmolLM2 behind the real llama.cpp server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from colorbrowser.actions import ACTIONS, extract_action_text, parse_action
from colorbrowser.config import ModelSettings
from colorbrowser.errors import ModelUnavailable, UserError
from colorbrowser.llm import offline
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.factory import make_model
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.offline import MODEL_ALIAS, OfflineServer, ensure_model
from colorbrowser.llm.tokens import smollm2_source
from colorbrowser.types import Message

pytestmark = pytest.mark.model

PAGE = """Goal: search the shop for blue socks.
[3] textbox 'Search products'
[17] button 'Search'
[42] link 'Home'"""
SYSTEM = ("You operate a web browser. First think in one short sentence inside "
          "<think></think>, then give one action inside <action></action>, "
          "for example click('17') or fill('3', 'text').")
SHAPE = re.compile(r"\A<think>([^<\n]+)</think>\n<action>(.*)</action>\Z", re.S)


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        # a zombie still answers kill(0); check its state
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z"):
                return True
        time.sleep(0.1)
    return False


def _status(url: str, token: str | None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("llm-cache")


@pytest.fixture(scope="module")
def server(cache):
    with OfflineServer(cache) as srv:
        yield srv


@pytest.fixture(scope="module")
def model(server) -> OpenAIChatModel:
    settings = ModelSettings(base_url=server.base_url, api_key=server.token, model=MODEL_ALIAS,
                             vision="off", max_tokens=400)
    return OpenAIChatModel(settings, offline=True)


def test_model_is_requantized_once_and_then_reused(tmp_path):
    path = ensure_model(tmp_path)
    assert path.name == "SmolLM2-135M-Instruct.Q4_0.gguf"
    assert path.read_bytes()[:4] == b"GGUF"
    assert path.stat().st_size < smollm2_source().stat().st_size  # Q4_0 is the smaller format
    before = path.stat()
    start = time.monotonic()
    assert ensure_model(tmp_path) == path
    assert time.monotonic() - start < 0.05
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary files left


def test_a_broken_cached_file_is_replaced(tmp_path):
    target = tmp_path / "models" / offline.CACHED_NAME
    target.parent.mkdir()
    target.write_bytes(b"not a model")
    assert ensure_model(tmp_path).read_bytes()[:4] == b"GGUF"


def test_missing_llama_cpp_is_one_clear_line(tmp_path, monkeypatch):
    real = offline.importlib.util.find_spec
    monkeypatch.setattr(offline.importlib.util, "find_spec",
                        lambda name, *a: None if name == "llama_cpp" else real(name, *a))
    with pytest.raises(UserError, match=r"needs llama-cpp-python: run `make setup`"):
        OfflineServer(tmp_path).start()


def test_server_listens_on_loopback_only_and_requires_its_token(server):
    assert server.base_url.startswith("http://127.0.0.1:")
    assert len(server.token) >= 24
    url = f"{server.base_url}/models"
    assert _status(url, None) == 401
    assert _status(url, "wrong-token") == 401
    assert _status(url, server.token) == 200
    listening = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if state == "0A" and int(local.split(":")[1], 16) == server.port:
            listening.append(local.split(":")[0])
    assert listening == ["0100007F"]  # 127.0.0.1, not 0.0.0.0


def test_server_answers_a_chat_completion(model):
    result = model.complete([Message("user", "Say hello.")], max_tokens=16)
    assert result.text.strip()
    assert result.model == MODEL_ALIAS
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    assert "usage_estimated" not in result.raw  # the server reported real counts


def test_grammar_constrained_replies_parse_and_use_only_page_bids(model):
    bids = ["3", "17", "42"]
    constraint = action_constraint(bids, max_thought_chars=120)
    messages = [Message("system", SYSTEM), Message("user", PAGE)]
    for temperature in (0.0, 0.7, 1.0, 1.3):
        result = model.complete(messages, constraint=constraint, temperature=temperature)
        assert result.raw["finish_reason"] == "stop", result.text
        m = SHAPE.match(result.text)
        assert m, result.text
        action = parse_action(extract_action_text(result.text))
        for param, value in zip(ACTIONS[action.name].params, action.args, strict=True):
            if param.kind == "bid":
                assert value in bids, result.text


def test_json_schema_constrained_replies_become_parseable_actions(server):
    settings = ModelSettings(base_url=server.base_url, api_key=server.token, model=MODEL_ALIAS,
                             vision="off", max_tokens=400, constrain="json_schema")
    json_model = OpenAIChatModel(settings, offline=True)
    constraint = action_constraint(["3", "17", "42"], actions=["click", "stop"])
    messages = [Message("system", SYSTEM + " Answer in JSON."), Message("user", PAGE)]
    result = json_model.complete(messages, constraint=constraint)
    action = parse_action(extract_action_text(result.text))
    assert action.name in {"click", "stop"}
    if action.name == "click":
        assert action.args[0] in {"3", "17", "42"}


def test_stop_kills_the_server_and_is_safe_to_call_twice(cache):
    srv = OfflineServer(cache)
    srv.start()
    pid, url = srv.process.pid, f"{srv.base_url}/models"
    srv.stop()
    assert _gone(pid)
    assert not srv.running
    srv.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


def test_no_process_is_left_after_the_context_manager(cache):
    with OfflineServer(cache) as srv:
        pid = srv.process.pid
        assert srv.ready()
    assert _gone(pid)


def test_server_does_not_outlive_a_killed_parent(cache):
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from colorbrowser.llm.offline import OfflineServer
        srv = OfflineServer(Path({str(cache)!r}))
        srv.start()
        print(srv.process.pid, flush=True)
        time.sleep(600)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert _gone(child, within=10)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_make_model_without_an_endpoint_starts_and_stops_the_offline_model(cache):
    with contextlib.ExitStack() as stack:
        m = make_model(ModelSettings(max_tokens=300), stack=stack, cache_dir=cache)
        assert (m.name, m.vision, m.constrain, m.offline) == (MODEL_ALIAS, False, "grammar", True)
        result = m.complete([Message("system", SYSTEM), Message("user", PAGE)],
                            constraint=action_constraint(["3", "17", "42"]))
        parse_action(extract_action_text(result.text))
        assert m.usage.calls == 1
    again = OpenAIChatModel(m.settings.model_copy(update={"max_retries": 0}), offline=True)
    with pytest.raises(ModelUnavailable, match="connection refused"):
        again.complete([Message("user", "still there?")])


def test_count_tokens_matches_the_servers_own_tokenizer(server):
    from colorbrowser.llm.tokens import count_tokens

    for text in [PAGE, SYSTEM, "Prices: $56.10 + 12.5 = 68.60 — fine ✓ 中文"]:
        req = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/extras/tokenize/count",
            data=json.dumps({"input": text}).encode(),
            headers={"Authorization": f"Bearer {server.token}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            served = json.loads(resp.read())["count"]
        assert served - 1 <= count_tokens(text) <= served  # the server may add a BOS token


def test_images_to_the_text_only_server_fall_back_to_text(server):
    settings = ModelSettings(base_url=server.base_url, api_key=server.token, model=MODEL_ALIAS,
                             vision="auto", max_tokens=8)
    model = OpenAIChatModel(settings, offline=True)
    png = (Path(__file__).parent / "tiny.png").read_bytes()
    result = model.complete([Message("user", "Describe the picture.", images=[png])])
    assert result.text and model.vision is False


def test_a_prompt_longer_than_the_context_is_a_one_line_model_error(model):
    from colorbrowser.errors import ModelError

    with pytest.raises(ModelError) as info:
        model.complete([Message("user", "word " * 6000)], max_tokens=4)
    assert "HTTP 400" in str(info.value) and "\n" not in str(info.value)
