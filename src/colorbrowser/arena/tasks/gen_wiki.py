"""Tasks on the wiki (WebArena's Wikipedia). Reading needs no login; edits are made as
the editor Emma.

Facts come from the content generator's world (the same seed the snapshot was built
from); the wikitext an edit starts from is read from the snapshot itself.
"""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.arena.content.wiki import World, world
from colorbrowser.arena.tasks.draft import (
    Draft,
    Snapshot,
    both,
    db,
    exact,
    fuzzy,
    html,
    includes,
    url,
)

W = "__WIKIPEDIA__"
SITES = ["wikipedia"]
SEARCH = {"role": "searchbox", "name": "Search Valdoria Encyclopedia"}
EDITOR = {"role": "textbox", "name": "Wikitext source editor"}
SAVE = {"click": {"role": "button", "name": "Save changes"}}  # "Save page" for a new page
SAVE_NEW = {"click": {"role": "button", "name": "Save page"}}
CONTENT = "document.querySelector('#mw-content-text').innerText"
TEXT_OF = ("select t.old_text from page p join slots s on s.slot_revision_id=p.page_latest "
           "join content c on c.content_id=s.slot_content_id join text t on "
           "t.old_id=cast(substr(c.content_address,4) as integer) where p.page_namespace=0 "
           "and p.page_title={}")


def _n(value: int) -> str:
    return f"{value:,}"


def _page(title: str) -> str:
    return title.replace(" ", "_")


def _id(title: str) -> str:
    return _page(title).lower()


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def drafts(snap: Callable[[str], Snapshot]) -> list[Draft]:
    w = world(2024)
    s = snap("wiki")
    return _info(w) + _navigation(w) + _changes(w, s)


def _towns(w: World, count: int, skip: int, *, river: bool = False) -> list[str]:
    names = sorted(n for n, t in w.towns.items() if (t.river or not river) and
                   t.population > 2_000)
    return names[skip::37][:count]


def _info(w: World) -> list[Draft]:
    out = []
    home = f"{W}/index.php/Main_Page"
    for town in _towns(w, 3, 1):
        pop = w.towns[town].population
        out.append(Draft(f"wiki-population-{_id(town)}", SITES,
                         "What was the population of {town} at the 2020 census?",
                         {"town": town}, home, includes(_n(pop)),
                         [f"goto('{W}/index.php/{_page(town)}')",
                          {"stop": _n(pop), "wrong": _n(pop + 100)}], login=False))
    for town in _towns(w, 2, 5, river=True):
        river = w.towns[town].river
        other = next(r for r in sorted(w.rivers) if r != river)
        out.append(Draft(f"wiki-river-of-{_id(town)}", SITES,
                         "Which river flows through {town}?", {"town": town}, home,
                         includes(river),
                         [{"fill": SEARCH, "value": town}, {"press": SEARCH, "key": "Enter"},
                          {"stop": river, "wrong": other}], login=False))
    for town in _towns(w, 2, 9):
        region = w.towns[town].region
        other = "Westvale" if region != "Westvale" else "Fenland"
        out.append(Draft(f"wiki-region-of-{_id(town)}", SITES,
                         "In which region of Valdoria is {town}?", {"town": town}, home,
                         exact(region),
                         [f"goto('{W}/index.php/{_page(town)}')",
                          {"stop": region, "wrong": other}], login=False))
    for peak in sorted(w.mountains)[3:40:18][:2]:
        height = w.mountains[peak].elevation
        out.append(Draft(f"wiki-height-{_id(peak)}", SITES,
                         "How high is {mountain}, in metres?", {"mountain": peak}, home,
                         includes(_n(height)),
                         [f"goto('{W}/index.php/{_page(peak)}')",
                          {"stop": f"{_n(height)} m", "wrong": f"{_n(height + 50)} m"}],
                         login=False))
    people = sorted(w.people)
    for person in people[10:400:200][:2]:
        place = w.people[person].birthplace
        out.append(Draft(f"wiki-birthplace-{_id(person)}", SITES,
                         "Where was {person} born?", {"person": person}, home, exact(place),
                         [f"goto('{W}/index.php/{_page(person)}')",
                          {"stop": place, "wrong": w.towns[place].neighbours[0]
                           if w.towns[place].neighbours else "Glenport"}], login=False))
    climbed = sorted(m for m, mt in w.mountains.items() if mt.climber)
    peak = climbed[0]
    climber = w.mountains[peak].climber or ""
    out.append(Draft(f"wiki-first-ascent-{_id(peak)}", SITES,
                     "Who first climbed {mountain}?", {"mountain": peak}, home, exact(climber),
                     [f"goto('{W}/index.php/{_page(peak)}')",
                      {"stop": climber, "wrong": people[0]}], login=False))
    river = sorted(w.rivers)[7]
    length = w.rivers[river].length
    out.append(Draft(f"wiki-length-{_id(river)}", SITES, "How long is the {river}?",
                     {"river": river}, home, includes(f"{length} km"),
                     [f"goto('{W}/index.php/{_page(river)}')",
                      {"stop": f"{length} km", "wrong": f"{length + 10} km"}], login=False))
    town = _towns(w, 1, 13)[0]
    industry = w.towns[town].industry
    out.append(Draft(f"wiki-known-for-{_id(town)}", SITES,
                     "What is the economy of {town} based on?", {"town": town}, home,
                     fuzzy(f"The local economy of {town} is based on {industry}.", industry),
                     [f"goto('{W}/index.php/{_page(town)}')",
                      {"stop": f"It is based on {industry}.", "wrong": "Banking."}],
                     login=False))
    region = "Coastmere"
    ranked = sorted((t for t in w.towns.values() if t.region == region),
                    key=lambda t: -t.population)
    out.append(Draft(f"wiki-largest-in-{region.lower()}", SITES,
                     "Which is the largest town in the {region} region by population?",
                     {"region": region}, home, exact(ranked[0].name),
                     [{"click": {"role": "link", "name": region}},
                      {"stop": ranked[0].name, "wrong": ranked[1].name}], login=False))
    return out


def _navigation(w: World) -> list[Draft]:
    out = []
    home = f"{W}/index.php/Main_Page"
    for town in _towns(w, 3, 20):
        wrong = w.towns[town].neighbours[0]
        out.append(Draft(f"wiki-open-{_id(town)}", SITES,
                         "Open the encyclopedia article about {town}.", {"town": town}, home,
                         url(f"{W}/index.php/{_page(town)}"),
                         [{"fill": SEARCH, "value": town, "wrong": wrong},
                          {"press": SEARCH, "key": "Enter"}], login=False))
    peak = sorted(w.mountains)[11]
    out.append(Draft(f"wiki-history-{_id(peak)}", SITES,
                     "Show the revision history of the article {article}.", {"article": peak},
                     f"{W}/index.php/{_page(peak)}",
                     url(f"{W}/index.php?title={_page(peak)}&action=history"),
                     [{"click": {"role": "link", "name": "View history"},
                       "wrong": {"role": "link", "name": "Discussion"}}], login=False))
    town = _towns(w, 1, 30, river=True)[0]
    river = w.towns[town].river or ""
    out.append(Draft(f"wiki-follow-river-{_id(town)}", SITES,
                     "Starting from the article about {town}, open the article about the "
                     "river that flows through it.", {"town": town},
                     f"{W}/index.php/{_page(town)}", url(f"{W}/index.php/{_page(river)}"),
                     [{"click": {"role": "link", "name": river, "nth": 0},
                       "wrong": {"role": "link", "name": w.towns[town].region, "nth": 0}}],
                     login=False))
    return out


def _changes(w: World, s: Snapshot) -> list[Draft]:
    out = []
    emma = s.one("select user_id from user where user_name='Emma'")
    additions = {
        _towns(w, 1, 3)[0]: "The town hosts a folk music festival every August.",
        _towns(w, 1, 7)[0]: "A new footbridge over the river opened in 2023.",
    }
    for town, sentence in additions.items():
        before = s.one(TEXT_OF.format("?"), _page(town))
        lead = f"It had a population of {_n(w.towns[town].population)}"
        after = before.rstrip("\n") + "\n\n" + sentence + "\n"
        out.append(Draft(f"wiki-append-{_id(town)}", SITES,
                         "Add the sentence \"{sentence}\" at the end of the article about "
                         "{town}, keeping the rest of the article.",
                         {"sentence": sentence, "town": town},
                         f"{W}/index.php/{_page(town)}",
                         html(f"{W}/index.php/{_page(town)}", CONTENT, sentence, lead),
                         [{"click": {"role": "link", "name": "Edit"}},
                          {"fill": EDITOR, "value": after,
                           "wrong": before.rstrip("\n") + "\n\n" + sentence.replace(
                               ".", "!") + "\n"},
                          SAVE]))
    new_pages = (("Valdorian Folk Festival", "The '''Valdorian Folk Festival''' is a music "
                  "festival held every summer in [[Glenport]]."),
                 ("Coastmere Lighthouse Trail", "The '''Coastmere Lighthouse Trail''' is a "
                  "walking route of 42 km along the coast of [[Coastmere]]."))
    for title, text in new_pages:
        plain = text.replace("'''", "").replace("[[", "").replace("]]", "")
        out.append(Draft(f"wiki-create-{_id(title)}", SITES,
                         "Create an encyclopedia article titled \"{title}\" with this text: "
                         "{text}", {"title": title, "text": plain},
                         f"{W}/index.php?title={_page(title)}&action=edit",
                         both(html(f"{W}/index.php/{_page(title)}", CONTENT, plain),
                              db("wiki", "select count(*) from page where page_namespace=0 "
                                 f"and page_title={_sql(_page(title))}", [[1]])),
                         [{"fill": EDITOR, "value": plain, "wrong": plain.replace(" km", " mi")
                           if " km" in plain else plain.replace("summer", "winter")},
                          SAVE_NEW]))
    town = _towns(w, 1, 17)[0]
    out.append(Draft(f"wiki-watch-{_id(town)}", SITES,
                     "Add the article about {town} to my watchlist.", {"town": town},
                     f"{W}/index.php/Main_Page",
                     db("wiki", f"select count(*) from watchlist where wl_user={emma} and "
                        f"wl_namespace=0 and wl_title={_sql(_page(town))}", [[1]]),
                     [{"goto": f"{W}/index.php/{_page(town)}",
                       "wrong": f"{W}/index.php/{_page(w.towns[town].neighbours[0])}"},
                      {"click": {"role": "link", "name": "Watch"},
                       "expect": {"role": "link", "name": "Unwatch"}}]))
    town = _towns(w, 1, 25)[0]
    old = _n(w.towns[town].population)
    new = _n(w.towns[town].population + 1_250)
    before = s.one(TEXT_OF.format("?"), _page(town))
    assert f"| population = {old}" in before, f"{town}: no population line in its infobox"
    query = TEXT_OF.format(_sql(_page(town))).replace("select t.old_text", "select count(*)")
    out.append(Draft(f"wiki-update-population-{_id(town)}", SITES,
                     "Update the population of {town} in its infobox to {population}.",
                     {"town": town, "population": new}, f"{W}/index.php/{_page(town)}",
                     db("wiki", query + f" and t.old_text like {_sql(f'%| population = {new}%')}",
                        [[1]]),
                     [{"click": {"role": "link", "name": "Edit"}},
                      {"fill": EDITOR, "value": before.replace(f"| population = {old}",
                                                               f"| population = {new}"),
                       "wrong": before},
                      SAVE]))
    return out
