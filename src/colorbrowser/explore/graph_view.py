"""What graph.html draws: the exploration graph folded so a person sees the site's
shape. States become boxes; a big graph gets one box per URL template (its states
merged) and a parent's many dead-end children one box ("collapsed leaves"). Actions
between the same two boxes become one line; actions that stayed on their state are
counted on the box, not drawn, unless one of them was a finding."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from colorbrowser.explore.graph import Edge, Finding, Graph, Node

MERGE_OVER = 40  # more states than this: one box per URL template
PATHS_OVER = 40  # more templates than this: one box per template's path (query left out)
COLLAPSE_OVER = 24  # more boxes than this: a parent's dead-end children fold into one
MIN_LEAVES = 3  # fewer dead-end children than this are drawn one by one


@dataclass
class Box:
    """A drawn node: one state, every state of a template, or a parent's leaves."""

    id: str
    kind: str  # state | template | leaves
    members: list[Node]
    start: bool = False
    stays: int = 0  # actions that stayed on one of its states

    @property
    def first(self) -> Node:
        return self.members[0]

    @property
    def template(self) -> str:
        """Its states' template; ``path?…`` when they differ in the query."""
        templates = {n.template for n in self.members}
        if len(templates) == 1 or self.kind == "leaves":
            return short_template(self.first.template)
        return short_template(self.first.template.split("?", 1)[0]) + "?…"

    @property
    def open(self) -> int:
        """Candidates not yet tried or judged on its states: the unexplored frontier."""
        return sum(len(n.open) for n in self.members)

    @property
    def visits(self) -> int:
        return sum(n.visits for n in self.members)

    @property
    def section(self) -> str:
        return section_of(self.first.template)


@dataclass
class Line:
    """A drawn edge: every action from one box to another."""

    id: str
    source: str
    dest: str
    edges: list[Edge] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


@dataclass
class View:
    boxes: dict[str, Box]
    lines: list[Line]
    merged: bool  # boxes are templates, not states
    collapsed: int  # states folded into leaves boxes
    box_of: dict[str, str]  # state key -> box id
    paths: bool = False  # merged by the template's path, its query left out
    site: str = ""  # the title part most pages share (" – Harbor"), left out of labels

    def title(self, box: Box) -> str:
        """The box's page title without the site's name, else its heading or template."""
        node = box.first
        title = node.title
        if self.site and title.endswith(self.site) and len(title) > len(self.site):
            title = title[: -len(self.site)]
        return title or node.h1 or box.template


SEPARATORS = (" – ", " — ", " - ", " | ", " · ", " :: ")


def site_suffix(titles: list[str]) -> str:
    """The tail after a separator that most titles end with, such as " – Harbor"."""
    tails: dict[str, int] = {}
    for title in titles:
        cut = max((title.rfind(sep) for sep in SEPARATORS), default=-1)
        if cut > 0:
            tails[title[cut:]] = tails.get(title[cut:], 0) + 1
    if not tails:
        return ""
    tail, count = max(tails.items(), key=lambda kv: kv[1])
    return tail if count >= 3 and count * 2 > len(titles) else ""


def short_template(template: str) -> str:
    """The template without its host: the path is what tells pages apart."""
    path = template.split("/", 1)[1] if "/" in template else ""
    return "/" + path


def section_of(template: str) -> str:
    """The first path segment: ``/ticket`` for ``/ticket/{id}``, ``/`` for the root."""
    path = urlsplit("//" + template).path
    first = path.strip("/").split("/", 1)[0]
    return "/" + first


def start_key(graph: Graph) -> str | None:
    """The state the exploration began on: the first one with no path to it."""
    nodes = sorted(graph.nodes.values(), key=lambda n: (bool(n.path), n.first_step))
    return nodes[0].key if nodes else None


def build(graph: Graph, merge_over: int = MERGE_OVER, collapse_over: int = COLLAPSE_OVER
          ) -> View:
    start = start_key(graph)
    merged = len(graph.nodes) > merge_over
    paths = len({n.template for n in graph.nodes.values()}) > PATHS_OVER

    def kind(node: Node) -> str:
        return node.template.split("?", 1)[0] if paths else node.template

    boxes: dict[str, Box] = {}
    box_of: dict[str, str] = {}
    by_kind: dict[str, str] = {}
    for node in sorted(graph.nodes.values(), key=lambda n: n.first_step):
        if merged and kind(node) in by_kind and node.key != start:
            box = boxes[by_kind[kind(node)]]
            box.members.append(node)
            box.kind = "template"
        else:
            box = Box(id=f"b{len(boxes)}", kind="state", members=[node], start=node.key == start)
            boxes[box.id] = box
            if merged and node.key != start:
                by_kind[kind(node)] = box.id
        box_of[node.key] = box.id
    lines = _lines(graph, boxes, box_of)
    collapsed = 0
    if len(boxes) > collapse_over:
        lines, collapsed = _collapse_leaves(boxes, lines, box_of)
    return View(boxes=boxes, lines=lines, merged=merged, collapsed=collapsed, box_of=box_of,
                paths=merged and paths,
                site=site_suffix([n.title for n in graph.nodes.values()]))


def _lines(graph: Graph, boxes: dict[str, Box], box_of: dict[str, str]) -> list[Line]:
    findings: dict[tuple[int, str], list[Finding]] = {}
    for f in graph.findings:
        findings.setdefault((f.step, f.node), []).append(f)
    lines: dict[tuple[str, str], Line] = {}
    for edge in graph.edges:
        source, dest = box_of.get(edge.source), box_of.get(edge.dest)
        if source is None or dest is None:
            continue  # a state never recorded: the edge stays in the table below
        found = findings.get((edge.step, edge.source), [])
        if source == dest and not found:
            boxes[source].stays += 1
            continue
        line = lines.setdefault((source, dest), Line(id=f"e{len(lines)}", source=source,
                                                     dest=dest))
        line.edges.append(edge)
        line.findings.extend(found)
    return list(lines.values())


def _collapse_leaves(boxes: dict[str, Box], lines: list[Line], box_of: dict[str, str]
                     ) -> tuple[list[Line], int]:
    """Boxes no action left and one parent reached fold into one box per parent."""
    parents: dict[str, set[str]] = {}
    leaving: set[str] = set()
    for line in lines:
        if line.source != line.dest:
            parents.setdefault(line.dest, set()).add(line.source)
            leaving.add(line.source)
    children: dict[str, list[str]] = {}
    for box in boxes.values():
        got = parents.get(box.id, set())
        if box.kind != "state" or box.start or box.id in leaving or len(got) != 1:
            continue
        if any(ln.findings for ln in lines if ln.source == box.id == ln.dest):
            continue  # a finding on its own loop: drawn where it happened
        children.setdefault(next(iter(got)), []).append(box.id)
    folded: dict[str, str] = {}
    count = 0
    for parent, kids in children.items():
        if len(kids) < MIN_LEAVES:
            continue
        leaves = Box(id=f"l{parent[1:]}", kind="leaves", members=[])
        for kid in kids:
            leaves.members.extend(boxes[kid].members)
            leaves.stays += boxes.pop(kid).stays
            folded[kid] = leaves.id
        boxes[leaves.id] = leaves
        count += len(leaves.members)
    if not folded:
        return lines, 0
    for key, box_id in box_of.items():
        box_of[key] = folded.get(box_id, box_id)
    merged: dict[tuple[str, str], Line] = {}
    for line in lines:
        source, dest = folded.get(line.source, line.source), folded.get(line.dest, line.dest)
        into = merged.setdefault((source, dest), Line(id=line.id, source=source, dest=dest))
        into.edges.extend(line.edges)
        into.findings.extend(line.findings)
    return list(merged.values()), count
