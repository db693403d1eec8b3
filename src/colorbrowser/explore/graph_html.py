"""graph.html: the exploration as a person would look at it, in one file with no
external resources: every node with its screenshot (a data URI), every edge with its
prediction and outcome, every finding. All page text is escaped."""

from __future__ import annotations

import base64
import io
from html import escape
from pathlib import Path
from typing import Any

from colorbrowser.explore.plans import describe
from colorbrowser.explore.state import ExploreState

THUMB_WIDTH = 420

_CSS = """body{font:14px system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;width:100%;margin:12px 0}td,th{border:1px solid #ddd;
padding:4px 6px;vertical-align:top;text-align:left}th{background:#f4f4f4}
.bad{color:#a00}.ok{color:#070}img{max-width:420px;border:1px solid #ccc}
code{font-size:12px;word-break:break-all}.card{display:inline-block;width:440px;
margin:6px;vertical-align:top;border:1px solid #ddd;padding:8px;border-radius:6px}"""


def _thumb(folder: Path, rel: str | None) -> str:
    """A small JPEG data URI of a screenshot ('' when there is none)."""
    if not rel or not (folder / rel).is_file():
        return ""
    try:
        from PIL import Image

        with Image.open(folder / rel) as img:
            img = img.convert("RGB")
            ratio = THUMB_WIDTH / max(img.width, 1)
            img = img.resize((THUMB_WIDTH, max(1, int(img.height * ratio))))
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=70)
        data = base64.b64encode(buf.getvalue()).decode()
        return f'<img alt="screenshot" src="data:image/jpeg;base64,{data}">'
    except (OSError, ValueError):
        return ""


def _pred(p: dict[str, Any]) -> str:
    if p.get("source") == "none":
        return "abstained"
    if p.get("navigates"):
        return f"{p.get('method', '')} → {p.get('url') or p.get('template') or '?'}"
    return "stays" + ("; opens" if p.get("appear") else "") + ("; closes" if p.get("disappear")
                                                             else "")


def render(state: ExploreState, folder: Path) -> str:
    g = state.graph
    e = escape
    checks = ", ".join(f"{k} {r}/{t}" for k, (r, t) in sorted(state.tally.checks.items()))
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Exploration of "
             f"{e(state.start_url)}</title><style>{_CSS}</style></head><body>",
             f"<h1>Exploration of {e(state.start_url)}</h1>",
             f"<p>{state.used} actions ({e(state.strategy)}, seed {state.seed}), "
             f"{len(g.nodes)} states, {len(g.edges)} edges, {len(g.findings)} findings. "
             f"Predictions: {state.tally.predictions}, abstained {state.tally.abstained}; "
             f"checks right/total: {e(checks)}.</p>",
             f"<h2>Findings ({len(g.findings)})</h2><table><tr><th>step</th><th>kind</th>"
             "<th>what happened</th><th>page</th></tr>"]
    for f in g.findings:
        parts.append(f"<tr><td>{f.step}</td><td class='bad'>{e(f.kind)}</td><td>{e(f.text)}"
                     f"</td><td><code>{e(f.url)}</code></td></tr>")
    parts.append(f"</table><h2>States ({len(g.nodes)})</h2>")
    for n in g.nodes.values():
        path = " → ".join(describe(s) for s in n.path) or "(start)"
        parts.append(
            f"<div class='card'><b>{e(n.title or n.template)}</b><br><code>{e(n.template)}</code>"
            f"<br>{_thumb(folder, n.screenshot)}<br>visits {n.visits}, candidates {n.candidates}"
            f", tried {len(n.tried)}, predictable {len(n.predictable)}, open {len(n.open)}, "
            f"skipped writes {len(n.skipped)}<br>path: {e(path)}</div>")
    parts.append(f"<h2>Edges ({len(g.edges)})</h2><table><tr><th>step</th><th>action</th>"
                 "<th>predicted</th><th>outcome</th><th>verdict</th></tr>")
    for edge in g.edges:
        out = edge.outcome
        verdict = edge.verdict
        cls = "bad" if verdict.get("finding") else "ok"
        outcome = f"{'navigated to ' + out.get('url', '') if out.get('navigated') else 'stayed'}"
        if out.get("db"):
            outcome += "; db: " + ", ".join(f"{k} {v}" for k, v in out["db"].items())
        parts.append(f"<tr><td>{edge.step}</td><td><code>{e(describe(edge.plan))}</code></td>"
                     f"<td>{e(_pred(edge.prediction))}</td><td>{e(outcome)}</td>"
                     f"<td class='{cls}'>{e(verdict.get('text', ''))}</td></tr>")
    parts.append("</table></body></html>")
    return "\n".join(parts)
