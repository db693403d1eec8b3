"""What a broken or hostile endpoint can send with HTTP 200, and what the client makes
of it: a usable Completion, or one ModelError line naming the endpoint. Never another
exception, and never text that cannot be written as UTF-8."""

from __future__ import annotations

import json

import pytest

from colorbrowser.config import ModelSettings
from colorbrowser.errors import ModelError, ModelUnavailable
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.jsonreply import json_object
from colorbrowser.types import Constraint, Message

from .llm_fake_server import chat_reply, fake_endpoint
from .test_client import ASK, make


def body(text: str | None = None, *, content=None, usage=None, **top) -> dict:
    """A chat completion body with the given content (text, or any JSON value) and usage."""
    reply = chat_reply(text or "", prompt_tokens=None)
    if content is not None:
        reply["choices"][0]["message"]["content"] = content
    if usage is not None:
        reply["usage"] = usage
    return {**reply, **top}


def served(reply: dict | bytes, constraint: Constraint | None = None, **kw):
    """One scripted HTTP 200 reply, as the client returns it (max_retries 0)."""
    with fake_endpoint([(200, reply, {}, 0.0)]) as ep:
        return make(ep.url, max_retries=0, **kw).complete(ASK, constraint=constraint)


def refused(reply: dict | bytes) -> str:
    """The one-line message of the ModelError a scripted HTTP 200 reply raises."""
    with pytest.raises(ModelError) as info:
        served(reply)
    assert not isinstance(info.value, ModelUnavailable)  # a model failure, not a user's
    message = str(info.value)
    assert "\n" not in message and "127.0.0.1" in message
    return message


@pytest.mark.parametrize(("raw", "says"), [
    (b"<html><body>502 Bad Gateway</body></html>", "not JSON"),
    (b"", "empty"),
    (b"   \n", "empty"),
    (b'{"choices": [', "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b"null", "not a JSON object"),
    (b'"just a string"', "not a JSON object"),
])
def test_a_body_that_is_not_a_json_object_is_a_model_error(raw, says):
    assert says in refused(raw)


@pytest.mark.parametrize("reply", [
    {"choices": "all of them"},
    {"choices": [None]},
    {"choices": [{"message": "hello"}]},
    {"choices": [{"message": None}]},
    {"choices": [{"message": {"content": 42}}]},
    {"choices": [{"message": {"content": {"text": "a dict"}}}]},
    {"choices": [{"message": {"content": [{"type": "text", "text": 7}]}}]},
])
def test_choices_of_the_wrong_shape_are_a_model_error(reply):
    assert "model endpoint" in refused(reply)


def test_a_missing_content_is_an_empty_reply_as_before():
    assert served(body(content=None)).text == ""


def test_content_sent_as_a_list_of_parts_is_joined():
    parts = [{"type": "text", "text": "<think>two parts</think>"},
             {"type": "image_url", "image_url": {"url": "data:,"}},
             {"type": "text", "text": "<action>stop('ok')</action>"},
             "loose string part"]
    result = served(body(content=parts))
    assert result.text == "<think>two parts</think><action>stop('ok')</action>loose string part"


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": "lots", "completion_tokens": 5},
    {"prompt_tokens": None, "completion_tokens": 5},
    {"prompt_tokens": -5, "completion_tokens": 5},
    {"prompt_tokens": "3.5", "completion_tokens": "2"},
    {"prompt_tokens": 3.5, "completion_tokens": 2},
    {"prompt_tokens": True, "completion_tokens": 2},
    {"prompt_tokens": [1], "completion_tokens": {"n": 2}},
    "all of it",
    [11, 5],
])
def test_usage_that_is_not_a_count_is_estimated_instead(usage):
    result = served(body("a reply of several words", usage=usage), price_input=1.0)
    assert result.raw["usage_estimated"] is True
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    assert result.usage.cost > 0


def test_usage_reported_as_whole_floats_is_taken():
    result = served(body("x", usage={"prompt_tokens": 12.0, "completion_tokens": 3}))
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (12, 3)
    assert "usage_estimated" not in result.raw


def test_an_infinite_usage_is_estimated_not_a_crash():
    raw = json.dumps(body("x")).replace('"model"', '"usage": {"prompt_tokens": Infinity, '
                                        '"completion_tokens": 1e999}, "model"', 1)
    assert served(raw.encode()).raw["usage_estimated"] is True


def test_a_lone_surrogate_in_the_reply_is_replaced():
    raw = json.dumps(body("<action>stop('a\ud800b')</action>"))  # ASCII: "\\ud800"
    assert "\\ud800" in raw
    result = served(raw.encode())
    assert result.text == "<action>stop('a\ufffdb')</action>"
    result.text.encode("utf-8")  # strict: would raise on a surrogate


def test_a_lone_surrogate_in_a_part_or_the_model_name_is_replaced():
    raw = json.dumps(body(content=[{"type": "text", "text": "\udfff"}], model="m\ud83d"))
    result = served(raw.encode())
    assert (result.text, result.model) == ("\ufffd", "m\ufffd")


def test_bytes_that_are_not_utf8_are_replaced():
    raw = json.dumps(body("caf\u00e9")).encode().replace(b"\\u00e9", b"\xe9\xff")
    assert served(raw).text == "caf\ufffd\ufffd"


def test_a_model_name_that_is_not_text_falls_back_to_the_configured_one():
    assert served(body("x", model=["not", "a", "name"])).model == "fake-model"


def test_a_broken_body_on_a_vision_probe_is_a_model_error_too():
    with fake_endpoint([(200, b"oops", {}, 0.0)]) as ep, pytest.raises(ModelError):
        make(ep.url, max_retries=0, vision="auto").complete(
            [Message("user", "look", images=[b"\x89PNG\r\n\x1a\n"])])


@pytest.mark.parametrize("models", [
    b"not json", b"", b"[]", {"data": "x"}, {"data": [None]}, {"data": [{"id": 5}]},
    {"data": [{"name": "no id"}]},
])
def test_a_broken_model_list_is_a_model_error_when_the_name_is_needed(models):
    with fake_endpoint([]) as ep, pytest.raises(ModelError) as info:
        ep.models_body = models
        OpenAIChatModel(ModelSettings(base_url=ep.url, max_retries=0)).complete(ASK)
    assert "\n" not in str(info.value) and "--model" in str(info.value)


def test_a_surrogate_escaped_inside_a_json_action_reply_is_replaced():
    reply = '{"thought": "t\\ud800", "action": {"name": "stop", "answer": "a\\udc00"}}'
    result = served(body(reply), constrain="json_schema", constraint=action_constraint(["1"]))
    assert result.text == "<think>t\ufffd</think>\n<action>stop('a\ufffd')</action>"


def test_a_surrogate_escaped_inside_a_json_role_reply_is_replaced():
    # The Summarizer and the critic answer in JSON and read it with json_object.
    assert json_object('{"facts": ["x\\ud800"]}', "the summary") == {"facts": ["x\ufffd"]}
