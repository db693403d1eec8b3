"""OpenAIChatModel against a real HTTP server on 127.0.0.1 that plays scripted answers."""

from __future__ import annotations

import base64
import itertools
import logging
import socket
import time

import pytest

from colorbrowser.actions import extract_action_text, parse_action
from colorbrowser.config import ModelSettings
from colorbrowser.errors import ModelError, ModelUnavailable
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.protocols import Model
from colorbrowser.types import Constraint, Message

from .llm_fake_server import error, fake_endpoint, ok

KEY = "sk-test-SECRET-1234567890"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
ASK = [Message("system", "You are a test."), Message("user", "Say stop.")]


def make(url: str, **kw) -> OpenAIChatModel:
    kw.setdefault("model", "fake-model")
    kw.setdefault("max_retries", 3)
    return OpenAIChatModel(ModelSettings(base_url=url, api_key=KEY, **kw))


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


def test_satisfies_the_model_protocol():
    with fake_endpoint() as ep:
        assert isinstance(make(ep.url), Model)


def test_rate_limit_is_retried_after_a_backoff_then_succeeds():
    with fake_endpoint([error(429, "slow down"), ok("<action>stop()</action>")]) as ep:
        result = make(ep.url).complete(ASK)
    assert result.text == "<action>stop()</action>"
    assert len(ep.chat_requests) == 2
    assert gaps([r.at for r in ep.chat_requests])[0] >= 0.3  # 0.5 s minus at most 25% jitter


def test_server_errors_are_retried_with_growing_backoff():
    with fake_endpoint([error(500), error(503), ok("done")]) as ep:
        result = make(ep.url).complete(ASK)
    assert result.text == "done"
    first, second = gaps([r.at for r in ep.chat_requests])
    assert first >= 0.3 and second >= 0.7  # 0.5 s then 1 s, each minus <= 25% jitter


def test_gives_up_after_max_retries_with_a_one_line_model_error():
    with fake_endpoint([error(500, "kaput\nline two")] * 5) as ep:
        model = make(ep.url, max_retries=1)
        with pytest.raises(ModelError) as info:
            model.complete(ASK)
    assert len(ep.chat_requests) == 2
    message = str(info.value)
    assert "\n" not in message and "HTTP 500" in message and "kaput line two" in message
    assert not isinstance(info.value, ModelUnavailable)


def test_wrong_key_is_reported_once_without_leaking_it():
    script = [error(401, f"Incorrect API key provided: {KEY}")] * 3
    with fake_endpoint(script) as ep, pytest.raises(ModelUnavailable) as info:
        make(ep.url).complete(ASK)
    assert len(ep.chat_requests) == 1  # no retries on 401
    assert ep.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
    message = str(info.value)
    assert KEY not in message and "\n" not in message
    assert "401" in message and ep.url in message


def test_connection_refused_names_the_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(ModelUnavailable, match="connection refused") as info:
        make(url, max_retries=0).complete(ASK)
    assert url in str(info.value) and KEY not in str(info.value)


def test_credentials_in_the_url_are_not_shown_in_errors():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = make(f"http://user:hunter2@127.0.0.1:{port}/v1?token=abc", max_retries=0)
    with pytest.raises(ModelUnavailable) as info:
        model.complete(ASK)
    assert "hunter2" not in str(info.value) and "abc" not in str(info.value)
    assert "hunter2" not in repr(model) and KEY not in repr(model)


def test_timeout_is_honoured():
    with fake_endpoint([(200, {}, {}, 3.0)]) as ep:
        model = make(ep.url, timeout=0.3, max_retries=0)
        start = time.monotonic()
        with pytest.raises(ModelError, match=r"did not answer within 0\.3s"):
            model.complete(ASK)
    assert time.monotonic() - start < 2.0


def test_the_offline_server_gets_one_long_attempt_not_retries_that_queue_behind_it():
    # Our llama.cpp server has one slot and finishes a request its client gave up on.
    with fake_endpoint([(*ok("late but whole")[:3], 1.2), ok("a retry's")]) as ep:
        settings = ModelSettings(base_url=ep.url, model="fake-model", timeout=0.5,
                                 max_retries=3)
        assert OpenAIChatModel(settings, offline=True).complete(ASK).text == "late but whole"
        assert len(ep.chat_requests) == 1
    with fake_endpoint([(200, {}, {}, 3.0)]) as ep:
        offline = OpenAIChatModel(settings.model_copy(update={"base_url": ep.url,
                                                              "max_retries": 1}), offline=True)
        with pytest.raises(ModelError, match=r"within 1s \(1 attempt\(s\)\)"):
            offline.complete(ASK)
        assert len(ep.chat_requests) == 1


def test_usage_and_cost_are_counted_per_call_and_accumulated():
    script = [ok("a", prompt_tokens=1000, completion_tokens=500),
              ok("b", prompt_tokens=2000, completion_tokens=100)]
    with fake_endpoint(script) as ep:
        model = make(ep.url, price_input=2.0, price_output=10.0)
        first = model.complete(ASK)
        second = model.complete(ASK)
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (1000, 500)
    assert first.usage.cost == pytest.approx((1000 * 2 + 500 * 10) / 1e6)
    assert second.usage.cost == pytest.approx((2000 * 2 + 100 * 10) / 1e6)
    assert model.usage.calls == 2 and model.usage.prompt_tokens == 3000
    assert model.usage.cost == pytest.approx(first.usage.cost + second.usage.cost)
    done = model.reset_usage()
    assert done.calls == 2 and model.usage.calls == 0


def test_missing_usage_is_estimated_from_the_text():
    with fake_endpoint([ok("a reply of several words", prompt_tokens=None)]) as ep:
        result = make(ep.url, price_input=1.0).complete(ASK)
    assert result.raw["usage_estimated"] is True
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    assert result.usage.cost > 0


def test_model_name_comes_from_the_endpoint_when_not_configured():
    with fake_endpoint([ok("x")]) as ep:
        ep.models = ["served-model-7b"]
        model = OpenAIChatModel(ModelSettings(base_url=ep.url))
        model.complete(ASK)
    assert model.name == "served-model-7b"
    assert ep.chat_requests[0].body["model"] == "served-model-7b"


def test_images_are_sent_as_data_urls_when_vision_is_on():
    with fake_endpoint([ok("x")]) as ep:
        make(ep.url, vision="on").complete([Message("user", "look", images=[PNG])])
    content = ep.chat_requests[0].body["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "look"}
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == PNG


def test_images_are_never_sent_when_vision_is_off():
    with fake_endpoint([ok("x")]) as ep:
        model = make(ep.url, vision="off")
        model.complete([Message("user", "look", images=[PNG])])
    assert ep.chat_requests[0].body["messages"][0]["content"] == "look"
    assert model.vision is False


def _rejects_images(rec):
    has_image = any(isinstance(m["content"], list) for m in rec.body["messages"])
    return error(400, "this model does not support image input") if has_image else ok("text")


def test_auto_vision_falls_back_to_text_only_and_remembers():
    with fake_endpoint([_rejects_images] * 5) as ep:
        model = make(ep.url, vision="auto")
        assert model.vision is True
        start = time.monotonic()
        first = model.complete([Message("user", "look", images=[PNG])])
        assert time.monotonic() - start < 0.3  # the rejection was not retried with backoff
        second = model.complete([Message("user", "again", images=[PNG])])
    assert first.text == second.text == "text"
    assert model.vision is False
    sent = [isinstance(r.body["messages"][0]["content"], list) for r in ep.chat_requests]
    assert sent == [True, False, False]


def test_llama_cpp_style_500_for_images_also_falls_back():
    def reply(rec):
        has_image = any(isinstance(m["content"], list) for m in rec.body["messages"])
        return error(500, "can only concatenate str (not list) to str") if has_image else ok("t")

    with fake_endpoint([reply] * 3) as ep:
        model = make(ep.url, vision="auto")
        assert model.complete([Message("user", "look", images=[PNG])]).text == "t"
    assert model.vision is False and len(ep.chat_requests) == 2


def test_auto_vision_keeps_images_once_they_are_accepted():
    with fake_endpoint([ok("a"), ok("b")]) as ep:
        model = make(ep.url, vision="auto")
        model.complete([Message("user", "1", images=[PNG])])
        model.complete([Message("user", "2", images=[PNG])])
    assert model.vision is True
    assert all(isinstance(r.body["messages"][0]["content"], list) for r in ep.chat_requests)


def test_vision_on_reports_a_rejection_instead_of_hiding_it():
    with fake_endpoint([_rejects_images] * 3) as ep, pytest.raises(
            ModelError, match="images were sent"):
        make(ep.url, vision="on").complete([Message("user", "look", images=[PNG])])
    assert len(ep.chat_requests) == 1


def test_grammar_goes_in_the_request_body_when_constrain_is_grammar():
    constraint = action_constraint(["5"])
    with fake_endpoint([ok("x"), ok("y")]) as ep:
        make(ep.url, constrain="grammar").complete(ASK, constraint=constraint)
        make(ep.url, constrain="none").complete(ASK, constraint=constraint)
    with_grammar, plain = (r.body for r in ep.chat_requests)
    assert with_grammar["grammar"] == constraint.grammar
    assert "response_format" not in with_grammar
    assert "grammar" not in plain and "response_format" not in plain


def test_auto_constraint_is_a_grammar_only_for_the_offline_server():
    constraint = action_constraint(["5"])
    with fake_endpoint([ok("x"), ok("y")]) as ep:
        OpenAIChatModel(ModelSettings(base_url=ep.url, model="m")).complete(
            ASK, constraint=constraint)
        OpenAIChatModel(ModelSettings(base_url=ep.url, model="m"), offline=True).complete(
            ASK, constraint=constraint)
    remote, offline = (r.body for r in ep.chat_requests)
    assert "grammar" not in remote
    assert offline["grammar"] == constraint.grammar


def test_json_schema_mode_sends_a_schema_and_returns_the_tagged_form():
    constraint = action_constraint(["5", "6"])
    reply = '{"thought": "pick six", "action": {"name": "click", "bid": "6"}}'
    with fake_endpoint([ok(reply), ok(reply)]) as ep:
        remote = make(ep.url, constrain="json_schema").complete(ASK, constraint=constraint)
        OpenAIChatModel(ModelSettings(base_url=ep.url, model="m", constrain="json_schema"),
                        offline=True).complete(ASK, constraint=constraint)
    standard, llama = (r.body["response_format"] for r in ep.chat_requests)
    assert standard["type"] == "json_schema"
    assert standard["json_schema"]["schema"] == constraint.json_schema
    assert llama == {"type": "json_object", "schema": constraint.json_schema}
    assert parse_action(extract_action_text(remote.text)).args[0] == "6"
    assert remote.raw["json"] == reply


def test_constraint_without_the_needed_form_sends_nothing():
    with fake_endpoint([ok("x")]) as ep:
        make(ep.url, constrain="grammar").complete(ASK, constraint=Constraint(json_schema={}))
    assert "grammar" not in ep.chat_requests[0].body


def test_request_parameters_come_from_settings_unless_overridden():
    with fake_endpoint([ok("x"), ok("y")]) as ep:
        model = make(ep.url, max_tokens=77, temperature=0.5)
        model.complete(ASK)
        model.complete(ASK, max_tokens=9, temperature=0.0)
    first, second = (r.body for r in ep.chat_requests)
    assert (first["max_tokens"], first["temperature"]) == (77, 0.5)
    assert (second["max_tokens"], second["temperature"]) == (9, 0.0)


def test_other_client_errors_carry_the_server_message():
    with fake_endpoint([error(400, "context length exceeded")]) as ep, pytest.raises(
            ModelError, match=r"HTTP 400.*context length exceeded"):
        make(ep.url).complete(ASK)
    assert len(ep.chat_requests) == 1


def test_empty_choices_are_a_model_error():
    empty = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
    with fake_endpoint([(200, empty, {}, 0.0)]) as ep, pytest.raises(
            ModelError, match="no choices"):
        make(ep.url).complete(ASK)


def test_the_key_never_reaches_the_logs(caplog):
    caplog.set_level(logging.DEBUG)
    with fake_endpoint([error(429), ok("x"), error(401, f"bad key {KEY}")]) as ep:
        model = make(ep.url)
        model.complete(ASK)
        with pytest.raises(ModelUnavailable):
            model.complete(ASK)
    assert caplog.records  # debug logging was really on
    assert KEY not in caplog.text


def test_auto_vision_keeps_images_when_text_only_fails_too():
    with fake_endpoint([error(400, "bad request")] * 2) as ep, pytest.raises(
            ModelError, match="bad request") as info:
        make(ep.url, vision="auto").complete([Message("user", "look", images=[PNG])])
    assert "images were sent" not in str(info.value)
    assert len(ep.chat_requests) == 2
