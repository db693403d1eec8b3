"""Ports of each app in each instance.

Instance N shifts every default port by N * stride, so eval workers can each run a
full arena side by side. Ports can be overridden per app (``shop=9101,trac=9103``),
from the CLI or ``COLORBROWSER_ARENA_PORTS``.
"""

from __future__ import annotations

import errno
import socket
import time
from collections.abc import Mapping

from colorbrowser.errors import UserError

DEFAULT_PORTS: dict[str, int] = {
    "shop": 8101, "forum": 8102, "trac": 8103, "wiki": 8104, "tracker": 8108,
}
STRIDE = 100  # instance N adds N * STRIDE; the defaults span less than that
PORTS_ENV = "COLORBROWSER_ARENA_PORTS"


def parse_ports(text: str | None, known: set[str]) -> dict[str, int]:
    """``"shop=9101, trac=9103"`` -> ``{"shop": 9101, "trac": 9103}``; one-line errors."""
    out: dict[str, int] = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise UserError(f"bad port setting {part!r}: expected APP=PORT with APP one of "
                            f"{', '.join(sorted(known))}")
        try:
            port = int(value)
        except ValueError:
            raise UserError(f"bad port {value.strip()!r} for {name}") from None
        if not 1024 <= port <= 65535 - STRIDE * 10:
            raise UserError(f"port {port} for {name} is outside 1024..{65535 - STRIDE * 10}")
        out[name] = port
    return out


def port_for(app: str, instance: int, overrides: Mapping[str, int] | None = None) -> int:
    base = (overrides or {}).get(app, DEFAULT_PORTS[app])
    return base + instance * STRIDE


def port_busy(port: int, host: str = "127.0.0.1") -> bool:
    """True when something listens on the port (a bind would fail)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return True
            raise
    return False


def wait_port_free(port: int, timeout: float = 3.0) -> bool:
    """Wait until nobody listens on ``port``: a killed server's socket closes a moment
    after its process is gone."""
    deadline = time.monotonic() + timeout
    while port_busy(port):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now, for a server started briefly during a build."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]
