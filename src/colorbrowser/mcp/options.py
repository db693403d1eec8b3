"""What the person who starts the MCP server decides, and the texts its tools show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import yaml
from mcp.server.transport_security import TransportSecuritySettings

from colorbrowser.agent.secrets import Secret, Vault, vault_for
from colorbrowser.config import Settings

TEMPLATES = Path(str(resources.files("colorbrowser.mcp").joinpath("templates")))


@cache
def texts() -> dict[str, str]:
    """Tool descriptions and the server's instructions (templates/tools.yaml)."""
    return yaml.safe_load((TEMPLATES / "tools.yaml").read_text("utf-8"))


@dataclass
class ServerConfig:
    """What the person who started the server decided; no client can change it."""

    settings: Settings = field(default_factory=Settings)
    # None: the arena tools are not offered. Otherwise the one instance they drive.
    arena_instance: int | None = None
    arena_ports: dict[str, int] | None = None
    arena_cache: Path | None = None
    # Named secrets besides the config's [secrets], each bound to its hosts.
    secrets: Mapping[str, Secret] = field(default_factory=dict)
    host_check: TransportSecuritySettings | None = None
    # Over HTTP each session may start a Chromium: this many at once, at most.
    max_sessions: int = 8

    def vault(self) -> Vault:
        """The config's [secrets] (values read now) and the ones given here."""
        return vault_for(self.settings, dict(self.secrets))


