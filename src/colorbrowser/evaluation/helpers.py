"""``func:`` helpers that WebArena task files name in program_html ``url``/``locator``.

The call is parsed (ast, literal arguments only) and never evaluated. We carry our
own versions of the helpers that need nothing but the agent's page; the ones that
query a site's back-end API with admin credentials (Magento's REST API) are
reported as unsupported, so such a task is never silently passed or failed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:
    from playwright.sync_api import Page

PREFIX = "func:"
PAGE_ARG = "__page__"  # stands for the page being checked
LAST_URL = "__last_url__"  # replaced by the agent's last URL before the call


class PageArg:
    """Marker for the ``__page__`` argument."""


@dataclass
class HelperCall:
    name: str
    args: list[str | PageArg] = field(default_factory=list)

    @property
    def label(self) -> str:
        return PREFIX + self.name


def parse_helper(expr: str) -> HelperCall:
    """``func:name('a', __page__)`` -> HelperCall. Raises ValueError for anything else."""
    if not expr.startswith(PREFIX):
        raise ValueError(f"not a helper call: {expr!r}")
    try:
        node = ast.parse(expr[len(PREFIX) :].strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"unreadable helper call {expr!r}") from exc
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.keywords:
        raise ValueError(f"unreadable helper call {expr!r}")
    args: list[str | PageArg] = []
    for arg in node.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            args.append(arg.value)
        elif isinstance(arg, ast.Name) and arg.id == PAGE_ARG:
            args.append(PageArg())
        else:
            raise ValueError(f"helper arguments must be strings or {PAGE_ARG}: {expr!r}")
    return HelperCall(node.func.id, args)


def reddit_post_url(url: str) -> str:
    """Cut a Postmill comment/post URL back to its post: ``/f/<forum>/<id>/``."""
    parsed = urlparse(url)
    parts = parsed.path.split("/")
    if len(parts) < 4 or parts[1] != "f":
        return url
    return f"{parsed.scheme}://{parsed.netloc}/f/{parts[2]}/{parts[3]}/"


# On a GitLab project's members page: the role shown in the row of @account.
_GITLAB_ROLE_JS = """(account) => {
  const names = [...document.querySelectorAll(
      "td[data-label='Account'] span.gl-avatar-labeled-sublabel")];
  const row = names.findIndex((el) => el.outerText === '@' + account);
  const roles = document.querySelectorAll('td.col-max-role span');
  return row >= 0 && row < roles.length ? roles[row].outerText : '';
}"""


def gitlab_member_role(page: Page, account: str) -> str:
    try:
        return str(page.evaluate(_GITLAB_ROLE_JS, account) or "")
    except Exception:  # a wrong page reads as empty, as the reference does
        return ""


# name -> (where it may appear, the argument shape it takes)
_SUPPORTED: dict[str, tuple[str, tuple[type, ...]]] = {
    "reddit_get_post_url": ("url", (str,)),
    "gitlab_get_project_memeber_role": ("locator", (PageArg, str)),  # sic: WebArena's spelling
}


def unsupported_reason(expr: str, *, where: str) -> str | None:
    """Why ``expr`` (a program_html url or locator) cannot run here; None when it can."""
    if not expr.startswith(PREFIX):
        return None
    try:
        call = parse_helper(expr)
    except ValueError as exc:
        return str(exc)
    known = _SUPPORTED.get(call.name)
    if known is None or known[0] != where:
        return f"needs {call.label}"
    if len(call.args) != len(known[1]) or not all(
            isinstance(a, t) for a, t in zip(call.args, known[1], strict=True)):
        return f"{call.label} takes other arguments: {expr!r}"
    return None


def resolve_url(expr: str, last_url: str) -> str:
    """The URL a program_html check opens (``last`` is the caller's business)."""
    if not expr.startswith(PREFIX):
        return expr
    reason = unsupported_reason(expr, where="url")
    if reason:
        raise ValueError(reason)
    arg = parse_helper(expr).args[0]
    assert isinstance(arg, str)
    return reddit_post_url(arg.replace(LAST_URL, last_url))


def run_locator(expr: str, page: Page) -> str:
    reason = unsupported_reason(expr, where="locator")
    if reason:
        raise ValueError(reason)
    account = parse_helper(expr).args[1]
    assert isinstance(account, str)
    return gitlab_member_role(page, account)
