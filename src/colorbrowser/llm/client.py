"""One client for every OpenAI-compatible chat endpoint.

Retries with exponential backoff on 408/409/429/5xx and connection errors are
left to the ``openai`` package (0.5 s doubling, capped at 8 s, with jitter, and
honouring Retry-After); this module decides what the request looks like
(images, constraints), counts tokens and cost, and turns failures into one-line
ModelError / ModelUnavailable messages that never contain the key.
"""

from __future__ import annotations

import base64
import logging
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai

from colorbrowser.config import ModelSettings
from colorbrowser.errors import ModelError, ModelUnavailable
from colorbrowser.llm.grammar import SCHEMA_TITLE, json_reply_to_tagged
from colorbrowser.llm.reply_body import ReplyBody, first_model_id, read_reply
from colorbrowser.llm.tokens import count_tokens
from colorbrowser.types import Completion, Constraint, Message, Usage

log = logging.getLogger(__name__)

_NO_KEY = "no-key"  # the openai package insists on a key; keyless servers ignore it


def _mime(png_or_jpeg: bytes) -> str:
    return "image/jpeg" if png_or_jpeg[:3] == b"\xff\xd8\xff" else "image/png"


def data_url(image: bytes) -> str:
    return f"data:{_mime(image)};base64,{base64.b64encode(image).decode('ascii')}"


def to_openai_messages(messages: list[Message], *, images: bool) -> list[dict[str, Any]]:
    """Chat messages in the wire format; images only on user turns, as data: URLs."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if images and m.images and m.role == "user":
            parts: list[dict[str, Any]] = [{"type": "text", "text": m.content}]
            parts += [{"type": "image_url", "image_url": {"url": data_url(i)}} for i in m.images]
            out.append({"role": m.role, "content": parts})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def _public_url(url: str) -> str:
    """The endpoint as it may be shown: no credentials, no query string."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _one_line(text: str, secret: str | None, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    if secret:
        text = text.replace(secret, "***")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
        if body.get("detail"):
            return str(body["detail"])
    if isinstance(body, str) and body:
        return body
    return exc.response.reason_phrase or "no details"


def _may_reject_images(exc: openai.APIStatusError) -> bool:
    """Statuses a server uses when it cannot take image parts (llama.cpp text models: 500)."""
    return exc.status_code in (400, 413, 415, 422) or exc.status_code >= 500


class OpenAIChatModel:
    """A Model (colorbrowser.protocols) backed by an OpenAI-compatible chat endpoint.

    ``offline=True`` marks our own llama.cpp server: "auto" constraints become a
    grammar there, and JSON schemas go in the form that server accepts.
    """

    def __init__(self, settings: ModelSettings, *, offline: bool = False) -> None:
        if not settings.base_url:
            raise ModelUnavailable("no model endpoint configured (base_url is empty)")
        self.settings = settings
        self.offline = offline
        self.base_url = settings.base_url
        self.where = _public_url(settings.base_url)
        self._key = settings.api_key.get_secret_value() if settings.api_key else None
        self.name: str = settings.model or ""
        # vision "on": always send images and treat rejections as errors; "auto": send
        # them until the endpoint rejects them once, then continue text-only.
        self.vision: bool = settings.vision != "off"
        self._images_confirmed = settings.vision == "on"
        if settings.constrain == "auto":
            self.constrain = "grammar" if offline else "none"
        else:
            self.constrain = settings.constrain
        self.usage = Usage()
        self.reply_tokens = settings.max_tokens
        self.context_tokens = settings.context_tokens
        if offline and self.context_tokens is None:
            from colorbrowser.llm.offline import OFFLINE_CONTEXT

            self.context_tokens = OFFLINE_CONTEXT
        self.timeout, self.retries = settings.timeout, settings.max_retries
        if offline:
            # Our llama.cpp server has one slot and finishes a request whose client gave
            # up: a retry only queues behind it. The same patience goes to one attempt.
            self.timeout, self.retries = settings.timeout * (settings.max_retries + 1), 0
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=self._key or _NO_KEY,
            timeout=self.timeout,
            max_retries=self.retries,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIChatModel(name={self.name!r}, url={self.where!r})"

    # -- request building ------------------------------------------------------

    def _constraint_args(self, constraint: Constraint | None) -> dict[str, Any]:
        if constraint is None or self.constrain == "none":
            return {}
        if self.constrain == "grammar" and constraint.grammar:
            return {"extra_body": {"grammar": constraint.grammar}}
        if self.constrain == "json_schema" and constraint.json_schema:
            schema = constraint.json_schema
            if self.offline:  # llama-cpp-python answers 500 to the json_schema type
                return {"response_format": {"type": "json_object", "schema": schema}}
            name = str(schema.get("title") or "reply")
            return {"response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": False},
            }}
        return {}

    def _resolve_name(self) -> str:
        """With no model configured, use the endpoint's first listed model (vLLM, llama.cpp)."""
        if self.name:
            return self.name
        hint = "pass --model or set COLORBROWSER_MODEL"
        try:
            name = first_model_id(self._client.models.with_raw_response.list().content)
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        except ValueError as exc:
            raise ModelUnavailable(f"no model set and {self.where} "
                                   f"{_one_line(str(exc), self._key)}; {hint}") from None
        if name is None:
            raise ModelUnavailable(f"no model set and {self.where} lists none; {hint}")
        self.name = name
        return self.name

    # -- the call ----------------------------------------------------------------

    def complete(
        self,
        messages: list[Message],
        *,
        constraint: Constraint | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        name = self._resolve_name()
        params: dict[str, Any] = {
            "model": name,
            "max_tokens": max_tokens or self.settings.max_tokens,
            "temperature": self.settings.temperature if temperature is None else temperature,
            **self._constraint_args(constraint),
        }
        with_images = self.vision and any(m.images for m in messages)
        start = time.monotonic()
        try:
            if with_images and not self._images_confirmed:
                body = self._probe_images(messages, params)
            else:
                body = self._create(messages, with_images, params)
        except openai.OpenAIError as exc:
            err = self._translate(exc)
            if with_images and self.settings.vision == "on" and isinstance(
                    exc, openai.APIStatusError):
                err = type(err)(f"{err} (images were sent; set vision to auto or off "
                                "for a text-only model)")
            raise err from None
        return self._completion(body, messages, time.monotonic() - start, constraint)

    def _create(self, messages: list[Message], images: bool, params: dict[str, Any],
                retries: int | None = None) -> bytes:
        """The raw reply body: its shape is checked here (read_reply), not by openai."""
        client = self._client if retries is None else self._client.with_options(
            max_retries=retries)
        return client.chat.completions.with_raw_response.create(
            messages=to_openai_messages(messages, images=images), **params).content

    def _probe_images(self, messages: list[Message], params: dict[str, Any]) -> bytes:
        """First request with images (vision=auto): one quick try, so a rejection costs
        no backoff; if text-only then works, the images were the problem."""
        try:
            body = self._create(messages, True, params, retries=0)
        except openai.APIStatusError as exc:
            if exc.status_code in (401, 403, 404):
                raise
            if not _may_reject_images(exc):  # 408/409/429: plain retry
                body = self._create(messages, True, params)
            else:
                body = self._create(messages, False, params)
                self.vision = False
                log.warning("%s rejected images (HTTP %s); continuing text-only",
                            self.where, exc.status_code)
                return body
        except openai.APIConnectionError:
            body = self._create(messages, True, params)
        self._images_confirmed = True
        return body

    def _completion(
        self, body: bytes, messages: list[Message], seconds: float, constraint: Constraint | None
    ) -> Completion:
        try:
            reply = read_reply(body)
        except ValueError as exc:
            raise ModelError(f"model endpoint {self.where} {_one_line(str(exc), self._key)}"
                             ) from None
        text = reply.text
        raw: dict[str, Any] = {
            "id": reply.id,
            "finish_reason": reply.finish_reason,
            "seconds": round(seconds, 3),
        }
        if (
            self.constrain == "json_schema"
            and constraint is not None
            and constraint.json_schema
            and constraint.json_schema.get("title") == SCHEMA_TITLE
        ):
            raw["json"] = text
            text = json_reply_to_tagged(text)
        usage = self._usage(reply, messages, text, raw)
        self.usage.add(usage)
        log.debug("%s: %d+%d tokens in %.2fs", self.name, usage.prompt_tokens,
                  usage.completion_tokens, seconds)
        return Completion(text=text, usage=usage, model=reply.model or self.name, raw=raw)

    def _usage(self, reply: ReplyBody, messages: list[Message], text: str,
               raw: dict[str, Any]) -> Usage:
        prompt, completion = reply.prompt_tokens, reply.completion_tokens
        if prompt is None or completion is None:
            raw["usage_estimated"] = True
            prompt = sum(count_tokens(m.content) + 4 for m in messages)
            completion = count_tokens(text)
        cost = (prompt * self.settings.price_input
                + completion * self.settings.price_output) / 1_000_000
        return Usage(prompt_tokens=prompt, completion_tokens=completion, cost=cost, calls=1)

    # -- errors --------------------------------------------------------------------

    def _translate(self, exc: openai.OpenAIError) -> ModelError:
        where, retries = self.where, self.retries
        if isinstance(exc, openai.APITimeoutError):
            return ModelError(f"model endpoint {where} did not answer within "
                              f"{self.timeout:g}s ({retries + 1} attempt(s))")
        if isinstance(exc, openai.APIConnectionError):
            cause: BaseException | None = exc.__cause__
            while cause is not None and cause.__cause__ is not None:
                cause = cause.__cause__
            reason = "connection refused" if "refused" in str(cause).lower() else (
                _one_line(str(cause), self._key) if cause else "connection failed")
            return ModelUnavailable(f"cannot reach model endpoint {where}: {reason}")
        if isinstance(exc, openai.APIStatusError):
            code = exc.status_code
            detail = _one_line(_server_message(exc), self._key)
            if code in (401, 403):
                hint = "set an API key" if not self._key else "check the API key"
                return ModelUnavailable(
                    f"model endpoint {where} refused the credentials (HTTP {code}); {hint}")
            if code == 404:
                return ModelUnavailable(
                    f"model endpoint {where} answered 404 for model {self.name!r}: {detail}")
            if code in (408, 409, 429) or code >= 500:
                return ModelError(f"model endpoint {where} failed with HTTP {code} after "
                                  f"{retries} retries: {detail}")
            return ModelError(f"model endpoint {where} rejected the request (HTTP {code}): "
                              f"{detail}")
        return ModelError(f"model endpoint {where}: {_one_line(str(exc), self._key)}")

    def reset_usage(self) -> Usage:
        """Return the usage so far and start counting again (e.g. per episode)."""
        done, self.usage = self.usage, Usage()
        return done

    def close(self) -> None:
        self._client.close()
