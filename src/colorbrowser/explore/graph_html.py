"""graph.html: the exploration as a person would look at it, in one file with no
external resources. First the picture (graph_svg: states as boxes, actions as lines,
findings in red, the start and the frontier marked; a click opens a state's card),
then the findings, every state's card with its screenshot and every edge. All page
text is escaped (the template autoescapes); the page's one script is ours, allowed by
its hash in the page's Content-Security-Policy, so no other script can run."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from colorbrowser.explore.graph import Edge, Finding, Node
from colorbrowser.explore.graph_svg import clusters, draw
from colorbrowser.explore.graph_view import View, build, short_template, start_key
from colorbrowser.explore.plans import describe
from colorbrowser.explore.state import ExploreState
from colorbrowser.ui.images import inside, jpeg_uri, thumbnail_jpeg

CARD_SHOT_WIDTH = 420


@dataclass
class Card:
    id: str
    node: Node
    template: str
    shot: str | None
    path: str
    findings: list[Finding]
    start: bool


@dataclass
class EdgeRow:
    edge: Edge
    action: str
    predicted: str
    outcome: str


def _pred(p: dict[str, Any]) -> str:
    if p.get("source") == "none":
        return "abstained"
    if p.get("navigates"):
        return f"{p.get('method', '')} → {p.get('url') or p.get('template') or '?'}"
    return "stays" + ("; opens" if p.get("appear") else "") + ("; closes" if p.get("disappear")
                                                             else "")


def _outcome(out: dict[str, Any]) -> str:
    text = f"navigated to {out.get('url', '')}" if out.get("navigated") else "stayed"
    if out.get("db"):
        text += "; db: " + ", ".join(f"{k} {v}" for k, v in out["db"].items())
    return text


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("colorbrowser.explore", "templates"),
        undefined=jinja2.StrictUndefined, autoescape=True,  # page text is untrusted
        trim_blocks=True, lstrip_blocks=True)


@cache
def _script() -> tuple[str, str]:
    """The page's script and its CSP hash."""
    text = resources.files("colorbrowser.explore").joinpath("templates/graph.js").read_text(
        "utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    return text, f"'sha256-{digest}'"


def _card_shot(folder: Path, rel: str | None) -> str | None:
    """The top of the screenshot, as wide as the page's content: a data URI."""
    data = thumbnail_jpeg(inside(folder, rel), CARD_SHOT_WIDTH, CARD_SHOT_WIDTH * 3 // 4)
    return jpeg_uri(data) if data else None


def _cards(state: ExploreState, folder: Path) -> list[Card]:
    g = state.graph
    start = start_key(g)
    found: dict[str, list[Finding]] = {}
    for f in g.findings:
        found.setdefault(f.node, []).append(f)
    return [Card(id=f"s{i}", node=n, template=short_template(n.template),
                 shot=_card_shot(folder, n.screenshot),
                 path=" → ".join(describe(s) for s in n.path) or "(start)",
                 findings=found.get(n.key, []), start=n.key == start)
            for i, n in enumerate(g.nodes.values())]


def _summary(view: View, states: int) -> str:
    boxes = len(view.boxes)
    if boxes == states:
        return ""
    said = [f"{states} states drawn as {boxes} boxes"]
    if view.paths:
        said.append("the states of one URL template's path (its query aside) share a box")
    elif view.merged:
        said.append("the states of one URL template share a box")
    if view.collapsed:
        said.append(f"{view.collapsed} states no action left, reached from one page, are "
                    "folded into a box per page")
    return "; ".join(said) + "."


def render(state: ExploreState, folder: Path) -> str:
    g = state.graph
    cards = _cards(state, folder)
    card_of = {c.node.key: c.id for c in cards}
    view = build(g)
    members: dict[str, list[str]] = {}
    for key, box_id in view.box_of.items():
        members.setdefault(box_id, []).append(card_of[key])
    picture = draw(view, folder, members)
    script, script_hash = _script()
    checks = ", ".join(f"{k} {r}/{t}" for k, (r, t) in sorted(state.tally.checks.items()))
    edges = [EdgeRow(edge=e, action=describe(e.plan), predicted=_pred(e.prediction),
                     outcome=_outcome(e.outcome)) for e in g.edges]
    return _templates().get_template("graph.html.j2").render(
        state=state, graph=g, checks=checks, cards=cards, edges=edges,
        svg=Markup(picture.svg), note=picture.note,
        folded=" ".join(t for t in (_summary(view, len(g.nodes)), picture.remark) if t),
        areas="path sections" if view.merged else "URL templates" if clusters(view) else "",
        leaves=view.collapsed,
        script=Markup(script), script_hash=script_hash)
