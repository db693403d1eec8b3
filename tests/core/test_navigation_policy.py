"""The navigation policy: the model's own navigations stay on the web and, with a host
list, on the allowed hosts; addresses that a browser and Python could read differently
are refused rather than guessed."""

from __future__ import annotations

import pytest

from colorbrowser.browser.policy import NavigationPolicy
from colorbrowser.config import BrowserSettings, load_settings
from colorbrowser.errors import ConfigError

OPEN = NavigationPolicy()
SHOP = NavigationPolicy.of(["shop.example", "*.cdn.example", "127.0.0.1"])


@pytest.mark.parametrize("url", [
    "file:///etc/passwd", "FILE:///etc/passwd", " file:///etc/passwd", "file:/etc/passwd",
    "data:text/html,<h1>x</h1>", "javascript:alert(1)", "chrome://settings",
    "view-source:http://shop.example/", "about:config", "blob:http://shop.example/1",
    "filesystem:http://shop.example/temporary/x", "ftp://shop.example/", "ws://shop.example/",
])
def test_the_model_may_open_only_web_pages(url):
    assert OPEN.refuse_target(url) is not None


@pytest.mark.parametrize("url", ["http://anything.example/", "https://x.y/z?q=1#frag",
                                 "about:blank", "ABOUT:BLANK"])
def test_web_pages_and_a_blank_page_are_fine(url):
    assert OPEN.refuse_target(url) is None


@pytest.mark.parametrize(("url", "allowed"), [
    ("http://shop.example/cart", True),
    ("https://SHOP.EXAMPLE:8443/", True),
    ("http://img.cdn.example/a.png", True),
    ("http://cdn.example/", False),  # *.domain covers subdomains only
    ("http://127.0.0.1:8000/", True),
    ("http://evil.example/?leak=1", False),
    ("http://shop.example.evil.example/", False),
    ("http://evilshop.example/", False),
    ("http://localhost/", False),
    ("http://2130706433/", False),  # 127.0.0.1 written as a number: not guessed
])
def test_a_host_list_allows_its_hosts_and_nothing_else(url, allowed):
    assert (SHOP.refuse_target(url) is None) is allowed


@pytest.mark.parametrize("url", [
    "http://evil.example\\@shop.example/",  # a browser reads the backslash as a slash
    "http://user:pw@shop.example/",
    "http://%73hop.example/",
    "http://shop.example:99999/",
    "http://shop.example/\tx",
])
def test_ambiguous_addresses_are_refused_under_a_host_list(url):
    assert SHOP.refuse_target(url) is not None


def test_a_person_may_start_on_a_trusted_local_page_the_model_may_not_open():
    policy = NavigationPolicy.of(trusted_pages=["file:///home/me/report.html"])
    assert policy.refuse_start("file:///home/me/report.html") is None
    assert policy.refuse_page("file:///home/me/report.html#part2") is None
    assert policy.refuse_target("file:///home/me/report.html") is not None
    assert policy.refuse_page("file:///home/me/.ssh/id_rsa") is not None
    assert policy.refuse_start("file:///etc/passwd") is not None


def test_pages_of_the_browser_itself_may_be_looked_at():
    for url in ("about:blank", "about:srcdoc", "chrome-error://chromewebdata/"):
        assert SHOP.refuse_page(url) is None
    assert SHOP.refuse_page("blob:http://shop.example/123") is None
    assert SHOP.refuse_page("blob:http://evil.example/123") is not None


def test_watchdogs_reload_only_what_the_agent_may_see():
    assert SHOP.reloadable("http://shop.example/")
    assert not SHOP.reloadable("http://evil.example/")
    assert not OPEN.reloadable("file:///etc/passwd")
    assert not OPEN.reloadable("about:blank")
    assert not OPEN.reloadable("chrome-error://chromewebdata/")
    assert NavigationPolicy.of(trusted_pages=["file:///r.html"]).reloadable("file:///r.html")


def test_chromium_resolves_only_the_allowed_hosts():
    arg, webrtc = SHOP.launch_args()
    assert webrtc == "--webrtc-ip-handling-policy=disable_non_proxied_udp"
    assert arg.startswith("--host-resolver-rules=MAP * ~NOTFOUND")
    assert "EXCLUDE shop.example" in arg and "EXCLUDE *.cdn.example" in arg
    assert OPEN.launch_args() == []


def test_allowed_hosts_come_from_a_comma_list_in_the_environment(tmp_path):
    settings = load_settings(None, {("browser", "allow_hosts"): "Shop.Example, *.cdn.example"},
                             environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.browser.allow_hosts == ["shop.example", "*.cdn.example"]


@pytest.mark.parametrize(("entry", "message"), [
    ("http://shop.example/", "not a URL"),
    ("shop.example:99999", "port must be a number"),
    ("shop.example:", "port must be a number"),
    ("127.0.0.1:http", "port must be a number"),
    ("[::1]x", "not a host name"),
    ("*.cdn.example:8443", "covers every port"),
    ("shop..example", "not a host name"),
    ("", "empty host"),
])
def test_a_bad_allowed_host_is_named_in_one_line(entry, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(None, {("browser", "allow_hosts"): [entry]},
                      environ={"XDG_CONFIG_HOME": "/nonexistent"})
    with pytest.raises(ValueError):
        BrowserSettings(allow_hosts=[entry])


PORTED = NavigationPolicy.of(["127.0.0.1:8103", "[::1]:8103", "shop.example"])


@pytest.mark.parametrize(("url", "allowed"), [
    ("http://127.0.0.1:8103/ticket/1", True),
    ("http://127.0.0.1:8104/", False),  # another arena instance
    ("http://127.0.0.1/", False),  # port 80 is another port too
    ("http://127.0.0.1:9222/json", False),  # a debugging port
    ("http://[::1]:8103/", True),
    ("http://[::1]:8000/", False),
    ("http://shop.example:8080/", True),  # an entry without a port covers every port
])
def test_an_entry_with_a_port_allows_that_port_only(url, allowed):
    assert (PORTED.refuse_target(url) is None) is allowed


def test_a_refusal_names_the_port_that_was_refused():
    assert "127.0.0.1:8104 is not an allowed host" in PORTED.refuse_target(
        "http://127.0.0.1:8104/")


def test_allowed_hosts_may_carry_a_port(tmp_path):
    settings = load_settings(None, {("browser", "allow_hosts"): "127.0.0.1:8103, [::1]:80, "
                                    "Shop.Example:08443, ::1"},
                             environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.browser.allow_hosts == ["127.0.0.1:8103", "[::1]:80", "shop.example:8443",
                                            "::1"]


def test_chromium_resolves_an_entry_with_a_port_at_that_port_only():
    arg, _ = PORTED.launch_args()
    rules = arg.removeprefix("--host-resolver-rules=").split(" , ")
    assert rules == ["MAP 127.0.0.1:8103 127.0.0.1:8103", "MAP [::1]:8103 [::1]:8103",
                     "MAP * ~NOTFOUND", "EXCLUDE shop.example"]
