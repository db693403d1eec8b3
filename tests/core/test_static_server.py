"""serve_directory: behaviour routes (hang, errors) beside files, under the token prefix."""

import httpx
import pytest

from colorbrowser.static_server import send_html, serve_directory


def test_routes_answer_beside_files(tmp_path):
    (tmp_path / "a.html").write_text("hello")
    routes = {"/boom": lambda req: send_html(req, "<h1>broken</h1>", 500)}
    with serve_directory(tmp_path, routes) as url:
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{url}/a.html").text == "hello"
        r = httpx.get(f"{url}/boom?x=1")
        assert r.status_code == 500 and "broken" in r.text


@pytest.mark.parametrize("token", [None, "fixed"])
def test_urls_without_the_prefix_are_not_served(tmp_path, token):
    (tmp_path / "a.html").write_text("hello")
    with serve_directory(tmp_path, token=token) as url:
        root = url.rsplit("/", 1)[0]
        assert httpx.get(f"{root}/a.html").status_code == 404
        assert httpx.get(f"{url}/a.html").status_code == 200
