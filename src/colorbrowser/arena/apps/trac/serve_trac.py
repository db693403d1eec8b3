"""Serve one Trac environment on 127.0.0.1, as ``tracd -s`` does, behind a Host check.

tracd answers whatever name a request carries, so a page in any browser on the machine
could reach the arena's Trac through DNS rebinding. This runs Trac's own WSGI server
with the Host check every local server of ColorBrowser shares (``colorbrowser/
hostcheck.py``, loaded by its path: this script runs in Trac's venv, where ColorBrowser
is not installed).

Usage: python serve_trac.py ENV_DIR PORT HOSTCHECK_PY
"""

import importlib.util
import os
import sys


def load_hostcheck(path):
    spec = importlib.util.spec_from_file_location("arena_hostcheck", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    env_dir, port, hostcheck_path = os.path.abspath(argv[0]), int(argv[1]), argv[2]
    hostcheck = load_hostcheck(hostcheck_path)

    from trac.web.main import dispatch_request
    from trac.web.standalone import TracEnvironMiddleware, TracHTTPServer

    app = TracEnvironMiddleware(dispatch_request, None, [env_dir], True)
    server = TracHTTPServer(("127.0.0.1", port), hostcheck.WsgiHostGate(app, port),
                            None, [env_dir])
    print(f"Serving {env_dir} on http://127.0.0.1:{port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
