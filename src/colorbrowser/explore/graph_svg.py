"""The exploration graph as inline SVG, laid out by Graphviz's ``dot``.

The DOT input is built here: node and cluster labels are HTML-like labels whose text
is escaped (page titles and addresses are untrusted), ids are our own. Tooltips are
not given to dot: the SVG's ``<title>`` elements are filled in afterwards through
ElementTree, which escapes them, and thumbnails go to dot as files in a temporary
folder whose addresses are then swapped for ``data:`` URIs, so the page needs no
other file. Without ``dot``, or when it fails, the page says so in one line."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from colorbrowser.explore.graph_view import Box, Line, View, short_template
from colorbrowser.explore.plans import describe
from colorbrowser.ui.images import inside, jpeg_uri, thumbnail_jpeg

DOT_TIMEOUT = 20.0  # seconds per try; a few hundred boxes take one or two
THUMB = (104, 65)  # a node's screenshot, in points as drawn
FONT = "Helvetica,Arial,sans-serif"
SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG)
ET.register_namespace("xlink", XLINK)

START, FRONTIER, FINDING, EDGE, BACK = "#1a7f37", "#d97706", "#d1242f", "#57606a", "#c4cad3"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class Picture:
    svg: str  # '' when not drawn
    note: str  # why not, in one line ('' when drawn)
    remark: str = ""  # what a drawing left out


def label_text(text: str, limit: int = 40) -> str:
    """Text for a DOT HTML-like label: cut, control characters dropped, and every
    character that means something there (``& < > " '``) written as an entity."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def _box_label(box: Box, thumb: Path | None, title: str) -> str:
    rows = []
    if box.start:
        rows.append(f'<FONT COLOR="{START}"><B>START</B></FONT>')
    if thumb is not None:
        rows.append(f'<TD FIXEDSIZE="TRUE" WIDTH="{THUMB[0]}" HEIGHT="{THUMB[1]}">'
                    f'<IMG SRC="{thumb}" SCALE="TRUE"/></TD>')
    if box.kind == "leaves":
        templates = sorted({short_template(n.template) for n in box.members})
        rows.append(f"<B>{len(box.members)} more pages</B>")
        rows += [f'<FONT POINT-SIZE="10" COLOR="#555555">{label_text(t, 34)}</FONT>'
                 for t in templates[:3]]
        if len(templates) > 3:
            rows.append(f'<FONT POINT-SIZE="10" COLOR="#555555">and {len(templates) - 3} '
                        "more kinds</FONT>")
    else:
        rows.append(f"<B>{label_text(title, 24)}</B>")
        rows.append(f'<FONT POINT-SIZE="10" COLOR="#555555">{label_text(box.template, 32)}</FONT>')
    facts = []
    if box.kind == "template":
        facts.append(f"{len(box.members)} states")
    if box.stays:  # on one state; between the states of a merged box
        facts.append(f"{box.stays} {'stayed' if box.kind == 'state' else 'within'}")
    if facts:
        rows.append(f'<FONT POINT-SIZE="10">{", ".join(facts)}</FONT>')
    if box.open:
        rows.append(f'<FONT POINT-SIZE="10" COLOR="{FRONTIER}"><B>{box.open} untried</B></FONT>')
    cells = "".join(r if r.startswith("<TD") else f"<TD>{r}</TD>" for r in rows)
    cells = cells.replace("<TD", "<TR><TD").replace("</TD>", "</TD></TR>")
    return f'<<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'


def _box_attrs(box: Box) -> str:
    style = "rounded,filled" + (",dashed" if box.open else "")
    color, width = (START, 3) if box.start else (FRONTIER, 2) if box.open else ("#8c959f", 1)
    fill = "#f6f8fa" if box.kind == "leaves" else "white"
    return (f'shape=box, style="{style}", color="{color}", penwidth={width}, '
            f'fillcolor="{fill}", margin="0.06,0.03"')


def _line_attrs(line: Line, tree: bool) -> str:
    width = 1 + math.log2(len(line.edges)) * 0.6
    if line.findings:
        return (f'color="{FINDING}", penwidth={max(width, 2.2):.1f}, '
                f'label=<<FONT COLOR="{FINDING}" POINT-SIZE="12"><B>! {len(line.findings)}'
                "</B></FONT>>")
    if tree:
        return f'color="{EDGE}", penwidth={width:.1f}'
    return f'color="{BACK}", penwidth={width:.1f}, constraint=false, arrowsize=0.5'


def _box(box: Box, view: View, thumbs: dict[str, Path]) -> str:
    label = _box_label(box, thumbs.get(box.id), view.title(box))
    return f'{box.id} [id="{box.id}", {_box_attrs(box)}, label={label}];'


def tree_lines(view: View) -> set[str]:
    """The line that first reached each box: the others (links back to pages found
    earlier, the menu on every page) are drawn light and do not shape the layout."""
    first: dict[str, tuple[int, str]] = {}
    for line in view.lines:
        step = min(e.step for e in line.edges)
        if view.boxes[line.dest].start or line.dest == line.source:
            continue  # the start was not reached by a way
        if line.dest not in first or step < first[line.dest][0]:
            first[line.dest] = (step, line.id)
    return {line_id for _, line_id in first.values()}


def clusters(view: View) -> dict[str, list[Box]]:
    """Name -> boxes drawn in one grey area: a URL template's states, or once states
    are merged, a path section's templates. Only groups of two or more."""
    groups: dict[str, list[Box]] = {}
    for box in view.boxes.values():
        if box.kind != "leaves":
            groups.setdefault(box.section if view.merged else box.template, []).append(box)
    return {name: boxes for name, boxes in groups.items() if len(boxes) > 1}


def to_dot(view: View, thumbs: dict[str, Path], back: bool = True, newrank: bool = False
           ) -> str:
    """The DOT text: clusters by URL template (by path section once states are merged);
    without ``back``, only the first way to each box and the lines with findings.
    ``newrank`` ranks clusters another way: looser pictures, but dot 2.43 cannot loop
    for ever on it as it sometimes does on the default with many lines."""
    out = ["digraph exploration {",
           f'graph [rankdir=LR, fontname="{FONT}", fontsize=13, nodesep=0.15, ranksep=0.35, '
           'bgcolor="transparent", outputorder=edgesfirst'
           + (", newrank=true" if newrank else "") + "];",  # dot 2.43 reads any value as true
           f'node [fontname="{FONT}", fontsize=14];',
           f'edge [fontname="{FONT}", arrowsize=0.6];']
    groups = clusters(view)
    clustered = {b.id for g in groups.values() for b in g}
    for i, (name, boxes) in enumerate(groups.items()):
        out.append(f'subgraph cluster_{i} {{ id="c{i}"; label=<<B>{label_text(name, 40)}</B>>; '
                   'style="rounded,filled"; color="#d8dee4"; fillcolor="#eaeff5"; '
                   'fontcolor="#24292f"; fontsize=16; labeljust=l;')
        out += [f"  {_box(b, view, thumbs)}" for b in boxes]
        out.append("}")
    out += [_box(box, view, thumbs) for box in view.boxes.values() if box.id not in clustered]
    tree = tree_lines(view)
    for line in view.lines:
        if not back and line.id not in tree and not line.findings:
            continue
        out.append(f'{line.source} -> {line.dest} [id="{line.id}", '
                   f"{_line_attrs(line, line.id in tree)}];")
    out.append("}")
    return "\n".join(out)


def box_tip(box: Box) -> str:
    if box.kind == "leaves":
        head = f"{len(box.members)} pages reached from one page, no action taken from them"
    else:
        head = f"{box.first.title or box.first.h1}\n{box.template}"
        if box.kind == "template":
            head += f"\n{len(box.members)} states of this URL template"
    return (f"{head}\nvisits {box.visits}, untried {box.open}, stayed {box.stays}"
            + ("\nthe start" if box.start else "") + "\nclick for its card")


def line_tip(line: Line, boxes: dict[str, Box]) -> str:
    def name(box_id: str) -> str:
        box = boxes[box_id]
        return box.template if box.kind != "leaves" else f"{len(box.members)} more pages"

    rows = [f"{name(line.source)} → {name(line.dest)}: {len(line.edges)} "
            f"action{'s' if len(line.edges) > 1 else ''}"]
    for edge in line.edges[:8]:
        out = edge.outcome
        went = f"went to {out.get('url', '')}" if out.get("navigated") else "stayed"
        rows.append(f"step {edge.step}: {describe(edge.plan)} → {went}")
    if len(line.edges) > 8:
        rows.append(f"… and {len(line.edges) - 8} more")
    rows += [f"FINDING ({f.kind}): {f.text}" for f in line.findings[:5]]
    return "\n".join(rows)


def _thumbs(view: View, folder: Path, tmp: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """A small JPEG per box whose state kept a screenshot: files for dot, URIs for the page."""
    files: dict[str, Path] = {}
    uris: dict[str, str] = {}
    for box in view.boxes.values():
        if box.kind == "leaves" or not box.first.screenshot:
            continue
        data = thumbnail_jpeg(inside(folder, box.first.screenshot), THUMB[0] * 2, THUMB[1] * 2)
        if data is None:
            continue
        path = tmp / f"{box.id}.jpg"
        path.write_bytes(data)
        files[box.id] = path
        uris[str(path)] = jpeg_uri(data)
    return files, uris


def _dot(dot: str, text: str) -> tuple[bytes | None, str]:
    """dot's SVG, or None and why not."""
    try:
        done = subprocess.run([dot, "-Tsvg"], input=text.encode(), capture_output=True,
                              timeout=DOT_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return None, f"dot took longer than {DOT_TIMEOUT:.0f} s"
    except OSError as exc:
        return None, f"dot could not run ({exc})"
    if done.returncode != 0 or not done.stdout:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        return None, "dot failed" + (f" ({why[-1][:200]})" if why else "")
    return done.stdout, ""


def draw(view: View, folder: Path, cards: dict[str, list[str]]) -> Picture:
    """The view as inline SVG; ``cards`` names each box's card ids in the page. When dot
    cannot lay out every line, it is asked again ranking the other way, then without
    the lines to pages found earlier (they make a layout hard; the table holds them)."""
    dot = shutil.which("dot")
    if dot is None:
        return Picture("", "The graph is not drawn: Graphviz's dot is not installed "
                           "(apt-get install graphviz). The tables below hold all of it.")
    if not view.boxes:
        return Picture("", "The graph is not drawn: no state was recorded.")
    remark = ""
    with tempfile.TemporaryDirectory(prefix="colorbrowser-graph-") as tmp:
        files, uris = _thumbs(view, folder, Path(tmp))
        svg, why = _dot(dot, to_dot(view, files))
        if svg is None:
            svg, _ = _dot(dot, to_dot(view, files, newrank=True))
        if svg is None:
            svg, again = _dot(dot, to_dot(view, files, back=False))
            remark = (f"Lines to pages found earlier are not drawn: {why}. The Edges table "
                      "holds them.")
            why = again or why
    if svg is None:
        return Picture("", f"The graph is not drawn: {why}. The tables below hold all of it.")
    return Picture(_finish(svg, view, uris, cards), "", remark)


def _finish(svg: bytes, view: View, uris: dict[str, str], cards: dict[str, list[str]]) -> str:
    """dot's SVG made fit for the page: tooltips, card links, inline thumbnails."""
    root = ET.fromstring(svg)
    ns = {"s": SVG}
    lines = {line.id: line for line in view.lines}
    what = "pages under" if view.merged else "states of"
    areas = {f"c{i}": f"{len(boxes)} {'boxes' if view.merged else 'states'}: {what} {name}"
             for i, (name, boxes) in enumerate(clusters(view).items())}
    for g in root.iter(f"{{{SVG}}}g"):
        kind, gid = g.get("class"), g.get("id", "")
        title = g.find("s:title", ns)
        if kind == "node" and gid in view.boxes:
            tip = box_tip(view.boxes[gid])
            g.set("data-cards", " ".join(cards.get(gid, [])))
            g.set("tabindex", "0")
            if gid_cards := cards.get(gid):
                link = ET.Element(f"{{{SVG}}}a", {"href": f"#{gid_cards[0]}"})
                for child in [c for c in g if c is not title]:
                    g.remove(child)
                    link.append(child)
                g.append(link)
        elif kind == "edge" and gid in lines:
            tip = line_tip(lines[gid], view.boxes)
            path = g.find("s:path", ns)
            if path is not None:  # a wide clear stroke: a thin line is hard to hover
                g.append(ET.Element(f"{{{SVG}}}path", {
                    "d": path.get("d", ""), "fill": "none", "stroke": "transparent",
                    "stroke-width": "9", "class": "hit"}))
        elif kind == "cluster" and gid in areas:
            tip = areas[gid]
        elif kind == "graph":
            tip = "the exploration graph"
        else:
            continue
        if title is not None:
            title.text = tip
    for parent in list(root.iter()):
        for image in parent.findall("s:image", ns):
            href = image.get(f"{{{XLINK}}}href") or image.get("href")
            if href in uris:
                image.attrib.pop(f"{{{XLINK}}}href", None)
                image.set("href", uris[href])
            else:  # nothing but our own thumbnails is embedded
                parent.remove(image)
    width = root.get("width", "")
    points = float(width[:-2]) if width.endswith("pt") else 0.0
    for attr in ("width", "height"):
        root.attrib.pop(attr, None)
    root.set("class", "graph")
    if points:  # never drawn bigger than dot made it; the page can show it at that size
        root.set("style", f"max-width:{points * 4 / 3:.0f}px")
        root.set("data-width", f"{points * 4 / 3:.0f}")
    return ET.tostring(root, encoding="unicode")
