"""Helpers for the test suite and benchmarks; the server itself is colorbrowser.static_server."""

from colorbrowser.static_server import Route, hang, send_html, serve_directory

__all__ = ["Route", "act", "bid_in", "hang", "prompt_text", "send_html", "serve_directory"]


def prompt_text(messages) -> str:
    """The last user prompt an agent sent: what a scripted reply may look at."""
    return messages[-1].content


def bid_in(messages, role: str, name: str) -> str:
    """Find an element's id in a prompt, the way a model would."""
    import re

    m = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", prompt_text(messages))
    if not m:
        raise AssertionError(f"{role} {name!r} not in the prompt")
    return m.group(1)


def act(thought: str, action: str) -> str:
    """A well-formed Operator reply, for scripted models."""
    return f"<think>{thought}</think>\n<action>{action}</action>"
