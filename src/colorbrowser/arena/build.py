"""Building one app's snapshot: seed into a staging folder, log every seeded user in
once, hash the content, then swap the staging folder in as the snapshot.

The logins happen here, against a server started briefly on a free port, so the
sessions they create are part of the snapshot: every instance and every reset then
starts with the same valid sessions, and the saved storage states keep working.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from colorbrowser.arena.apps.base import App, BuildContext, ServeContext
from colorbrowser.arena.layout import Layout
from colorbrowser.arena.ports import free_port
from colorbrowser.arena.process import start_group, stop_group, wait_http
from colorbrowser.arena.snapshot import combine, content_hash
from colorbrowser.browser.weblogin import log_in, save_state

META = "meta.json"


@dataclass(frozen=True)
class SnapshotMeta:
    app: str
    seed: int
    content_hash: str
    built_at: float
    build_seconds: float

    @classmethod
    def read(cls, snap: Path) -> SnapshotMeta | None:
        path = snap / META
        if not path.exists():
            return None
        return cls(**json.loads(path.read_text("utf-8")))


def app_hash(app: App, data: Path) -> str:
    return combine(content_hash(data / db, tables) for db, tables in sorted(app.content.items()))


def auth_file(root: Path, username: str) -> Path:
    return root / "auth" / f"{username}.json"


def build_app(app: App, layout: Layout, seed: int, say: Callable[[str], None]) -> SnapshotMeta:
    started = time.monotonic()
    stage = layout.stage(app.name)
    if stage.exists():
        shutil.rmtree(stage)
    (stage / "data").mkdir(parents=True)
    (stage / "work").mkdir()
    python = layout.venv_python(app.name) if app.uses_venv else None
    ctx = BuildContext(app=app.name, snapshot=stage, data=stage / "data", work=stage / "work",
                       python=python, seed=seed, log=stage / "build.log", say=say)
    app.build(ctx)
    say("log in the seeded users")
    serve = ServeContext(data=ctx.data, snapshot=stage, port=free_port(), python=python,
                         instance=-1)
    log = stage / "serve.log"
    pgid = start_group(app.server(serve), log)
    try:
        wait_http(serve.url + app.health_path, pgid, app.start_timeout, log)
        for account in app.login_accounts(seed):
            save_state(auth_file(stage, account.username), log_in(serve.url, app.login, account))
    finally:
        stop_group(pgid)
    say("content hash")
    meta = SnapshotMeta(app=app.name, seed=seed, content_hash=app_hash(app, ctx.data),
                        built_at=time.time(), build_seconds=round(time.monotonic() - started, 2))
    shutil.rmtree(stage / "work")
    (stage / META).write_text(json.dumps(meta.__dict__, indent=1), "utf-8")
    snap = layout.snap(app.name)
    if snap.exists():
        shutil.rmtree(snap)
    snap.parent.mkdir(parents=True, exist_ok=True)
    stage.rename(snap)
    return meta
