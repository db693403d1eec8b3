"""Two small sites on loopback for the sibling tests: a store-and-tracker that spells
its values its own way (``/projects/ledgerly``, ``/catalogue/rain-jacket-s_5/``, a
status list named by the status it shows) and a "Trac" whose tickets the first site's
issues are filed from. Their state lives in ``AppState``, so a test checks what a
workflow changed."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, unquote, urlsplit

from colorbrowser.testing import start_loopback, stop_loopback

PRODUCTS = {5: ("Northwind Harbor Rain Jacket, Burgundy, S", "$133.00"),
            140: ("Copperleaf Heritage Frying Pan, 28 cm", "$100.00"),
            141: ("Copperleaf Heritage Frying Pan, 24 cm", "$90.00")}
PROJECTS = {"harbor": ("Harbor", "Liam Gray"), "ledgerly": ("Ledgerly", "Nathan Harris"),
            "tidewatch": ("Tidewatch", "Abigail Bell")}
OPEN_CLOSED = {"harbor": ((27, 30), (14, 14), (6, 9)), "ledgerly": ((20, 3), (10, 5), (5, 1)),
               "tidewatch": ((9, 9), (8, 2), (3, 0))}  # per tracker: Bug, Feature, Support
TICKETS = {66: "Tag renaming fails for photos without a capture date",
           93: "The upload queue shows the wrong result when a RAW file has no preview"}
CATEGORIES = {("Home & Kitchen", 6): (("Cookware", 7), ("Kettles", 8)),
              ("Outdoor", 13): (("Tents", 14), ("Water Bottles", 15))}
BUGS = {61: ("Emma Stewart", 2, ["Seen on 1.2 too.", "Could you attach the full log?"]),
        133: ("Mason King", 4, ["Confirmed.", "Same here.", "We decided not to do this."])}
STATUSES = ("Pending", "Processing", "Shipped", "Cancelled")
OPEN_BUGS = ((96, "Slideshow skips portraits", "Emma Stewart"),
             (92, "Upload queue hangs", "Emma Stewart"), (69, "Albums crash", "Mason King"),
             (68, "Tags lost on rename", "Emma Stewart"), (44, "Posters crash", "Mason King"),
             (21, "Guest uploads lose data", "Liam Gray"))  # (number, subject, assignee)
VOTES = {96: 1, 92: 5, 68: 2, 21: 3, 69: 0, 44: 4}  # an open bug's votes (?votes=1)
STOCK = {5: 140, 140: 70, 141: 12}  # units in stock, shown in unlabelled number fields
# Each project's roadmap: (version, how late, due date), in the order it lists them.
ROADMAPS = {"harbor": (("1.2", "over 2 years", "2024-04-21"),
                       ("1.3", "over 2 years", "2024-07-20")),
            "tidewatch": (("2.0", "", "2024-10-28"),  # no issues: its date alone
                          ("1.1", "almost 3 years", "2023-12-02"))}
# A forum's topics: their posts, (author, text), the opening post first.
TOPICS = {12: ("Help: my compost pile is cold", [
              ("salty_heron", "My compost pile is cold. What would you do?"),
              ("quiet_reader", "Turn it every week."), ("tidy_kettle", "Add more greens."),
              ("windy_pilot", "Which bin do you have?")]),
          13: ("Advice needed: my bread is soggy", [
              ("misty_nomad", "My bread is soggy. Any tips?"),
              ("urban_gardener", "Bake it ten minutes longer."),
              ("clever_fox", "A hotter oven helped me.")])}
# What the site's search finds besides products, as Redmine lists it: an issue's link
# ends with its subject; a commit's link mentions an issue's subject and then "(refs #N)".
FOUND = {30: "Bug #30 (New): Link expiry is very slow for albums with videos",
         208: "Feature #208 (In Progress): E-mail notifications crash when the mail server "
              "rejects the sender"}
COMMITS = ["Revision 1a2b3c4d (tidewatch): E-mail notifications crash when the mail server "
           "rejects the sender (refs #208)"]


# A customer's orders, newest first: (number, items, (year, month, day)). January 2026
# has three orders, and the fourth row's items happen to be 3 too; March 2025's order
# is no order of March 2026; no order was placed in July.
ORDERS = ((118, 2, (2026, 6, 25)), (117, 1, (2026, 3, 31)), (116, 4, (2026, 3, 14)),
          (115, 3, (2026, 2, 22)), (114, 1, (2026, 1, 31)), (113, 6, (2026, 1, 26)),
          (112, 2, (2026, 1, 22)), (111, 5, (2025, 3, 9)))
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")
DJANGO_MONTHS = ("Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.",
                 "Oct.", "Nov.", "Dec.")


def orders_in(year: int, month: int) -> int:
    return sum(1 for _, _, (y, m, _) in ORDERS if (y, m) == (year, month))


def written(date: tuple[int, int, int], style: str) -> str:
    """A date as a site writes it: Django's default ("Jan. 22, 2026, 2:50 p.m."), ISO,
    or the day first ("22 January 2026")."""
    year, month, day = date
    if style == "iso":
        return f"{year}-{month:02d}-{day:02d}"
    if style == "day":
        return f"{day} {MONTH_NAMES[month - 1]} {year}"
    return f"{DJANGO_MONTHS[month - 1]} {day}, {year}, 2:50 p.m."


SEARCH = {"role": "textbox", "name": "Search"}


def searched(text: str) -> list[dict]:
    """Plan steps: ``text`` typed into the site's search box, then Enter."""
    return [{"fill": SEARCH, "value": text}, {"press": SEARCH, "key": "Enter"}]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@dataclass
class AppState:
    orders: dict[int, str] = field(default_factory=lambda: {1: "Pending", 2: "Pending"})
    issues: list[tuple[str, str]] = field(default_factory=list)  # (project, subject)
    comments: dict[int, list[str]] = field(default_factory=dict)  # issue -> comments


def _page(title: str, body: str) -> bytes:
    return (f"<!doctype html><html><head><title>{html.escape(title)}</title></head>"
            f"<body><nav><a href='/'>Home</a></nav><main>{body}</main></body></html>"
            ).encode()


def handler(state: AppState, kind: str):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _send(self, status: int, body: bytes = b"", location: str | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            path, query = unquote(parts.path), parse_qs(parts.query)
            page = (self._trac(path) if kind == "trac" else self._store(path, query))
            if page is None:
                self._send(404, _page("Not found", "<h1>Not found</h1>"))
            else:
                self._send(200, _page(*page))

        def _trac(self, path: str) -> tuple[str, str] | None:
            if m := re.fullmatch(r"/ticket/(\d+)", path):
                title = TICKETS.get(int(m.group(1)))
                if title:
                    return (f"#{m.group(1)}", f"<h1>{html.escape(title)}</h1>"
                            f"<p>Reported by: <a href='/'>Emma Stewart</a></p>")
            return ("Trac", "<h1>Trac</h1>") if path == "/" else None

        def _store(self, path: str, query: dict) -> tuple[str, str] | None:
            if path.startswith("/forum/"):
                return self._forum(path, query)
            if path == "/":
                return ("Store", "<h1>Store</h1><form action='/search'>"
                        "<input name='q' aria-label='Search'><button>Search</button></form>")
            if path == "/catalogue/" or path.startswith("/catalogue/category/"):
                return self._category(path)
            if (m := re.fullmatch(r"/bugs/(\d+)", path)) and int(m.group(1)) in BUGS:
                reporter, related, comments = BUGS[int(m.group(1))]
                links = "".join(f"<li><a href='/'>Bug #{n}</a></li>" for n in range(related))
                notes = "".join(f"<h4>Updated by <a href='/'>Liam Gray</a></h4>"
                                f"<p>{html.escape(c)}</p>" for c in comments)
                return (f"Bug #{m.group(1)}", f"<h1>Bug #{m.group(1)}</h1><ul>{links}</ul>"
                        f"<p>Added by <a href='/'>{reporter}</a> <a href='/'>2 years</a>"
                        f" ago.</p><h3>History</h3>{notes}<p><a href='/'>Atom</a></p>")
            if path == "/search":
                want = query.get("q", [""])[0].lower()
                items = "".join(f"<li><a href='/catalogue/{slug(n)}_{i}/'>{html.escape(n)}"
                                "</a></li>" for i, (n, _) in PRODUCTS.items()
                                if want and want in n.lower())
                found = [(f"/commits/{n}", c) for n, c in enumerate(COMMITS)] + [
                    (f"/issues/{n}", text) for n, text in FOUND.items()]
                terms = "".join(f"<dt><a href='{url}'>{html.escape(text)}</a></dt>"
                                for url, text in found if want and want in text.lower())
                return ("Results", f"<h1>Results</h1><h2>Products</h2><ul>{items}</ul>"
                        f"<dl>{terms}</dl>")
            if m := re.fullmatch(r"/catalogue/([a-z0-9-]+)_(\d+)/", path):
                name, price = PRODUCTS.get(int(m.group(2)), ("", ""))
                if name and slug(name) == m.group(1):
                    return (name, f"<h1>{html.escape(name)}</h1><table><tr><th>Price</th>"
                            f"<td>{price}</td></tr></table><button>Add to basket</button>"
                            f"<a href='{path}stock'>Stock and pricing</a>")
            if m := re.fullmatch(r"/catalogue/([a-z0-9-]+)_(\d+)/stock", path):
                name, price = PRODUCTS.get(int(m.group(2)), ("", ""))
                if name and slug(name) == m.group(1):  # fields as Oscar's dashboard draws them
                    fields = (f"<td>Warehouse</td><td><input type='number' "
                              f"value='{STOCK[int(m.group(2))]}'></td><td><input "
                              f"type='number' value='{price.strip('$')}'></td>")
                    return (name, f"<h1>{html.escape(name)}</h1><table><thead><tr>"
                            "<th>Partner</th><th>Num in stock</th><th>Price</th></tr></thead>"
                            f"<tbody><tr>{fields}</tr><tr><td></td><td><input type='number'>"
                            "</td><td><input type='number'></td></tr></tbody></table>")
            if path == "/account/orders":  # as a table; in the "day" style, as a list
                style = query.get("style", ["django"])[0]
                if style == "day":
                    items = "".join(f"<li><a href='/'>Order {n}</a> placed on "
                                    f"{written(d, style)}: {k} items</li>"
                                    for n, k, d in ORDERS)
                    return ("Order history", f"<h1>Order history</h1><ul>{items}</ul>")
                rows = "".join(f"<tr><td><a href='/'>{n}</a></td><td>{k}</td>"
                               f"<td>{written(d, style)}</td></tr>" for n, k, d in ORDERS)
                return ("Order history", "<h1>Order history</h1><table><tr><th>Order number"
                        f"</th><th>Items</th><th>Date placed</th></tr>{rows}</table>")
            if path == "/bugs/open":  # sorted by assignee when asked (?sort=assigned_to)
                bugs = sorted(OPEN_BUGS, key=lambda b: b[2]) if query.get("sort") else OPEN_BUGS
                votes = bool(query.get("votes"))  # a column of votes when asked
                rows = "".join(f"<tr><td><a href='/bugs/{n}'>{n}</a></td><td>{s}</td>"
                               f"<td><a href='/'>{who}</a></td>"
                               + (f"<td>{VOTES[n]}</td>" if votes else "") + "</tr>"
                               for n, s, who in bugs)
                return ("Open bugs", "<h1>Open bugs</h1><table><tr><th>#</th><th>Subject"
                        "</th><th>Assignee</th>" + ("<th>Votes</th>" if votes else "") +
                        f"</tr>{rows}</table>")
            if (m := re.fullmatch(r"/projects/([a-z]+)/roadmap", path)) and \
                    m.group(1) in ROADMAPS:
                sections = "".join(f"<h3>{v}</h3><p>{f'{late} late ({due})' if late else due}</p>"
                                   f"<p>Development of {v}.</p>"
                                   for v, late, due in ROADMAPS[m.group(1)])
                return ("Roadmap", f"<h2>Roadmap</h2>{sections}")
            if path == "/projects":
                items = "".join(f"<li><a href='/projects/{key}'>{name}</a> {name} is a "
                                f"project with {len(key)} modules and its own roadmap.</li>"
                                for key, (name, _) in PROJECTS.items())
                return ("Projects", f"<h1>Projects</h1><ul>{items}</ul>")
            if (m := re.fullmatch(r"/projects/([a-z]+)", path)) and m.group(1) in PROJECTS:
                name, manager = PROJECTS[m.group(1)]
                rows = "".join(f"<tr><td><a href='/'>{kind}</a></td><td><a href='/'>{o}</a></td>"
                               f"<td><a href='/'>{c}</a></td></tr>" for kind, (o, c) in
                               zip(("Bug", "Feature", "Support"), OPEN_CLOSED[m.group(1)],
                                   strict=True))
                return (name, f"<h1>{name}</h1><p>Manager: <a href='/'>{manager}</a></p>"
                        f"<a href='/projects/{m.group(1)}/issues/new'>New issue</a>"
                        "<h3>Issue tracking</h3><table><tr><th></th><th>open</th>"
                        f"<th>closed</th></tr>{rows}</table>")
            if (m := re.fullmatch(r"/projects/([a-z]+)/issues/new", path)) and \
                    m.group(1) in PROJECTS:
                return ("New issue", "<h2>New issue</h2><form method='post'>"
                        "<label>Subject <input name='subject'></label>"
                        "<button>Create</button></form>")
            if m := re.fullmatch(r"/issues/(\d+)", path):
                number = int(m.group(1))
                subject = (state.issues[number - 1][1] if 0 < number <= len(state.issues)
                           else FOUND[number].split(": ", 1)[1] if number in FOUND
                           else f"Issue {number}")
                # "#93" in a comment is a link, as Redmine renders it: the tree shows the
                # comment in pieces.
                notes = "".join("<p>" + re.sub(r"#(\d+)", r"<a href='/issues/\1'>#\1</a>",
                                                html.escape(n)) + "</p>"
                                for n in state.comments.get(number, []))
                return (f"Issue {number}", f"<h1>{html.escape(subject)}</h1>{notes}"
                        "<form method='post'><label>Comment <textarea name='comment'>"
                        "</textarea></label><button>Submit</button></form>")
            if m := re.fullmatch(r"/orders/(\d+)/", path):
                number = int(m.group(1))
                if number in state.orders:
                    now = state.orders[number]
                    choices = [s for s in STATUSES if s != now]
                    options = "".join(f"<option>{s}</option>" for s in choices)
                    shown = choices[0]  # named by the choice it shows, as a widget does
                    return (f"Order {number}", f"<h1>Order {number}</h1>"
                            f"<p>Status: {now}</p><h3>Change order status:</h3>"
                            f"<form method='post'><select name='status' aria-label='{shown}'>"
                            f"{options}</select>"
                            "<button>Change status</button></form>")
            return None

        def _forum(self, path: str, query: dict) -> tuple[str, str] | None:
            """A forum as Spirit draws it: a front page numbered in pages, a search, and
            topics whose posts each show the poster's initial, name and text."""
            def listed(ids) -> str:
                return "".join(f"<li><a href='/forum/topic/{i}/{slug(TOPICS[i][0])}/'>"
                               f"{html.escape(TOPICS[i][0])}</a></li>" for i in ids)

            if path == "/forum/":
                pages = "".join(f"<a href='/forum/?page={n}'>{n}</a> " for n in (2, 3, 4))
                return ("Forum", "<h1>Forum</h1><form action='/forum/search'>"
                        "<input name='q' aria-label='Search'><button>Search</button></form>"
                        f"<ul>{listed(TOPICS)}</ul><nav>{pages}</nav>")
            if path == "/forum/search":
                want = query.get("q", [""])[0].lower()
                found = [i for i, (title, _) in TOPICS.items() if want and want in title.lower()]
                return ("Results", f"<h1>Results</h1><ul>{listed(found)}</ul>")
            m = re.fullmatch(r"/forum/topic/(\d+)/([a-z0-9-]+)/", path)
            if m and int(m.group(1)) in TOPICS:
                title, posts = TOPICS[int(m.group(1))]
                body = "".join(f"<span>{a[0].upper()}</span><a href='/forum/'>{a}</a>"
                               f"<p>{html.escape(text)}</p>" for a, text in posts)
                return (title, f"<h1>{html.escape(title)}</h1>{body}")
            return None

        def _category(self, path: str) -> tuple[str, str] | None:
            """Every category page shows the tree of categories; the page's own name is
            its heading."""
            tree, names = "", {"/catalogue/": "All products"}
            for (top, top_id), subs in CATEGORIES.items():
                top_url = f"/catalogue/category/{slug(top)}_{top_id}/"
                names[top_url] = top
                items = ""
                for sub, sub_id in subs:
                    url = f"/catalogue/category/{slug(top)}/{slug(sub)}_{sub_id}/"
                    names[url] = sub
                    items += f"<li><a href='{url}'>{html.escape(sub)}</a></li>"
                tree += (f"<li><a href='{top_url}'>{html.escape(top)}</a>"
                         f"<ul>{items}</ul></li>")
            if path not in names:
                return None
            return (names[path], f"<h1>{html.escape(names[path])}</h1>"
                    f"<h4>Show results for</h4><ul>{tree}</ul>")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = parse_qs(self.rfile.read(length).decode())
            path = urlsplit(self.path).path
            if m := re.fullmatch(r"/projects/([a-z]+)/issues/new", path):
                state.issues.append((m.group(1), form.get("subject", [""])[0]))
                return self._send(303, location=f"/issues/{len(state.issues)}")
            if m := re.fullmatch(r"/issues/(\d+)", path):
                state.comments.setdefault(int(m.group(1)), []).append(
                    form.get("comment", [""])[0])
                return self._send(303, location=path)
            if m := re.fullmatch(r"/orders/(\d+)/", path):
                state.orders[int(m.group(1))] = form.get("status", [""])[0]
                return self._send(303, location=path)
            self._send(404)

    return Handler


class SiblingSites:
    """Both sites running; ``store`` and ``trac`` are their base addresses."""

    def __init__(self) -> None:
        self.state = AppState()
        self._servers = [start_loopback(handler(self.state, kind)) for kind in ("store", "trac")]
        self.store, self.trac = (f"http://127.0.0.1:{s.server_address[1]}"
                                 for s in self._servers)

    def close(self) -> None:
        for server in self._servers:
            stop_loopback(server)
