"""Readable text forms of tips (YAML and Markdown) for review, git and sharing.

Both forms are exact: export -> import -> export gives the same bytes. Errors name
the file and line of the broken entry, because people edit these files by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from colorbrowser.datafile import compose_yaml_as, read_text
from colorbrowser.errors import UserError
from colorbrowser.knowledge.tip import InvalidTip, Tip, check_tip, describe_validation, format_time

FORMATS = ("yaml", "md")
_LIST_FIELDS = ("url_patterns", "keywords", "tags")


class TipFileError(UserError):
    """A tips file that cannot be read; the message starts with file:line."""


# -- common ----------------------------------------------------------------------
def tip_to_dict(tip: Tip, *, stats: bool = True) -> dict[str, Any]:
    """Field order is fixed so files diff well; empty optional fields are left out."""
    out: dict[str, Any] = {"id": tip.id, "site": tip.site, "kind": tip.kind,
                           "url_patterns": list(tip.url_patterns)}
    if tip.url_template:
        out["url_template"] = tip.url_template
    if tip.keywords:
        out["keywords"] = list(tip.keywords)
    if tip.tags:
        out["tags"] = list(tip.tags)
    out["text"] = tip.text
    out["source"] = tip.source
    if tip.author:
        out["author"] = tip.author
    out["created"] = format_time(tip.created)
    out["updated"] = format_time(tip.updated)
    if stats and not tip.stats.empty:
        out["stats"] = tip.stats.model_dump()
    return out


def tip_from_dict(data: Any, where: str, *, check: bool = True, key_lines: dict | None = None
                  ) -> Tip:
    """Build one tip from a file entry; ``where`` is "file:line" for messages."""
    if not isinstance(data, dict):
        raise TipFileError(f"{where}: each tip must be a mapping of fields")
    if not data.get("id"):
        raise TipFileError(f"{where}: tip has no id")
    data = {str(k): v for k, v in data.items()}
    data.setdefault("source", "import")
    try:
        tip = Tip.model_validate(data)
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else ""
        line = (key_lines or {}).get(field)
        at = re.sub(r":\d+$", f":{line}", where) if line else where
        raise TipFileError(f"{at}: {describe_validation(exc, data.get('id'))}") from None
    if check:
        try:
            check_tip(tip)
        except InvalidTip as exc:
            raise TipFileError(f"{where}: {exc}") from None
    return tip


def detect_format(path: str | Path, fmt: str | None = None) -> str:
    if fmt:
        if fmt not in FORMATS:
            raise UserError(f"unknown format {fmt!r} (use yaml or md)")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix in (".md", ".markdown"):
        return "md"
    if suffix in (".yaml", ".yml", ""):
        return "yaml"
    raise UserError(f"cannot tell the format of {path} from its name (use --format yaml|md)")


def dumps(tips: Iterable[Tip], fmt: str = "yaml", *, stats: bool = True) -> str:
    tips = list(tips)
    return dump_markdown(tips, stats=stats) if fmt == "md" else dump_yaml(tips, stats=stats)


def loads(text: str, fmt: str = "yaml", source: str = "<text>", *, check: bool = True
          ) -> list[Tip]:
    try:
        if fmt == "md":
            return load_markdown(text, source, check=check)
        return load_yaml(text, source, check=check)
    except (ValueError, OverflowError) as exc:  # a date like 2024-02-30, 5,000 digits
        raise TipFileError(f"{source}: {' '.join(str(exc).split())[:200]}") from None
    except RecursionError:
        raise TipFileError(f"{source}: nested too deeply") from None


def read_tips_file(path: str | Path, fmt: str | None = None, *, check: bool = True) -> list[Tip]:
    path = Path(path)
    text = read_text(path, "file")
    return loads(text, detect_format(path, fmt), str(path), check=check)


# -- YAML ------------------------------------------------------------------------
class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Literal blocks keep multi-line tip text readable; plain style elsewhere.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_yaml(tips: Iterable[Tip], *, stats: bool = True) -> str:
    data = [tip_to_dict(t, stats=stats) for t in tips]
    if not data:
        return "[]\n"
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=88,
                     default_flow_style=False, indent=2)


def load_yaml(text: str, source: str = "<yaml>", *, check: bool = True) -> list[Tip]:
    node, data = compose_yaml_as(text, source, TipFileError)
    if data is None:
        return []
    if isinstance(data, dict) and isinstance(data.get("tips"), list):
        # A file that holds tips next to other things (e.g. benchmark cases).
        node = next(v for k, v in node.value if k.value == "tips")
        data = data["tips"]
    if not isinstance(data, list):
        raise TipFileError(f"{source}:1: expected a list of tips (or a mapping with 'tips')")
    tips = []
    for item_node, item in zip(node.value, data, strict=True):
        key_lines = {}
        if isinstance(item_node, yaml.MappingNode):
            key_lines = {k.value: k.start_mark.line + 1 for k, _ in item_node.value}
        where = f"{source}:{item_node.start_mark.line + 1}"
        tips.append(tip_from_dict(item, where, check=check, key_lines=key_lines))
    _no_duplicates(tips, source)
    return tips


def _no_duplicates(tips: list[Tip], source: str) -> None:
    seen: set[str] = set()
    for tip in tips:
        if tip.id in seen:
            raise TipFileError(f"{source}: tip id {tip.id} appears twice")
        seen.add(tip.id)


# -- Markdown --------------------------------------------------------------------
_HEADING = "## "
_ESCAPED = re.compile(r"^(\\*)#")


def dump_markdown(tips: Iterable[Tip], *, stats: bool = True) -> str:
    parts = ["# Tips\n"]
    for tip in tips:
        data = tip_to_dict(tip, stats=stats)
        lines = [f"{_HEADING}{data.pop('id')}", ""]
        text = data.pop("text")
        for key, value in data.items():
            if key in _LIST_FIELDS and key != "url_patterns":
                lines.append(f"- {key}: {', '.join(value)}")
            elif key == "url_patterns":
                lines.append(f"- {key}:")
                lines.extend(f"  - `{p}`" for p in value)
            elif key == "url_template":
                lines.append(f"- {key}: `{value}`")
            elif key == "stats":
                lines.append(f"- stats: {', '.join(f'{k} {v}' for k, v in value.items())}")
            else:
                lines.append(f"- {key}: {value}")
        lines.append("")
        # A text line starting with '#' would read as a heading: escape it (\#).
        lines.extend(_ESCAPED.sub(r"\\\1#", line) for line in text.split("\n"))
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def load_markdown(text: str, source: str = "<markdown>", *, check: bool = True) -> list[Tip]:
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(_HEADING)]
    tips = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        tips.append(_md_entry(lines, start, end, source, check))
    if not starts and any(line.startswith("- ") for line in lines):
        raise TipFileError(f"{source}:1: no '## <tip id>' heading found")
    _no_duplicates(tips, source)
    return tips


def _md_entry(lines: list[str], start: int, end: int, source: str, check: bool) -> Tip:
    data: dict[str, Any] = {"id": lines[start][len(_HEADING):].strip()}
    key_lines: dict[str, int] = {"id": start + 1}
    i = start + 1
    while i < end and not lines[i].strip():
        i += 1
    current_list: str | None = None
    while i < end and lines[i].strip():
        line, lineno = lines[i], i + 1
        if line.startswith("  - ") and current_list:
            data[current_list].append(_unquote(line[4:], f"{source}:{lineno}"))
        elif line.startswith("- ") and ":" in line:
            key, _, value = line[2:].partition(":")
            key, value = key.strip(), value.strip()
            key_lines[key] = lineno
            current_list = None
            if key == "url_patterns":
                data[key] = [] if not value else [_unquote(value, f"{source}:{lineno}")]
                current_list = key
            elif key in _LIST_FIELDS:
                data[key] = [v.strip() for v in value.split(",") if v.strip()]
            elif key == "url_template":
                data[key] = _unquote(value, f"{source}:{lineno}")
            elif key == "stats":
                data[key] = _md_stats(value, f"{source}:{lineno}")
            else:
                data[key] = value
        else:
            raise TipFileError(f"{source}:{lineno}: expected '- field: value' in tip {data['id']}")
        i += 1
    body = [_ESCAPED.sub(lambda m: m.group(1)[1:] + "#", line) if line.startswith("\\") else line
            for line in lines[i:end]]
    while body and not body[-1].strip():
        body.pop()
    data["text"] = "\n".join(body)
    return tip_from_dict(data, f"{source}:{start + 1}", check=check, key_lines=key_lines)


def _unquote(value: str, where: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "`":
        return value[1:-1]
    raise TipFileError(f"{where}: write patterns and templates in backticks, e.g. `{value}`")


def _md_stats(value: str, where: str) -> dict[str, int]:
    out = {}
    for part in filter(None, (p.strip() for p in value.split(","))):
        name, _, number = part.partition(" ")
        if not re.fullmatch(r"[0-9]{1,15}", number.strip()):  # not "²", not 5,000 digits
            raise TipFileError(f"{where}: stats look like 'retrieved 3, successes 1, failures 0'"
                               " (counts of at most 15 digits)")
        out[name] = int(number)
    return out


# -- store <-> file --------------------------------------------------------------
def import_file(kb: Any, path: str | Path, fmt: str | None = None,
                on_conflict: str = "error") -> Any:
    """Read a whole file first, then add it in one transaction: all tips or none."""
    return kb.add_many(read_tips_file(path, fmt), on_conflict=on_conflict)


def export_text(kb: Any, fmt: str = "yaml", site: str | None = None, *, stats: bool = True
                ) -> str:
    return dumps(kb.list(site=site), fmt, stats=stats)


def write_atomic(path: str | Path, text: str) -> None:
    """Write next to the target, then rename: a crash never leaves half a file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
