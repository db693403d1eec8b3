"""Secrets the agent may type but never see: ``{{secret:NAME}}`` placeholders.

The model is told only the names. It writes ``fill('7', '{{secret:shop_password}}')``;
the value is put in at the last moment, by the episode when the action runs, and only
on a page of a host the secret is bound to (anywhere else the action fails with the
reason, so a page cannot talk the agent into typing a password into another site).
Everything that leaves the episode is cleaned: the observation the decider and the
memory read shows the placeholder where a value was, and the run's redactor (files,
screenshots, the terminal, exports) knows each value.

Values come from the caller (``Agent(secrets=...)``) or from the ``[secrets]`` table
of the person's own config file, which names an environment variable or a file for
each one, never the value itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import spellings
from colorbrowser.errors import UserError
from colorbrowser.types import Action, ActionResult, ElementInfo, Observation

PLACEHOLDER = re.compile(r"\{\{\s*secret:([A-Za-z0-9_.-]+)\s*\}\}")
MIN_CHARS = 3  # shorter values would mask half the page; refused up front
TYPING_ACTIONS = ("fill",)


def placeholder(name: str) -> str:
    return "{{secret:" + name + "}}"


@dataclass(frozen=True)
class Secret:
    """One value and the hosts it may be typed into (``example.com``, ``*.example.com``)."""

    value: str = field(repr=False)
    hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from colorbrowser.config import check_host_entry

        try:
            object.__setattr__(self, "hosts", tuple(check_host_entry(h) for h in self.hosts))
        except ValueError as exc:
            raise UserError(f"secret hosts: {exc}") from None


class SecretRefused(Exception):
    """A placeholder that may not be filled in here; the message is for the model."""


class Vault:
    """The secrets of one run, by name."""

    def __init__(self, secrets: Mapping[str, Secret] | None = None) -> None:
        self.secrets = dict(secrets or {})
        for name, secret in self.secrets.items():
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
                raise UserError(f"secret name {name!r}: use letters, digits, _ . -")
            if len(secret.value) < MIN_CHARS:
                raise UserError(f"secret {name!r} is shorter than {MIN_CHARS} characters")
            if not secret.hosts:
                raise UserError(f"secret {name!r} is bound to no host; say where it may "
                                "be typed (hosts=[...])")
        # Longest first, so a value inside another is not cut out of it; each value
        # also as an address spells it.
        self._by_length = sorted(((name, form) for name, secret in self.secrets.items()
                                  for form in spellings(secret.value)),
                                 key=lambda kv: -len(kv[1]))

    def __bool__(self) -> bool:
        return bool(self.secrets)

    @property
    def values(self) -> list[str]:
        return [s.value for s in self.secrets.values()]

    def prompt_lines(self) -> list[str]:
        """What the model is told: names and hosts, never values."""
        return [f"{placeholder(n)} (only on {', '.join(s.hosts)})"
                for n, s in self.secrets.items()]

    # -- filling in --------------------------------------------------------------------
    def fill_in(self, action: Action, url: str, *, in_frame: bool = False) -> Action:
        """The action with its placeholders replaced by values, when it may be.

        Only typing actions are filled in; a placeholder elsewhere (a URL, a note, the
        answer) stays as written, so a value never leaves through them."""
        if action.name not in TYPING_ACTIONS:
            return action
        args = list(action.args)
        text = args[-1] if args and isinstance(args[-1], str) else ""
        names = PLACEHOLDER.findall(text)
        if not names:
            return action
        if in_frame:
            raise SecretRefused("a secret is not typed into a frame: the frame's site "
                                "cannot be checked")
        host = page_host(url)
        for name in names:
            secret = self.secrets.get(name)
            if secret is None:
                known = ", ".join(placeholder(n) for n in self.secrets) or "none"
                raise SecretRefused(f"there is no secret named {name!r} (known: {known})")
            if host is None or not host_matches(host, secret.hosts, page_port(url)):
                raise SecretRefused(f"{placeholder(name)} may only be typed on "
                                    f"{', '.join(secret.hosts)}, not on {host or url}")
        args[-1] = PLACEHOLDER.sub(lambda m: self.secrets[m.group(1)].value, text)
        return dataclasses.replace(action, args=args)

    # -- cleaning what is seen -------------------------------------------------------------
    def hide(self, text: str) -> str:
        """Each known value replaced by its placeholder (in any letter case)."""
        for name, value in self._by_length:
            text = re.sub(re.escape(value), placeholder(name), text, flags=re.I)
        return text

    def hide_obj(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.hide(value)
        if isinstance(value, dict):
            return {k: self.hide_obj(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.hide_obj(v) for v in value)
        return value

    def hide_observation(self, obs: Observation) -> Observation:
        """The page as the decider, the memory and the hooks may read it."""
        if not self.secrets:
            return obs
        h = self.hide

        def element(el: ElementInfo) -> ElementInfo:
            return dataclasses.replace(el, name=h(el.name), states=self.hide_obj(el.states))

        return dataclasses.replace(
            obs, url=h(obs.url), title=h(obs.title), axtree=h(obs.axtree),
            tabs=[dataclasses.replace(t, url=h(t.url), title=h(t.title)) for t in obs.tabs],
            last_error=_opt(h, obs.last_error), notice=_opt(h, obs.notice),
            dialog=_opt(h, obs.dialog), changes=_opt(h, obs.changes),
            elements={b: element(e) for b, e in obs.elements.items()})

    def hide_result(self, result: ActionResult) -> ActionResult:
        if not self.secrets:
            return result
        return dataclasses.replace(result, error=_opt(self.hide, result.error),
                                   output=_opt(self.hide, result.output),
                                   answer=_opt(self.hide, result.answer),
                                   info=self.hide_obj(result.info))


def _opt(fn: Any, value: str | None) -> str | None:
    return fn(value) if value is not None else None


def page_host(url: str) -> str | None:
    from colorbrowser.browser.policy import plain_host

    return plain_host(url)


def page_port(url: str) -> int | None:
    from colorbrowser.browser.policy import web_port

    return web_port(url)


def host_matches(host: str, patterns: Iterable[str], port: int | None = None) -> bool:
    """An entry with a port (``127.0.0.1:8103``) holds on that port only."""
    from colorbrowser.browser.policy import NavigationPolicy

    return NavigationPolicy.of(list(patterns)).host_allowed(host, port)


# -- where values come from -------------------------------------------------------------
def load_source(name: str, env: str | None, file: Path | None, hosts: list[str],
                environ: Mapping[str, str] | None = None) -> Secret:
    """A secret named in config: read from its environment variable or file now."""
    environ = os.environ if environ is None else environ
    if env:
        value = environ.get(env)
        if not value:
            raise UserError(f"secret {name!r}: environment variable {env} is not set")
    elif file is not None:
        path = Path(file).expanduser()
        try:
            value = path.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as exc:
            raise UserError(f"secret {name!r}: cannot read {path}: {exc.strerror}") from None
    else:
        raise UserError(f"secret {name!r}: name an env variable or a file")
    return Secret(value, tuple(hosts))


def vault_for(settings: Any, given: Mapping[str, Secret | str] | None = None,
              start_url: str | None = None) -> Vault:
    """The run's secrets: the config's sources, then the caller's (which win). A bare
    string from the caller is bound to the start page's host."""
    found: dict[str, Secret] = {
        name: load_source(name, src.env, src.file, src.hosts)
        for name, src in settings.secret_sources.items()}
    start_host = page_host(start_url) if start_url else None
    for name, value in (given or {}).items():
        if isinstance(value, Secret):
            found[name] = value
        elif isinstance(value, str):
            if start_host is None:
                raise UserError(f"secret {name!r}: give Secret(value, hosts=[...]) when "
                                "there is no start url to bind it to")
            found[name] = Secret(value, (start_host,))
        else:
            raise UserError(f"secret {name!r}: a str or a Secret, not {type(value).__name__}")
    return Vault(found)


def person_masker(settings: Any) -> Callable[[str], str]:
    """Masks what a person writes outside a run (``tips add``, ``tips import``): a value
    of the config's [secrets] becomes its placeholder, an API key ``***``. A source that
    cannot be read here is skipped: there is no value of it to find."""
    from colorbrowser.agent.trajectory import Redactor

    found: dict[str, Secret] = {}
    for name, src in settings.secret_sources.items():
        with contextlib.suppress(UserError):
            found[name] = load_source(name, src.env, src.file, src.hosts)
    vault = Vault(found)
    keys = Redactor(set(settings.secrets()))
    return lambda text: keys.text(vault.hide(text))
