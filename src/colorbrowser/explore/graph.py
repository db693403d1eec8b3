"""SCALE-Hop's graph: nodes are kinds of state, edges are actions with their observed
outcomes, and the frontier is ordered by how under-explored a node is (not first in,
first out). A node is fully explored when each of its candidates was tried or judged
predictable."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from colorbrowser.explore.plans import PlanStep


@dataclass
class Node:
    key: str
    template: str
    url: str  # an address that showed this state
    title: str = ""
    h1: str = ""
    path: list[PlanStep] = field(default_factory=list)  # from the start page
    first_step: int = 0
    visits: int = 0
    candidates: int = 0
    open: list[str] = field(default_factory=list)  # signatures not yet tried or judged
    tried: list[str] = field(default_factory=list)
    predictable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # writes, with no reset to undo them
    best: float = 0.0  # the best Selector score seen on the last visit
    url_reproduces: bool | None = None
    after_write: bool = False  # reached through a write: its data needs that write
    screenshot: str | None = None
    pairs: list[dict[str, str]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)

    @property
    def explored(self) -> bool:
        return self.visits > 0 and not self.open

    @property
    def under_explored(self) -> float:
        """Share of its candidates still open, weighted by how promising they were."""
        if not self.candidates:
            return 0.0
        return len(self.open) / self.candidates * max(self.best, 0.01)


@dataclass
class Edge:
    step: int
    source: str
    dest: str
    action: str
    plan: PlanStep
    kind: str
    signature: str
    writes: bool = False
    prediction: dict[str, Any] = field(default_factory=dict)
    outcome: dict[str, Any] = field(default_factory=dict)
    verdict: dict[str, Any] = field(default_factory=dict)
    source_url: str = ""  # the address the action was taken on
    after_write: bool = False  # taken while a write that changed data was in effect


@dataclass
class Finding:
    step: int
    node: str
    url: str
    kind: str  # mismatch, unpredicted, error, write
    text: str
    action: str
    screenshot: str | None = None


@dataclass
class Graph:
    start_url: str = ""
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    templates: dict[str, int] = field(default_factory=dict)  # template -> visits
    # what each address showed the first time it was reached without a write in effect
    # (heading, title, label/value pairs, tables): page questions are asked about these
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)

    def node(self, key: str) -> Node | None:
        return self.nodes.get(key)

    def add_node(self, node: Node) -> Node:
        self.nodes[node.key] = node
        self.templates.setdefault(node.template, 0)
        return node

    def frontier(self, exclude: str | None = None) -> list[Node]:
        """Nodes with open candidates, the most under-explored first; shallower and
        older nodes break ties, since they are cheaper to return to."""
        open_nodes = [n for n in self.nodes.values() if n.open and n.key != exclude]
        return sorted(open_nodes, key=lambda n: (-n.under_explored, len(n.path), n.first_step))

    def to_check(self, exclude: str | None = None) -> list[Node]:
        """Nodes with predictions never tested, the cheapest to return to first."""
        waiting = [n for n in self.nodes.values() if n.predictable and n.key != exclude]
        return sorted(waiting, key=lambda n: (len(n.path), n.first_step))

    def to_json(self) -> dict[str, Any]:
        # vars, not asdict: no field holds a dataclass, and asdict's deep copy of every
        # node and edge after every action was most of the cost of saving. The dicts are
        # the objects' own: for writing out, not for changing
        return {"start_url": self.start_url,
                "nodes": [vars(n) for n in self.nodes.values()],
                "edges": [vars(e) for e in self.edges],
                "findings": [vars(f) for f in self.findings],
                "templates": self.templates, "pages": self.pages}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Graph:
        graph = cls(start_url=data.get("start_url", ""), templates=dict(data.get("templates", {})),
                    pages=dict(data.get("pages", {})))
        for raw in data.get("nodes", []):
            graph.nodes[raw["key"]] = Node(**raw)
        graph.edges = [Edge(**e) for e in data.get("edges", [])]
        graph.findings = [Finding(**f) for f in data.get("findings", [])]
        return graph
