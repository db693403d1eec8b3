"""Run one command against a throwaway local Ray cluster, then stop the cluster.

    python ray_cluster.py PORT -- COMMAND...

The test runs this under ``unshare -n`` where it can: a fresh network namespace
holds only a loopback interface, so every port Ray opens (some bind all
interfaces, whatever ``--node-ip-address`` says) is reachable from this machine
only. The cluster requires a token, made here and passed to the command.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import socket
import struct
import subprocess
import sys
from pathlib import Path

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def bring_loopback_up() -> None:
    """A new network namespace starts with ``lo`` down; no ``ip`` tool needed."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        if not flags & IFF_UP:
            fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def main(argv: list[str]) -> int:
    port, sep, *command = argv
    if sep != "--" or not command:
        raise SystemExit("usage: ray_cluster.py PORT -- COMMAND...")
    if os.environ.get("RAY_TEST_NETNS") == "1":
        bring_loopback_up()
    ray = str(Path(sys.executable).with_name("ray"))
    env = os.environ | {
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(16),
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    started = subprocess.run(
        [ray, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", port,
         "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats"],
        env=env, capture_output=True, text=True, timeout=180)
    if started.returncode != 0:
        print(started.stdout + started.stderr, file=sys.stderr)
        return 97
    try:
        return subprocess.run(command, env=env | {"RAY_ADDRESS": f"127.0.0.1:{port}"},
                              timeout=600).returncode
    finally:
        subprocess.run([ray, "stop", "--force"], env=env, capture_output=True, timeout=120)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
