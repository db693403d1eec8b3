"""The package is layered: each room imports only from the rooms below it, and no
module imports itself back through others. Every import counts, at module level,
inside functions and under TYPE_CHECKING alike.

    core (types, steps, gate, protocols, config, errors, actions, ...)
      < plan (the plan format: workflows, oracle proofs, the scripted person)
      < llm, browser, knowledge          (side by side: none imports another)
      < agent < hitl, workflows < run < api < evaluation < ui
      < arena, copilot, explore, demo, doctor
      < mcp (the MCP server drives the agent, the tips and the arena)
      < every cli.py module (commands are the glue at the top), and testing.py
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "src" / "colorbrowser"
LAYERS = [
    {"core"},
    {"plan"},
    {"llm", "browser", "knowledge"},
    {"agent"},
    {"hitl", "workflows"},
    {"run"},
    {"api"},
    {"evaluation"},
    {"ui"},
    {"arena", "copilot", "explore", "demo", "doctor"},
    {"mcp"},
    {"cli"},
]
CORE = {"__init__", "types", "steps", "gate", "protocols", "config", "errors", "actions",
        "evidence", "static_server", "safe_text", "utf8", "linear_regex", "datafile",
        "hostcheck", "destination"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "core"
    if parts[-1] in ("cli", "__main__") or parts == ["testing"]:
        return "cli"
    head = parts[0]
    return "core" if head in CORE else head


def layer(module: str) -> int:
    name = room(module)
    for level, rooms in enumerate(LAYERS):
        if name in rooms:
            return level
    raise AssertionError(f"{module} is in no layer: add its room to LAYERS")


def imports(path: Path) -> set[str]:
    """Every colorbrowser module named by an import in the file, wherever it stands."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("colorbrowser")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            if not base.startswith("colorbrowser"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _exists(candidate) else base)
    return {m for m in found if _exists(m)}


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:]) if "." in module else Path()
    return (ROOT / rel).with_suffix(".py").is_file() or (ROOT / rel / "__init__.py").is_file()


GRAPH = {module_name(p): imports(p) for p in ROOT.rglob("*.py")}


def test_every_module_belongs_to_a_layer():
    for module in GRAPH:
        layer(module)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_no_import_runs_back_up_the_layers(module):
    here, mine = layer(module), room(module)
    for target in GRAPH[module]:
        there = room(target)
        if there == mine or layer(target) < here:
            continue
        raise AssertionError(f"{module} ({mine}) imports {target} ({there}), "
                             "which is not below it")


def test_there_is_no_import_circle():
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH.get(module, ())):
            if target == module or _is_package_of(target, module):
                continue
            if state.get(target) == 1:
                circle = [*path[path.index(target):], target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)


def _is_package_of(package: str, module: str) -> bool:
    """``from colorbrowser.x import y`` runs x/__init__.py: that is not a circle of y's."""
    return module.startswith(package + ".")


def test_the_rules_the_issue_names_hold():
    for module, targets in GRAPH.items():
        rooms = {room(t) for t in targets}
        if room(module) in {"knowledge", "llm", "browser"}:
            assert rooms <= {"core", "plan", room(module)}, (module, rooms)
        if room(module) == "agent":
            assert not rooms & {"hitl", "evaluation", "ui", "run"}, (module, rooms)
