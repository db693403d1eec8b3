"""The explorer's default host list is the start URL's host AND port: another port of
127.0.0.1 is another service (another arena instance, a copilot panel, a model server),
so a page's link or image there is never requested."""

from __future__ import annotations

import pytest

from colorbrowser.explore.cli import allowed_hosts
from colorbrowser.testing import run_cli

from .site import sites_linking_out


@pytest.fixture
def linked_sites():
    """The site, and a second server on 127.0.0.1 itself, at another port, it links to."""
    with sites_linking_out("127.0.0.1") as pair:
        yield pair


@pytest.fixture
def same_host_site(linked_sites):
    return linked_sites[0]


@pytest.fixture
def other_port(linked_sites):
    return linked_sites[1]


def test_the_default_list_is_the_start_host_at_its_port():
    assert allowed_hosts(None, "http://127.0.0.1:8103/ticket/1") == ["127.0.0.1:8103"]
    assert allowed_hosts("cdn.example", "https://shop.example/") == [
        "shop.example:80", "shop.example:443", "cdn.example"]


def test_exploring_never_reaches_another_port_of_the_same_host(capsys, same_host_site,
                                                               other_port, tmp_path):
    start = f"http://127.0.0.1:{same_host_site.port}/"
    code = run_cli("explore", start, "--budget", "10", "--out", str(tmp_path / "r"),
                   "--no-tasks", "--screenshots", "none")
    assert code == 0, capsys.readouterr().err
    assert same_host_site.requests  # the start site itself was explored
    assert other_port.requests == []  # neither the partner link nor its image


def test_naming_the_other_port_lets_its_image_load(capsys, same_host_site, other_port,
                                                   tmp_path):
    start = f"http://127.0.0.1:{same_host_site.port}/"
    code = run_cli("explore", start, "--budget", "2", "--out", str(tmp_path / "r"),
                   "--no-tasks", "--screenshots", "none",
                   "--allow", f"127.0.0.1:{other_port.port}")
    assert code == 0, capsys.readouterr().err
    assert ("GET", "/pixel.png") in other_port.requests
