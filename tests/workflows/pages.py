"""Hand-built observations of Trac-like pages for the unit tests (the tree text as the
browser writes it; the elements made from its lines)."""

from __future__ import annotations

from colorbrowser.types import ElementInfo, Observation
from colorbrowser.workflows import page

SITE = "127.0.0.1:18303"


def observation(tree: str, url: str = f"http://{SITE}/", title: str = "Harbor") -> Observation:
    elements = {line.bid: ElementInfo(line.bid, line.role, line.name)
                for line in page.parse(tree) if line.bid}
    return Observation(url=url, title=title, axtree=tree.strip("\n"), elements=elements)


def ticket_page(number: int, owner: str, reporter: str = "Hannah Thomas",
                status: str = "new defect", owner_label: str = "Owned by:") -> Observation:
    return observation(f"""
[1] link 'Harbor'
[2] textbox 'Search:'
[3] button 'Search'
[39] heading '#{number} {status}' level=2
  [40] link '#{number}'
[43] heading 'Duplicate detection fails when two files share the same checksum' level=1
[44] table
  [45] row
    [46] rowheader 'Reported by:'
    [48] link '{reporter}'
    [49] columnheader '{owner_label}'
    [51] link '{owner}'
  [52] row
    [53] rowheader 'Priority:'
    [55] link 'critical'
[96] heading 'Add Comment' level=3
  [97] link 'Add Comment'
[108] textbox 'You may use WikiFormatting here.'
[113] button 'Preview'
[114] button 'Submit changes'
""", f"http://{SITE}/ticket/{number}", f"#{number} (Duplicate detection) – Harbor")


def query_page(matches: int, rows: list[tuple[str, str, str]]) -> Observation:
    """A custom query: its heading counts the matches; rows of (ticket, summary, type)."""
    body = "\n".join(f"""  [{200 + n * 10}] row
    [{201 + n * 10}] link '#{t}'
    [{202 + n * 10}] link '{s}'
    [{203 + n * 10}] cell '{k}'""" for n, (t, s, k) in enumerate(rows))
    return observation(f"""
[34] heading 'Custom Query ({matches} matches)' level=1
[124] table
  [125] row
    [129] link 'Ticket'
    [131] link 'Summary'
    [133] link 'Type'
{body}
""", f"http://{SITE}/query?owner=julian")
