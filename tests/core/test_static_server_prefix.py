"""The local site server: loopback only, files only under its secret prefix."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from colorbrowser.static_server import StaticServer


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def test_serves_files_under_the_token_prefix_only(tmp_path):
    (tmp_path / "a.html").write_text("<p>hello</p>")
    with StaticServer(tmp_path) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert fetch(f"{server.url}/a.html") == (200, b"<p>hello</p>")
        base = server.url.rsplit("/", 1)[0]
        assert fetch(f"{base}/a.html")[0] == 404
        assert fetch(f"{base}/wrong-token/a.html")[0] == 404


def test_paths_cannot_climb_out_of_the_folder(tmp_path):
    (tmp_path / "secret.txt").write_text("secret")
    root = tmp_path / "pub"
    root.mkdir()
    with StaticServer(root) as server:
        status, body = fetch(f"{server.url}/../secret.txt")
        assert status == 404 and b"secret" not in body


def test_each_server_has_its_own_port_and_token(tmp_path):
    with StaticServer(tmp_path) as one, StaticServer(tmp_path) as two:
        assert one.port != two.port and one.token != two.token


def test_stop_frees_the_server_and_is_safe_twice(tmp_path):
    server = StaticServer(tmp_path).start()
    url = server.url
    server.stop()
    server.stop()
    assert not server.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/", timeout=2)


def test_missing_folder_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError):
        StaticServer(tmp_path / "nope")


def _hung_up(req):
    raise BrokenPipeError(32, "Broken pipe")  # what writing to a closed socket raises


def _broken(req):
    raise RuntimeError("the page handler broke")


def test_a_client_that_hangs_up_is_no_error_and_a_failing_request_is_one_line(tmp_path, capfd):
    with StaticServer(tmp_path, routes={"/gone": _hung_up, "/broken": _broken}) as server:
        for path in ("/gone", "/broken"):
            with pytest.raises((urllib.error.URLError, ConnectionError)):
                urllib.request.urlopen(f"{server.url}{path}", timeout=5).read()
        (tmp_path / "a.html").write_text("ok")  # and it still serves
        assert fetch(f"{server.url}/a.html") == (200, b"ok")
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Broken pipe" not in err
    assert err.strip().splitlines() == [
        "local site server: a request failed: RuntimeError: the page handler broke"]
