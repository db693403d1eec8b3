"""Articles of the fictional encyclopedia in wikitext, and the MediaWiki export file that
loads them (``importDump.php``).

Each article is written from the world's facts, with an infobox, sections, links to the
articles it relates to and categories.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from xml.sax.saxutils import escape

from colorbrowser.arena.content.wiki import COUNTRY, REGIONS, Mountain, Person, River, Town, World

EDITED = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
INFOBOX = """{| class="infobox" style="float:right; clear:right; width:22em; margin:0 0 1em 1em; \
border:1px solid #a2a9b1; background:#f8f9fa; padding:0.2em; font-size:88%; line-height:1.5em"
|+ style="font-size:125%; font-weight:bold; padding:0.3em" | {{{name|{{PAGENAME}}}}}
"""


def _template(fields: Iterable[tuple[str, str]]) -> str:
    rows = "".join(f'|-\n! style="text-align:left; padding-right:1em" | {label}\n'
                   f"| {{{{{{{key}|}}}}}}\n" for key, label in fields)
    return INFOBOX + rows + "|}<noinclude>[[Category:Infobox templates]]</noinclude>\n"


TEMPLATES = {
    "Template:Infobox settlement": _template((("region", "Region"), ("population", "Population"),
                                              ("elevation", "Elevation"),
                                              ("founded", "Founded"), ("river", "River"),
                                              ("industry", "Known for"))),
    "Template:Infobox river": _template((("length", "Length"), ("source", "Source"),
                                         ("mouth", "Mouth"), ("towns", "Towns"))),
    "Template:Infobox mountain": _template((("elevation", "Elevation"), ("region", "Region"),
                                            ("first_ascent", "First ascent"))),
    "Template:Infobox person": _template((("born", "Born"), ("died", "Died"),
                                         ("birthplace", "Birthplace"),
                                         ("occupation", "Occupation"),
                                         ("known_for", "Known for"))),
    "Template:Infobox region": _template((("towns", "Towns"), ("seat", "Seat"))),
    "Template:Infobox": _template((("type", "Type"), ("region", "Region"))),
}


def _box(kind: str, **fields: object) -> str:
    rows = "".join(f"| {k} = {v}\n" for k, v in fields.items() if v not in (None, ""))
    return f"{{{{Infobox {kind}\n{rows}}}}}\n"


def _n(value: int) -> str:
    return f"{value:,}"


def _size(pop: int) -> str:
    return "city" if pop > 50_000 else "town" if pop > 3_000 else "village"


def town_article(t: Town, w: World, rng: random.Random) -> str:
    kind = _size(t.population)
    river = f"[[{t.river}]]" if t.river else ""
    lead = (f"'''{t.name}''' is a {kind} in the region of [[{t.region}]], {COUNTRY}. "
            f"It had a population of {_n(t.population)} at the 2020 census"
            + (f" and lies on the {river}." if river else "."))
    history = (f"A settlement at {t.name} is first recorded in {t.founded}. "
               + rng.choice((f"It grew as a market for the surrounding farms, and its "
                             f"{t.industry} trade made it prosperous in the 19th century.",
                             f"The {t.industry} that still defines the {kind} began in the "
                             f"{(t.founded // 100 + 1)}th century.",
                             "A fire in 1742 destroyed most of the old centre, which was "
                             "rebuilt in stone.")))
    geo = f"{t.name} lies at an elevation of {_n(t.elevation)} m."
    if t.neighbours:
        geo += " Neighbouring places include " + ", ".join(f"[[{n}]]" for n in t.neighbours) + "."
    if t.river:
        geo += f" The {river} flows through the {kind} on its way to {w.rivers[t.river].mouth}."
    parts = [_box("settlement", name=t.name, region=f"[[{t.region}]]",
                  population=_n(t.population), elevation=f"{t.elevation} m",
                  founded=t.founded, river=river, industry=t.industry), lead,
             "== History ==", history, "== Geography ==", geo,
             "== Economy ==", f"The local economy is based on {t.industry}"
             + rng.choice((", together with a weekly market.", " and on services.",
                           "; a small museum tells its history."))]
    if t.people:
        parts += ["== Notable people ==",
                  "\n".join(f"* [[{p}]] ({w.people[p].occupation}, born {w.people[p].born})"
                            for p in t.people)]
    parts.append(f"[[Category:{kind.capitalize()}s in {t.region}]]")
    return "\n\n".join(parts) + "\n"


def river_article(r: River, w: World) -> str:
    mouth = f"[[{r.mouth}]]" if r.mouth in w.rivers else r.mouth
    towns = ", ".join(f"[[{t}]]" for t in r.towns[:12])
    parts = [_box("river", name=r.name, length=f"{r.length} km", source=f"[[{r.source}]]",
                  mouth=mouth, towns=towns),
             f"The '''{r.name}''' is a river in {COUNTRY}, {r.length} km long. It rises on the "
             f"slopes of [[{r.source}]] and flows into {mouth}.",
             "== Course =="]
    parts.append(("On its way it passes " + towns + ".") if towns else
                 "It flows through open country and passes no town of note.")
    if r.tributaries:
        parts += ["== Tributaries ==", "\n".join(f"* [[{t}]]" for t in r.tributaries)]
    parts.append("[[Category:Rivers of Valdoria]]")
    return "\n\n".join(parts) + "\n"


def mountain_article(m: Mountain, w: World) -> str:
    climb = f"[[{m.climber}]]" if m.climber else ""
    parts = [_box("mountain", name=m.name, elevation=f"{_n(m.elevation)} m",
                  region=f"[[{m.region}]]", first_ascent=climb),
             f"'''{m.name}''' is a mountain in [[{m.region}]], {COUNTRY}, rising to "
             f"{_n(m.elevation)} m."
             + (f" It was first climbed by {climb}." if climb else "")]
    if m.rivers:
        parts += ["== Rivers ==", "The following rivers rise on its slopes: "
                  + ", ".join(f"[[{r}]]" for r in m.rivers) + "."]
    parts.append("[[Category:Mountains of Valdoria]]")
    return "\n\n".join(parts) + "\n"


def person_article(p: Person, w: World) -> str:
    died = f"{p.died}" if p.died else ""
    life = f"({p.born}–{p.died})" if p.died else f"(born {p.born})"
    parts = [_box("person", name=p.name, born=p.born, died=died,
                  birthplace=f"[[{p.birthplace}]]", occupation=p.occupation,
                  known_for=f"{p.work} [[{p.subject}]]"),
             f"'''{p.name}''' {life} was a {COUNTRY}n {p.occupation}, best known for "
             f"{p.work} [[{p.subject}]].".replace(" was ", " is " if not p.died else " was "),
             "== Life ==",
             f"{p.name.split()[0]} was born in [[{p.birthplace}]] in {p.born}"
             + (f" and died in {p.died}." if p.died else ".")]
    parts.append(f"[[Category:{p.occupation.capitalize()}s from Valdoria]]")
    return "\n\n".join(parts) + "\n"


def region_article(name: str, blurb: str, w: World) -> str:
    towns = sorted((t for t in w.towns.values() if t.region == name),
                   key=lambda t: -t.population)
    seat = towns[0].name if towns else ""
    return "\n\n".join([
        _box("region", name=name, towns=len(towns), seat=f"[[{seat}]]"),
        f"'''{name}''' is one of the eight regions of {COUNTRY}, covering {blurb}. Its seat "
        f"is [[{seat}]].",
        "== Largest places ==",
        "\n".join(f"* [[{t.name}]] ({_n(t.population)})" for t in towns[:15]),
        "[[Category:Regions of Valdoria]]"]) + "\n"


def main_page(w: World) -> str:
    return "\n\n".join([
        f"'''Welcome to the {COUNTRY} Encyclopedia''', the free encyclopedia about the "
        f"towns, rivers, mountains and people of {COUNTRY}.",
        f"It has {len(w.towns)} articles about places, {len(w.rivers)} about rivers, "
        f"{len(w.mountains)} about mountains and {len(w.people)} biographies.",
        "== Regions ==", "\n".join(f"* [[{name}]]" for name, _ in REGIONS),
        "== Featured article ==", f"[[{next(iter(w.towns))}]]"]) + "\n"


def pages(w: World, seed: int) -> dict[str, str]:
    rng = random.Random(f"wikitext:{seed}")
    out = dict(TEMPLATES)
    out["Main Page"] = main_page(w)
    for name, blurb in REGIONS:
        out[name] = region_article(name, blurb, w)
    for t in w.towns.values():
        out[t.name] = town_article(t, w, rng)
    for r in w.rivers.values():
        out[r.name] = river_article(r, w)
    for m in w.mountains.values():
        out[m.name] = mountain_article(m, w)
    for p in w.people.values():
        out[p.name] = person_article(p, w)
    return out


def export_xml(pages: dict[str, str], author: str = "Admin") -> str:
    """A MediaWiki export document with one revision per page, at pinned times."""
    items = []
    for i, (title, text) in enumerate(pages.items()):
        stamp = (EDITED + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        ns = 10 if title.startswith("Template:") else 0
        items.append(f"<page><title>{escape(title)}</title><ns>{ns}</ns><revision>"
                     f"<timestamp>{stamp}</timestamp><contributor><username>{author}</username>"
                     f"</contributor><model>wikitext</model><format>text/x-wiki</format>"
                     f'<text xml:space="preserve">{escape(text)}</text></revision></page>')
    return ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" '
            'xml:lang="en">\n' + "\n".join(items) + "\n</mediawiki>\n")
