"""Every arena app refuses a request addressed to a foreign name (DNS rebinding from a
page in any browser on the machine). Trac is checked end to end in test_trac_doors.py;
here the wiki's router runs in real ``php -S`` and the tracker's Rack check in real
Ruby, each in front of a stand-in app, and the apps' server commands are shown to use
them. The Django apps refuse through Django's ALLOWED_HOSTS."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from importlib import resources
from pathlib import Path

import httpx
import pytest

from colorbrowser.arena.apps.base import ServeContext
from colorbrowser.arena.apps.forum import ForumApp
from colorbrowser.arena.apps.shop import ShopApp
from colorbrowser.arena.apps.trac import TracApp
from colorbrowser.arena.apps.tracker import TrackerApp
from colorbrowser.arena.apps.wiki import WikiApp
from colorbrowser.arena.ports import free_port

FOREIGN = ["rebind.evil.example", "rebind.evil.example:{port}", "127.0.0.1:1",
           "127.0.0.1.evil.example:{port}", ""]


def serve_context(tmp_path: Path, port: int) -> ServeContext:
    return ServeContext(data=tmp_path / "data", snapshot=tmp_path, port=port,
                        python=tmp_path / "venv" / "bin" / "python", instance=0)


@pytest.fixture
def wiki_router(tmp_path):
    """The wiki's real server command, serving a stand-in MediaWiki tree."""
    docroot = tmp_path / "mw"
    docroot.mkdir()
    (docroot / "index.php").write_text('<?php echo "wiki page " . ($_SERVER["PATH_INFO"] '
                                       '?? "/"), "\\n";')
    (docroot / "logo.svg").write_text("<svg/>")
    port = free_port()
    command = WikiApp().server(serve_context(tmp_path, port))
    argv = [docroot.as_posix() if a == "/usr/share/mediawiki" else a for a in command.argv]
    # its own process group: php -S forks workers (PHP_CLI_SERVER_WORKERS), all stopped below
    proc = subprocess.Popen(argv, env={**os.environ, **command.env}, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(base, timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.05)
    yield base, port
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.parametrize("host", FOREIGN)
def test_the_wiki_refuses_a_foreign_host_before_mediawiki_or_a_file(wiki_router, host):
    base, port = wiki_router
    for path in ("/index.php/Main_Page", "/", "/logo.svg"):
        reply = httpx.get(base + path, headers={"Host": host.format(port=port)},
                          trust_env=False)
        assert reply.status_code == 403, path
        assert "wiki page" not in reply.text and "svg" not in reply.text


def test_the_wiki_serves_its_own_loopback_names(wiki_router):
    base, port = wiki_router
    for name in ("127.0.0.1", "localhost"):
        page = httpx.get(base + "/index.php/Main_Page", headers={"Host": f"{name}:{port}"},
                         trust_env=False)
        assert page.status_code == 200 and page.text == "wiki page /Main_Page\n"
        assert httpx.get(base + "/logo.svg", headers={"Host": f"{name}:{port}"},
                         trust_env=False).text == "<svg/>"


RACK_PROBE = """
require ENV.fetch("ARENA_HOST_CHECK")
app = ArenaHostCheck.new(->(env) { [200, {}, ["redmine"]] }, ENV.fetch("ARENA_PORT"))
hosts = JSON.parse(ARGV[0])
answers = hosts.map do |host|
  status, _, body = app.call({"HTTP_HOST" => host})
  [status, body.join]
end
puts JSON.generate(answers)
"""


def test_the_tracker_refuses_a_foreign_host_before_redmine(tmp_path):
    command = TrackerApp().server(serve_context(tmp_path, 8308))
    assert command.argv[:3] == ["thin", "-R", str(TrackerApp().resource("config.ru"))]
    rackup = Path(command.argv[2]).read_text()
    assert "use ArenaHostCheck" in rackup and rackup.index("use ArenaHostCheck") < rackup.index(
        "run Rails.application")
    hosts = [h.format(port=8308) for h in FOREIGN] + ["127.0.0.1:8308", "LocalHost:8308"]
    done = subprocess.run(["ruby", "-rjson", "-e", RACK_PROBE, json.dumps(hosts)],
                          env={**os.environ, **command.env}, capture_output=True, text=True,
                          timeout=60, check=True)
    answers = json.loads(done.stdout)
    assert [status for status, _ in answers] == [403] * len(FOREIGN) + [200, 200]
    assert all("redmine" not in body for _, body in answers[:len(FOREIGN)])


def test_trac_runs_behind_the_shared_host_check_without_its_plugin_page(tmp_path):
    app = TracApp()
    command = app.server(serve_context(tmp_path, 8103))
    assert command.argv[1] == str(app.resource("serve_trac.py"))
    assert Path(command.argv[-1]).name == "hostcheck.py" and Path(command.argv[-1]).is_file()
    assert app.payload(0)["config"]["components.trac.admin.web_ui.pluginadminpanel"] == \
        "disabled"


@pytest.mark.parametrize("app", [ShopApp(), ForumApp()])
def test_the_django_apps_answer_only_loopback_names(app):
    """Django itself answers 400 to any other Host; its settings say which are allowed
    (read, not imported: the file runs inside the app's own venv)."""
    source = (resources.files("colorbrowser.arena.apps") / "arena_django.py").read_text()
    assert '"ALLOWED_HOSTS": ["127.0.0.1", "localhost"]' in source
    settings = Path(app.resource(f"{app.name}_settings.py")).read_text()
    assert "ALLOWED_HOSTS" not in settings  # nothing widens the shared list
