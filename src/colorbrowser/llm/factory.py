"""Build the Model the settings ask for, starting the offline server if needed."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from pydantic import SecretStr
from rich.console import Console

from colorbrowser.config import ModelSettings
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.offline import MODEL_ALIAS, OfflineServer

log = logging.getLogger(__name__)


def make_model(
    settings: ModelSettings,
    *,
    stack: contextlib.ExitStack,
    cache_dir: Path,
    console: Console | None = None,
) -> OpenAIChatModel:
    """An endpoint client; with no base_url, the offline server (stopped when stack closes)."""
    if settings.base_url:
        model = OpenAIChatModel(settings)
        stack.callback(model.close)
        return model
    if settings.model and settings.model != MODEL_ALIAS:
        log.warning("no base_url set: using the offline model, not %r", settings.model)
    console = console or Console(stderr=True)
    server = OfflineServer(Path(cache_dir), n_ctx=settings.context_tokens)
    status = (console.status("Starting the offline model (SmolLM2-135M)…")
              if console.is_terminal else contextlib.nullcontext())
    with status:
        stack.enter_context(server)
    return offline_client(settings, server.base_url, server.token, stack=stack)


def offline_client(settings: ModelSettings, base_url: str, token: str, *,
                   stack: contextlib.ExitStack | None = None) -> OpenAIChatModel:
    """A client for an offline server that is already running (an evaluation's workers
    share the one their coordinator started)."""
    offline = settings.model_copy(update={
        "base_url": base_url,
        "api_key": SecretStr(token),
        "model": MODEL_ALIAS,
        "vision": "off",
    })
    model = OpenAIChatModel(offline, offline=True)
    if stack is not None:
        stack.callback(model.close)
    return model
