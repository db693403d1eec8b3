"""Helpers for the browser tests: element lookup and a generated big page."""

from __future__ import annotations

from colorbrowser.types import ElementInfo, Observation


def find(obs: Observation, name: str, role: str | None = None) -> ElementInfo:
    """The one element with this accessible name (and role, when given)."""
    found = [e for e in obs.elements.values()
             if e.name == name and (role is None or e.role == role)]
    assert len(found) == 1, f"expected one element named {name!r}, got {found}"
    return found[0]


def line_of(obs: Observation, bid: str) -> str:
    """The tree line of an element, without indentation (with its ``*`` if it is new)."""
    for line in obs.axtree.splitlines():
        if line.strip().lstrip("*").startswith(f"[{bid}] "):
            return line.strip()
    raise AssertionError(f"no line for bid {bid} in:\n{obs.axtree}")


def big_page_html(rows: int = 130) -> str:
    """``rows`` table rows, each with a link, a text input, a select and a button (4 per row),
    plus navigation and paragraphs of text: about 520 interactive elements at 130 rows."""
    nav = "".join(f'<li><a href="#section{i}">Section {i}</a></li>' for i in range(12))
    body = []
    for i in range(rows):
        body.append(
            f"<tr><td><a href='#item{i}'>Item number {i}</a></td>"
            f"<td>Description of product {i}, with <b>details</b> and a price of ${i}.99</td>"
            f"<td><input aria-label='Quantity {i}' value='{i % 5}'></td>"
            f"<td><select aria-label='Colour {i}'><option>Red</option><option>Green</option>"
            f"<option>Blue</option></select></td>"
            f"<td><button type='button'>Add {i} to cart</button></td></tr>"
        )
    paras = "".join(
        f"<section aria-label='Notes {i}'><h2>Notes {i}</h2><p>Paragraph {i} explains the "
        f"terms of item {i} in plain words, with <em>emphasis</em> and a "
        f"<span>nested span</span>.</p></section>" for i in range(20)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Big page</title></head><body>"
        f"<header><nav aria-label='Sections'><ul>{nav}</ul></nav></header><main>"
        "<h1>Catalogue</h1><table><thead><tr><th>Item</th><th>Description</th>"
        f"<th>Quantity</th><th>Colour</th><th>Action</th></tr></thead><tbody>{''.join(body)}"
        f"</tbody></table>{paras}</main></body></html>"
    )
