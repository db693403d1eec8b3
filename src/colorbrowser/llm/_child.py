"""Code that runs in child processes of the offline model: re-quantize, serve.

Kept out of the parent so llama.cpp's C library, its log output and any crash
stay in a process whose stderr goes to a log file.

    python -m colorbrowser.llm._child quantize SRC DST
    python -m colorbrowser.llm._child serve MODEL PORT ALIAS N_CTX N_THREADS
        (token in COLORBROWSER_SERVER_TOKEN, parent pid in COLORBROWSER_PARENT_PID)
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time

TOKEN_ENV = "COLORBROWSER_SERVER_TOKEN"
PARENT_ENV = "COLORBROWSER_PARENT_PID"


def quantize(src: str, dst: str) -> int:
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0
    params.allow_requantize = True
    params.nthread = 2
    return int(llama_cpp.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(params)))


def _exit_with_parent(parent: int) -> None:
    """The server must not outlive the tool, even if the tool is killed with -9."""
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)


def serve(model: str, port: int, alias: str, n_ctx: int, n_threads: int) -> None:
    token = os.environ.pop(TOKEN_ENV, "")
    parent = int(os.environ.pop(PARENT_ENV, "0"))
    if not token:
        sys.exit("refusing to serve without a token")
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    # The server's settings also read same-named environment variables (PORT, HOST,
    # MODEL, CONFIG_FILE...); a user's unrelated variables must not change ours.
    fields = set(ServerSettings.model_fields) | set(ModelSettings.model_fields) | {"config_file"}
    for name in list(os.environ):
        if name.lower() in fields:
            del os.environ[name]
    server = ServerSettings(host="127.0.0.1", port=port, api_key=token)
    settings = ModelSettings(
        model=model, model_alias=alias, n_ctx=n_ctx, n_threads=n_threads,
        n_threads_batch=n_threads, logits_all=False, verbose=False,
    )
    from colorbrowser.hostcheck import AsgiHostGate

    # Besides its token, the server answers only requests addressed to itself (DNS rebinding).
    app = AsgiHostGate(create_app(server_settings=server, model_settings=[settings]), port)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: list[str]) -> int:
    if argv[:1] == ["quantize"] and len(argv) == 3:
        return quantize(argv[1], argv[2])
    if argv[:1] == ["serve"] and len(argv) == 6:
        serve(argv[1], int(argv[2]), argv[3], int(argv[4]), int(argv[5]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
