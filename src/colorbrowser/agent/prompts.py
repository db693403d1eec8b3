"""Prompt templates live in files next to this module; this renders them.

Templates are Jinja2 with StrictUndefined so a missing variable fails loudly in
tests instead of silently producing a prompt with a hole in it.
"""

from __future__ import annotations

import secrets
from functools import cache
from pathlib import Path

import jinja2

TEMPLATE_DIR = Path(__file__).parent / "templates"


@cache
def _env(extra_dir: str | None = None) -> jinja2.Environment:
    dirs = [extra_dir] if extra_dir else []
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([*dirs, str(TEMPLATE_DIR)]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(name: str, /, template_dir: Path | None = None, **context: object) -> str:
    """Render ``name`` (e.g. ``operator_user.j2``); a user folder may override any template."""
    env = _env(str(template_dir) if template_dir else None)
    return env.get_template(name).render(**context).strip() + "\n"


def page_fence() -> tuple[str, str]:
    """Markers around untrusted page text. A random tag means a page cannot forge the end."""
    tag = secrets.token_hex(4)
    return f"<<<PAGE CONTENT {tag}>>>", f"<<<END PAGE CONTENT {tag}>>>"
