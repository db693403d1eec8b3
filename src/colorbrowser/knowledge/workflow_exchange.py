"""Workflows as readable YAML, for review, git and sharing.

A workflows file is data someone may send: it is read through the shared capped loader
(size, alias expansion, depth), every workflow is checked as a stored one is (a step
must be a plan step, an address must be on the workflow's own site), and an import is
all or nothing. A file may not name one of your secrets (``{{secret:NAME}}``): a
workflow runs without a model, so it would type the secret wherever its steps say,
into a comment box of the secret's own site too; only a file you wrote yourself may,
when you say so (``with_secrets``). Errors are one line that starts with file:line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from colorbrowser.datafile import compose_yaml_as, one_line, read_text
from colorbrowser.errors import UserError
from colorbrowser.knowledge.exchange import _Dumper, write_atomic
from colorbrowser.knowledge.workflow import SECRET_MARK, Workflow
from colorbrowser.knowledge.workflow_store import InvalidWorkflow, check

FILE_LIMIT = 4 * 1024 * 1024  # a thousand workflows of twenty steps stay far below
# Checked before any workflow is: 4 MB of tiny workflows are 50,000 of them, a minute
# of checking on a busy machine and another to store.
MAX_WORKFLOWS = 5000
KEY = "workflows"


class WorkflowFileError(UserError):
    """A workflows file that cannot be read; the message starts with file:line."""


def workflow_to_dict(flow: Workflow, *, stats: bool = True) -> dict[str, Any]:
    data = flow.model_dump(mode="json", exclude_none=True)
    data["steps"] = [s.model_dump(mode="json", exclude_defaults=True) for s in flow.steps]
    if flow.answer is not None:
        data["answer"] = flow.answer.model_dump(mode="json", exclude_defaults=True)
    if not stats:
        data.pop("stats", None)
    return data


def dump_yaml(flows: Iterable[Workflow], *, stats: bool = True) -> str:
    data = {KEY: [workflow_to_dict(f, stats=stats) for f in flows]}
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=88,
                     default_flow_style=False, indent=2)


def load_yaml(text: str, source: str = "<yaml>", *, with_secrets: bool = False
              ) -> list[Workflow]:
    node, data = compose_yaml_as(text, source, WorkflowFileError)
    if data is None:
        return []
    if not isinstance(data, dict) or set(data) != {KEY} or not isinstance(data[KEY], list):
        raise WorkflowFileError(f"{source}:1: expected a mapping with one key "
                                f"'{KEY}' holding a list of workflows")
    items = next(v for k, v in node.value if k.value == KEY)
    if len(data[KEY]) > MAX_WORKFLOWS:
        raise WorkflowFileError(f"{source}:{items.start_mark.line + 1}: {len(data[KEY]):,} "
                                f"workflows; a workflows file holds at most {MAX_WORKFLOWS:,}")
    flows, seen = [], set()
    for item_node, item in zip(items.value, data[KEY], strict=True):
        where = f"{source}:{item_node.start_mark.line + 1}"
        if not isinstance(item, dict):
            raise WorkflowFileError(f"{where}: each workflow must be a mapping of fields")
        if not item.get("id"):
            raise WorkflowFileError(f"{where}: workflow has no id")
        name = one_line(repr(item["id"]) if not isinstance(item["id"], str) else item["id"], 120)
        if not with_secrets and SECRET_MARK.search(json.dumps(item, default=str)):
            raise WorkflowFileError(f"{where}: workflow {name} names a secret "
                                    "({{secret:NAME}}); a workflows file may not choose what "
                                    "of yours to type (import a file you wrote yourself with "
                                    "--with-secrets)")
        try:
            flow = check(item, f"{where}: workflow {name}")
        except InvalidWorkflow as exc:
            raise WorkflowFileError(str(exc)) from None
        if flow.id in seen:
            raise WorkflowFileError(f"{where}: workflow id {flow.id} appears twice")
        seen.add(flow.id)
        flows.append(flow)
    return flows


def read_workflows_file(path: str | Path, *, with_secrets: bool = False) -> list[Workflow]:
    path = Path(path)
    text = read_text(path, "workflows file", limit=FILE_LIMIT)
    try:
        return load_yaml(text, str(path), with_secrets=with_secrets)
    except (ValueError, OverflowError) as exc:  # a date like 2024-02-30, 5,000 digits
        raise WorkflowFileError(f"{path}: {' '.join(str(exc).split())[:200]}") from None
    except RecursionError:
        raise WorkflowFileError(f"{path}: nested too deeply") from None


def import_file(kb: Any, path: str | Path, on_conflict: str = "error", *,
                with_secrets: bool = False) -> Any:
    """Read the whole file first, then store it in one transaction: all or nothing."""
    return kb.add_workflows(read_workflows_file(path, with_secrets=with_secrets),
                            on_conflict=on_conflict)


def export_file(kb: Any, path: str | Path, site: str | None = None, *,
                include_inactive: bool = True, stats: bool = True) -> int:
    flows = kb.list_workflows(site=site, include_inactive=include_inactive)
    write_atomic(path, dump_yaml(flows, stats=stats))
    return len(flows)
