"""The arena's Trac keeps its doors shut: a request addressed to a foreign name (DNS
rebinding from a page in any browser on the machine) is refused, and even the admin,
whose password is public in the source, finds no page that installs a plugin."""

from __future__ import annotations

import httpx
import pytest

from .test_trac_arena import client_as

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("host", ["rebind.evil.example", "rebind.evil.example:{port}",
                                  "127.0.0.1:1", "127.0.0.1.evil.example:{port}"])
def test_trac_refuses_a_request_for_a_foreign_host(trac, host):
    port = trac.port("trac")
    for path in ("/", "/login", "/ticket/1", "/admin"):
        reply = httpx.get(f"http://127.0.0.1:{port}{path}", trust_env=False,
                          headers={"Host": host.format(port=port)})
        assert reply.status_code == 403, path
        assert "Harbor" not in reply.text
    posted = httpx.post(f"http://127.0.0.1:{port}/login", trust_env=False,
                        headers={"Host": host.format(port=port)},
                        data={"username": "admin", "password": "admin.Arena24"})
    assert posted.status_code == 403 and "trac_auth" not in posted.cookies


def test_trac_answers_its_own_loopback_names(trac):
    port = trac.port("trac")
    for name in ("127.0.0.1", "localhost"):
        reply = httpx.get(f"http://127.0.0.1:{port}/ticket/1", trust_env=False,
                          headers={"Host": f"{name}:{port}"})
        assert reply.status_code == 200 and "Harbor" in reply.text


def test_the_admin_has_no_plugin_install_page(trac):
    with client_as(trac, "admin") as admin:
        panels = admin.get("/admin")
        assert panels.status_code == 200 and "/admin/general/basics" in panels.text
        assert "/admin/general/plugin" not in panels.text
        page = admin.get("/admin/general/plugin")
        assert page.status_code == 404
        assert "Install Plugin" not in page.text and 'name="plugin_file"' not in page.text
