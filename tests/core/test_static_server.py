"""The local site server binds to loopback and, with a token, refuses requests without it."""

import httpx

from colorbrowser.static_server import serve_directory


def test_serves_files_on_loopback(tmp_path):
    (tmp_path / "a.html").write_text("hello")
    with serve_directory(tmp_path) as url:
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{url}/a.html").text == "hello"


def test_token_is_required_as_cookie_or_query(tmp_path):
    (tmp_path / "a.html").write_text("hello")
    with serve_directory(tmp_path, token="t0k") as url:
        assert httpx.get(f"{url}/a.html").status_code == 403
        assert httpx.get(f"{url}/a.html", cookies={"cb_token": "bad"}).status_code == 403
        assert httpx.get(f"{url}/a.html", cookies={"cb_token": "t0k"}).text == "hello"
        assert httpx.get(f"{url}/a.html?cb_token=t0k").text == "hello"
