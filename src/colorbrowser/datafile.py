"""Reading files that may come from someone else: task, plan, replay, tip and config files.

Every such file is read and parsed here, with limits, so that no file can eat the
machine while it loads:

- a size cap, checked before the file is read;
- YAML aliases may add at most ``ALIAS_NODES`` nodes beyond the file's own (a 615-byte
  file of nested aliases otherwise expands to billions), and may not refer to themselves;
- nesting deeper than ``MAX_DEPTH`` is refused in YAML, JSON and TOML alike (the
  parsers and whatever walks the data next would otherwise die on Python's recursion
  limit);
- a YAML mapping may not name a key twice (the parser would keep the last silently).

Errors are ``DataFileError`` (a ``UserError``): one line, with any quoted input
shortened, and the line and column where the parser knows them.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import yaml

from colorbrowser.errors import UserError

# libyaml's parser when PyYAML has it (several times faster on a big task file), else
# PyYAML's own: the same nodes either way, and the checks below run on those.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_BYTES = 16 * 1024 * 1024  # task files of thousands of tasks stay far below
CONFIG_BYTES = 1024 * 1024  # settings files are a few lines
ALIAS_NODES = 10_000
MAX_DEPTH = 100
QUOTE_LIMIT = 160


class DataFileError(UserError):
    """A file that cannot be loaded; ``problem`` without the file name, for callers
    that say where in their own words (``tips.yaml:3: invalid YAML: ...``)."""

    def __init__(self, source: str, kind: str, problem: str, line: int | None = None,
                 column: int | None = None):
        self.source, self.kind, self.problem = source, kind, one_line(problem)
        self.line, self.column = line, column
        where = (f" (line {line}, column {column})" if line and column
                 else f" (line {line})" if line else "")
        super().__init__(f"{source}: {kind}{self.problem}{where}")


def one_line(text: object, limit: int = QUOTE_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters: error messages may quote input."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# -- reading -----------------------------------------------------------------------
def read_text(path: Path | str, what: str, *, limit: int = MAX_BYTES) -> str:
    """The file as text, or a one-line error: missing, a folder, too big, not UTF-8."""
    path = Path(path)
    try:
        if not path.is_file():
            raise UserError(f"no such {what}: {path}" if not path.exists()
                            else f"{what} {path} is not a file")
        size = path.stat().st_size
        if size > limit:
            raise UserError(f"{what} {path} is too big ({size:,} bytes; the limit is "
                            f"{limit:,})")
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)  # a file that grew since stat() is still capped
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise UserError(f"{what} {path} is too big (the limit is {limit:,} bytes)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"cannot read {what} {path}: not UTF-8 text (byte {exc.start})"
                        ) from None


# -- YAML ------------------------------------------------------------------------
def parse_yaml(text: str | bytes, source: str) -> Any:
    """The data of one YAML document (None when empty), within the limits above."""
    return compose_yaml(text, source)[1]


def compose_yaml(text: str | bytes, source: str) -> tuple[yaml.Node | None, Any]:
    """The node tree (for line numbers) and the data of one YAML document."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _check_yaml_graph(node, source)
        return node, loader.construct_document(node)
    except (ValueError, OverflowError) as exc:  # a date like 2024-02-30, 5,000 digits
        raise DataFileError(source, "not valid YAML: ", str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context_mark", None)
        if context is not None and mark is not None and context.line != mark.line:
            problem += f" ({getattr(exc, 'context', None) or 'started'} at line " \
                       f"{context.line + 1})"
        raise DataFileError(source, "not valid YAML: ", problem,
                            mark.line + 1 if mark else None,
                            mark.column + 1 if mark else None) from None
    except RecursionError:
        raise _too_deep(source, "YAML") from None
    finally:
        loader.dispose()


def compose_yaml_as(text: str | bytes, source: str, error: type[UserError]
                    ) -> tuple[yaml.Node | None, Any]:
    """``compose_yaml`` for a file people edit by hand (tips, workflows): a failure is
    ``error`` saying ``source:line: invalid YAML: ...``, so it points at the line."""
    try:
        return compose_yaml(text, source)
    except DataFileError as exc:
        line = f":{exc.line}" if exc.line else ""
        raise error(f"{source}{line}: invalid YAML: {exc.problem}") from None


def _check_yaml_graph(root: yaml.Node, source: str) -> None:
    """Refuse aliases that loop or multiply the document, and deep nesting.

    Aliases make the node tree a graph: its size and depth if every alias were a copy
    are what anything walking the loaded data pays, so they are measured here, visiting
    each node once. A document without aliases (the common case) is a tree, checked in
    one cheaper pass."""
    if _tree_checked(root, source):
        return
    size: dict[int, int] = {}  # node -> its size with aliases expanded
    height: dict[int, int] = {}  # node -> its depth with aliases expanded
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        kids = _children(node)
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            if height[key] > MAX_DEPTH:
                raise _too_deep(source, "YAML", node.start_mark.line + 1)
            continue
        if key in size:
            continue
        if key in on_path:
            raise DataFileError(source, "refused YAML: ", "an alias refers to a node that "
                                "holds it", node.start_mark.line + 1)
        on_path.add(key)
        _no_duplicate_keys(node, source)
        stack.append((node, True))
        stack.extend((k, False) for k in kids if id(k) not in size)
    if size[id(root)] > len(size) + ALIAS_NODES:
        raise DataFileError(source, "refused YAML: ", f"its aliases expand it to "
                            f"{size[id(root)]:,} nodes from {len(size):,} (at most "
                            f"{ALIAS_NODES:,} more are allowed)")


def _tree_checked(root: yaml.Node, source: str) -> bool:
    """Depth and keys checked when no node is reached twice (no alias); False as soon as
    one is, for the full measure."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(source, "YAML", node.start_mark.line + 1)
        if id(node) in seen:
            return False
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((kid, depth + 1) for kid in node.value)
        elif isinstance(node, yaml.MappingNode):
            _no_duplicate_keys(node, source)
            stack.extend((kid, depth + 1) for pair in node.value for kid in pair)
    return True


def _no_duplicate_keys(node: yaml.Node, source: str) -> None:
    """A mapping names each key once: YAML keeps the last of two, so a reviewer would
    read the first ``steps:`` and the program run the second."""
    if not isinstance(node, yaml.MappingNode):
        return
    seen: set[tuple[str, str]] = set()
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        if (key.tag, key.value) in seen:
            raise DataFileError(source, "refused YAML: ", f"the key {key.value!r} appears "
                                "twice in one mapping", key.start_mark.line + 1,
                                key.start_mark.column + 1)
        seen.add((key.tag, key.value))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


# -- JSON and TOML -------------------------------------------------------------------
def parse_json(text: str | bytes, source: str) -> Any:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(source, "not valid JSON: ", exc.msg, exc.lineno, exc.colno
                            ) from None
    except RecursionError:
        raise _too_deep(source, "JSON") from None
    except ValueError as exc:  # not UTF-8, an integer of 5,000 digits
        raise DataFileError(source, "not valid JSON: ", str(exc)) from None
    check_depth(data, source, "JSON")
    return data


def parse_toml(text: str, source: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataFileError(source, "not valid TOML: ", str(exc)) from None
    except RecursionError:
        raise _too_deep(source, "TOML") from None
    except ValueError as exc:  # an integer of 5,000 digits
        raise DataFileError(source, "not valid TOML: ", str(exc)) from None
    check_depth(data, source, "TOML")
    return data


def check_depth(data: Any, source: str, kind: str) -> None:
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(source, kind)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _too_deep(source: str, kind: str, line: int | None = None) -> DataFileError:
    return DataFileError(source, f"refused {kind}: ", f"nested deeper than {MAX_DEPTH} levels",
                         line)


# -- both at once ------------------------------------------------------------------
# ``what`` names the file in messages ("task file"); ``source`` starts a parse error,
# the path by default.
def load_yaml(path: Path | str, what: str, *, limit: int = MAX_BYTES,
              source: str | None = None) -> Any:
    return parse_yaml(read_text(path, what, limit=limit), source or str(path))


def load_json(path: Path | str, what: str, *, limit: int = MAX_BYTES,
              source: str | None = None) -> Any:
    return parse_json(read_text(path, what, limit=limit), source or str(path))


def load_toml(path: Path | str, what: str, *, limit: int = CONFIG_BYTES,
              source: str | None = None) -> dict[str, Any]:
    return parse_toml(read_text(path, what, limit=limit), source or str(path))
