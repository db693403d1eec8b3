"""Helpers for the test suite and benchmarks; the server itself is colorbrowser.static_server."""

from colorbrowser.static_server import Route, hang, send_html, serve_directory

__all__ = ["Route", "hang", "send_html", "serve_directory"]
