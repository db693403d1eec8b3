"""Settings: defaults, then a TOML file, then environment variables, then CLI flags.

One typed model so that a broken file or variable is reported as one clear line
(which key, what was wrong) before anything starts.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from colorbrowser.datafile import load_toml
from colorbrowser.errors import ConfigError, UserError
from colorbrowser.linear_regex import LinearRegex, compile_linear


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


_USERINFO = re.compile(r"://[^/?#]*@")


def check_base_url(url: str) -> None:
    """Raise ValueError unless ``url`` is an http(s) address with a host and valid port.
    The message repeats the address with any user:password part masked."""
    shown = repr(_USERINFO.sub("://***@", url))
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(f"{shown} is not a URL: it contains spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError as exc:
        raise ValueError(f"{shown} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{shown} is not an http:// or https:// URL")
    if not parts.hostname:
        raise ValueError(f"{shown} has no host name")


class ModelSettings(_Strict):
    """One model endpoint. With no base_url the offline default server is used."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str | None = None
    vision: Literal["auto", "on", "off"] = "auto"
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(4, ge=0, le=20)
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(512, gt=0)
    # The model's context window in tokens: the Operator cuts the page text so that the
    # prompt and the reply fit. None: unknown (nothing is cut) for an endpoint, the
    # offline server's own window (4096, which it is started with) for the offline model.
    context_tokens: int | None = Field(None, ge=1024)
    # Prices per million tokens; cost is counted as prompt*in + completion*out.
    price_input: float = Field(0.0, ge=0)
    price_output: float = Field(0.0, ge=0)
    # How to constrain output: grammar (llama.cpp), json_schema, none, or auto
    # (grammar for the offline server, none elsewhere).
    constrain: Literal["auto", "grammar", "json_schema", "none"] = "auto"

    @field_validator("base_url")
    @classmethod
    def _base_url_is_a_web_address(cls, value: str | None) -> str | None:
        """A malformed address is the user's to fix, said here before a client chokes."""
        if value:
            check_base_url(value)
        return value

    @property
    def is_offline_default(self) -> bool:
        return not self.base_url


_HOST_NAME = re.compile(
    r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


def check_host_entry(entry: str) -> str:
    """One allowed-hosts entry, lower-cased: a host name, ``*.domain`` or an IP address,
    optionally with a port (``127.0.0.1:8103``, ``[::1]:8103``); without one it covers
    every port of the host.

    Raises ValueError with a message for a person (a URL, a bad port, a typo)."""
    host = entry.strip().lower()
    if not host:
        raise ValueError("empty host in the allowed hosts")
    if "://" in host or "/" in host:
        raise ValueError(f"allowed host {entry!r} must be a host name like example.com, "
                         "not a URL")
    try:
        ipaddress.ip_address(host)  # a bare IPv6 address: no port to split off
        return host
    except ValueError:
        pass
    name, port = host, ""
    if host.startswith("["):
        inside, _, rest = host[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise ValueError(f"allowed host {entry!r} is not a host name")
        name, port = f"[{inside}]", rest[1:]
        bare = inside
    else:
        if ":" in host:
            name, _, port = host.partition(":")
        bare = name
    if port or host.endswith(":"):
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"allowed host {entry!r}: the port must be a number from 1 "
                             "to 65535")
        port = str(int(port))
        if name.startswith("*."):
            raise ValueError(f"allowed host {entry!r}: a *.domain entry covers every port; "
                             "give hosts with a port one by one")
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        if name.startswith("[") or not _HOST_NAME.match(name):
            raise ValueError(f"allowed host {entry!r} is not a host name "
                             "(use example.com, *.example.com or 127.0.0.1:8103)") from None
    return f"{name}:{port}" if port else name


class BrowserSettings(_Strict):
    executable: str | None = None
    headless: bool = True
    viewport_width: int = Field(1280, ge=200)
    viewport_height: int = Field(720, ge=200)
    action_timeout_ms: int = Field(5000, ge=100)
    navigation_timeout_ms: int = Field(20000, ge=100)
    interactive_only: bool = False
    offscreen: bool = True  # False: leave out elements outside the viewport (fewer tokens)
    screenshots: bool = True
    dialogs: Literal["accept", "dismiss"] = "accept"
    # Watchdogs: a call into the page that takes longer than this is cut off and the
    # tab reloaded; this many actions in a row without any change reload the page
    # (0 turns that off); a page that fails to load is retried this often.
    hang_timeout_ms: int = Field(30000, ge=500)
    stall_steps: int = Field(5, ge=0)
    network_retries: int = Field(2, ge=0, le=10)
    # Hosts the agent may reach (example.com, *.example.com, 127.0.0.1, 127.0.0.1:8103:
    # with a port, that port only); empty: any. Chromium resolves no other host (or
    # port), so redirects, pop-ups and a page's own requests cannot leave either.
    allow_hosts: list[str] = Field(default_factory=list)
    # Local pages a person opened on purpose (run/observe --allow-file-url). The
    # agent may look at them; its own actions still only open http(s) pages.
    trusted_pages: list[str] = Field(default_factory=list)
    # Expose the browser over CDP on 127.0.0.1 (scripted persons in copilot mode attach
    # there with Playwright's connect_over_cdp); None: not exposed.
    remote_debugging_port: int | None = Field(None, ge=1024, le=65535)

    @field_validator("allow_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: object) -> object:
        if isinstance(value, str):  # "a.com,b.com" from a flag or an env var
            value = [h for h in value.split(",") if h.strip()]
        if isinstance(value, list):
            return [check_host_entry(str(h)) for h in value]
        return value


class AgentSettings(_Strict):
    max_steps: int = Field(30, ge=1)
    max_cost: float | None = Field(None, ge=0)
    format_retries: int = Field(2, ge=0, le=10)
    recent_actions: int = Field(5, ge=0, le=50)
    memory: Literal["summary", "full", "none"] = "summary"
    summary_budget: int = Field(500, ge=50, le=8000)  # tokens
    summary_every: int = Field(1, ge=1)  # update the summary every k steps
    # Knowledge base in the loop: on (retrieve and learn), off (ablation),
    # frozen (retrieve from a read-only store, as in the papers' evaluation).
    knowledge: Literal["on", "off", "frozen"] = "on"
    tips_k: int = Field(3, ge=0, le=20)
    tips_token_budget: int = Field(400, ge=0)
    tips_embeddings: bool = True  # the embedding stage of retrieval (loads torch once)
    send_screenshot: bool = True
    # The verifier at the stop: "on" checks a stop against the evidence and sends a stop
    # it cannot accept back to the decider (up to verify_retries times); "off" takes the
    # model's word, as before the verifier.
    verify: Literal["on", "off"] = "on"
    verify_retries: int = Field(2, ge=0, le=10)
    # Learned workflows (workflows/): "on" runs one whose goal pattern fits the goal (the
    # Operator heals a step that misses) and shows a similar one to the Operator as
    # guidance; "only" never falls back to a whole Operator episode; "off" ignores them.
    workflows: Literal["on", "off", "only"] = "on"
    learn_workflows: bool = False  # learn a workflow from every run the verifier verified


# Text that means the page shows an error. Plain entries match as whole words, any
# case; "re:" entries are regexes (also case-insensitive).
DEFAULT_ERROR_PHRASES: tuple[str, ...] = (
    "access denied", "permission denied", "not authorized to", "you are not allowed",
    "out of stock", "sold out", "page not found", "page could not be found",
    "something went wrong", "an error occurred", "internal server error",
    "service unavailable", "too many requests", "session has expired",
    r"re:\b[45]\d\d\b\W{0,3}(?:error|not found|forbidden|unauthori[sz]ed|bad request|gone"
    r"|bad gateway|service unavailable|gateway time-?out|too many requests)\b",
    r"re:\berror (?:code|status)\W{0,3}[45]\d\d\b",
)


def compile_phrase(entry: str) -> LinearRegex:
    """One error phrase as a regex; raises ValueError naming the entry when it is broken.

    The page writes the text these are matched against, so "re:" entries run in linear
    time; plain phrases are literal words we join ourselves, linear in Python's engine."""
    if entry.startswith("re:"):
        return compile_linear(entry[3:], name=entry, ignore_case=True)
    words = " ".join(entry.split())
    if not words:
        raise ValueError("empty error phrase")
    body = r"\s+".join(re.escape(w) for w in words.split(" "))
    return re.compile(rf"(?<!\w){body}(?!\w)", re.I)


class HitlSettings(_Strict):
    """Failure triggers and asking a person (human-in-the-loop knowledge adaptation)."""

    interactive: bool = False  # pause on a trigger and ask the person at the terminal
    triggers: bool = True  # rule-based detectors; their findings also steer the Summarizer
    critic_every: int = Field(0, ge=0)  # LLM critic after every k-th action; 0 = off
    cooldown: int = Field(3, ge=0)  # steps before the same trigger may fire again
    cycle_repeats: int = Field(2, ge=2)  # a URL sequence seen this many times in a row
    cycle_max_len: int = Field(3, ge=2, le=10)  # longest URL sequence looked for
    repeat_actions: int = Field(3, ge=2)  # the same action this many times in a row
    still_actions: int = Field(3, ge=1)  # this many actions without DOM or URL change
    error_actions: int = Field(3, ge=1)  # failed actions among the last error_window
    error_window: int = Field(5, ge=1)
    budget_fraction: float = Field(0.8, gt=0, le=1)  # share of max_steps used ...
    progress_window: int = Field(3, ge=1)  # ... with no new page or note in this many steps
    error_phrases: list[str] = Field(default_factory=lambda: list(DEFAULT_ERROR_PHRASES))

    @field_validator("error_phrases")
    @classmethod
    def _phrases_compile(cls, value: list[str]) -> list[str]:
        for entry in value:
            compile_phrase(entry)
        return value

    @model_validator(mode="after")
    def _window_holds_the_errors(self) -> HitlSettings:
        if self.error_window < self.error_actions:
            raise ValueError(f"error_window ({self.error_window}) must be at least "
                             f"error_actions ({self.error_actions})")
        return self


class RiskRule(_Strict):
    """One rule of the approval policy: globs over the action's name, its element's
    name and the page's URL ("*" matches anything); the first rule that matches wins.
    ``always``: wait for a person; ``maybe``: risky only when the pre-flight check
    sees a non-GET form or request; ``never``: not risky whatever the check says."""

    tier: Literal["always", "maybe", "never"]
    action: str = "*"
    element: str = "*"
    url: str = "*"


DEFAULT_RISK_RULES: tuple[dict[str, str], ...] = (
    {"tier": "always", "action": "*", "element": "*pay*"},
    {"tier": "always", "action": "*", "element": "*delete*"},
    {"tier": "always", "action": "*", "element": "*purchase*"},
    {"tier": "always", "action": "*", "element": "*place order*"},
    {"tier": "maybe", "action": "click"},
    {"tier": "maybe", "action": "press"},
    {"tier": "maybe", "action": "dblclick"},
    {"tier": "never"},
)


class CopilotSettings(_Strict):
    risk: list[RiskRule] = Field(
        default_factory=lambda: [RiskRule(**r) for r in DEFAULT_RISK_RULES])


class PathSettings(_Strict):
    runs: Path = Path("runs")
    knowledge: Path | None = None  # None: $COLORBROWSER_KB or the user data dir
    cache: Path = Field(default_factory=lambda: Path(
        os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "colorbrowser")


class SecretSource(_Strict):
    """Where one secret's value is read (an environment variable or a file, never the
    value itself) and the hosts it may be typed into (see secrets.py)."""

    env: str | None = None
    file: Path | None = None
    hosts: list[str] = Field(min_length=1)

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        return [check_host_entry(h) for h in value]

    @model_validator(mode="after")
    def _one_source(self) -> SecretSource:
        if (self.env is None) == (self.file is None):
            raise ValueError("name exactly one of env or file")
        return self


class Settings(_Strict):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True)

    model: ModelSettings = Field(default_factory=ModelSettings)
    summarizer_model: ModelSettings | None = None
    judge: ModelSettings | None = None  # a model judge after the verifier's checks
    browser: BrowserSettings = Field(default_factory=BrowserSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    hitl: HitlSettings = Field(default_factory=HitlSettings)
    copilot: CopilotSettings = Field(default_factory=CopilotSettings)
    paths: PathSettings = Field(default_factory=PathSettings)
    # [secrets] in config.toml: name -> where its value is read. Only from the person's
    # own config file (load_settings refuses it in a file named on the command line).
    secret_sources: dict[str, SecretSource] = Field(default_factory=dict, alias="secrets")

    @model_validator(mode="after")
    def _summarizer_inherits_endpoint(self) -> Settings:
        """``--summarizer-model NAME`` means another model at the same endpoint."""
        for sm in (self.summarizer_model, self.judge):
            if sm is not None and sm.base_url is None and self.model.base_url:
                sm.base_url = self.model.base_url
                if sm.api_key is None:
                    sm.api_key = self.model.api_key
        return self

    def secrets(self) -> list[str]:
        """Values that must never reach logs or trajectories."""
        out = []
        for m in (self.model, self.summarizer_model, self.judge):
            if m and m.api_key and m.api_key.get_secret_value():
                out.append(m.api_key.get_secret_value())
        return out


# Settings that choose a program, a file that is run, loaded or written, a secret, a
# debug port, a local page to trust or where the agent may go. A file that may come from
# someone else (a study's agent config, a run folder) never sets them: they come from
# the person's own settings. Each says how the person sets it themselves.
_KEY_HOW = ("keys come only from your environment: --api-key-env VAR for your own endpoint, "
            "--key-for-agent-config VAR for the endpoint an agent config names")
AUTHORITY: dict[tuple[str, str], str] = {
    ("model", "api_key"): _KEY_HOW,
    ("summarizer_model", "api_key"): _KEY_HOW,
    ("judge", "api_key"): _KEY_HOW,
    ("browser", "executable"): "set CHROMIUM_PATH or [browser] executable in your own "
                               "config file",
    ("browser", "trusted_pages"): "open a local page yourself with run --allow-file-url",
    ("browser", "remote_debugging_port"): "pass copilot --remote-debugging-port PORT",
    ("browser", "allow_hosts"): "set [browser] allow_hosts in your own config file or pass "
                                "--allow-hosts",
    ("paths", "runs"): "set COLORBROWSER_RUNS or [paths] runs in your own config file",
    ("paths", "knowledge"): "pass --kb FILE or set COLORBROWSER_KB",
    ("paths", "cache"): "set COLORBROWSER_CACHE or [paths] cache in your own config file",
    # Learning writes workflows into your knowledge base, which later run without a model.
    ("agent", "learn_workflows"): "pass run --learn-workflows or set [agent] "
                                  "learn_workflows in your own config file",
}
# Where a model's requests go: a file may name one, but no key follows it unasked.
ENDPOINTS: tuple[tuple[str, str], ...] = (("model", "base_url"), ("summarizer_model", "base_url"),
                                          ("judge", "base_url"))


# Environment variables and where they land. The OPENAI_* names are read too,
# so an existing OpenAI-compatible setup works without renaming anything.
ENV_VARS: dict[str, tuple[str, ...]] = {
    "COLORBROWSER_BASE_URL": ("model", "base_url"),
    "OPENAI_BASE_URL": ("model", "base_url"),
    "COLORBROWSER_API_KEY": ("model", "api_key"),
    "OPENAI_API_KEY": ("model", "api_key"),
    "COLORBROWSER_MODEL": ("model", "model"),
    "CHROMIUM_PATH": ("browser", "executable"),
    "COLORBROWSER_RUNS": ("paths", "runs"),
    "COLORBROWSER_KB": ("paths", "knowledge"),
    "COLORBROWSER_CACHE": ("paths", "cache"),
}


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if explicit := env.get("COLORBROWSER_CONFIG"):
        return Path(explicit)
    base = Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "colorbrowser" / "config.toml"


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for key in path[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"config: {'.'.join(path[:-1])} must be a table")
    node[path[-1]] = value


def _describe(exc: ValidationError, origins: dict[tuple[str, ...], str], default: str) -> str:
    """One line naming the key and where its bad value came from (file, env var, flag)."""
    err = exc.errors()[0]
    loc = tuple(str(p) for p in err["loc"])
    where = ".".join(loc) or "(top level)"
    source = next((origins[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in origins),
                  default)
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"{source}: {where}: {err['msg']}{more}"


def load_settings(
    path: Path | str | None = None,
    overrides: dict[tuple[str, ...], Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build settings; raise ConfigError with one readable line when anything is off."""
    env = os.environ if environ is None else environ
    # A file the person named must exist; only the default place may be empty.
    named_by = ("" if path is not None else
                "environment variable COLORBROWSER_CONFIG: " if env.get("COLORBROWSER_CONFIG")
                else None)
    cfg_path = Path(path) if path is not None else default_config_path(env)
    data: dict[str, Any] = {}
    if cfg_path == Path(os.devnull):
        pass  # the usual way to say "no config file": empty, and no device to read
    elif cfg_path.exists():
        try:
            data = load_toml(cfg_path, "config file", source=f"config file {cfg_path}")
        except UserError as exc:
            raise ConfigError(str(exc)) from None
    elif named_by is not None:
        raise ConfigError(f"{named_by}config file {cfg_path} does not exist")
    if path is not None and "secrets" in data:
        # A file from elsewhere is data: it may not choose which of the person's
        # variables or files become secrets, nor where they are typed.
        raise ConfigError(f"config file {cfg_path}: [secrets] is read only from your own "
                          f"config file ({default_config_path(env)})")
    # Where each value came from, so an error names the file, variable or flag to fix.
    default = f"config file {cfg_path}" if data else "settings"
    origins: dict[tuple[str, ...], str] = {}
    # Later entries win, so list OPENAI_* before COLORBROWSER_* in effect order.
    for name in sorted(ENV_VARS, key=lambda n: n.startswith("COLORBROWSER")):
        if env.get(name):
            _set(data, ENV_VARS[name], env[name])
            origins[ENV_VARS[name]] = f"environment variable {name}"
    for key, value in (overrides or {}).items():
        if value is not None:
            _set(data, key, value)
            origins[key] = "command line"
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, origins, default)) from None
