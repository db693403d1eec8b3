"""Write the benchmark corpus: deterministic, self-contained HTML pages.

The pages are committed, so every run measures the same bytes; re-run this script
after changing it (a test checks the committed files match its output).

    python benchmarks/corpus/generate.py
"""

from __future__ import annotations

import html
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent


def _words(text: str) -> list[str]:
    return text.split()


WORDS = _words(
    "account address agent answer archive basket billing browser budget calendar catalogue "
    "change checkout city colour comment company contact country customer dashboard delivery "
    "discount document editor email entry export feature filter folder garden history invoice "
    "issue journal kitchen label language ledger library market member message method metric "
    "network notice number office order owner package partner payment picture plan policy "
    "portal price product profile project quantity question receipt record region release "
    "report request review river route schedule search season section server service "
    "setting shipping signal station status storage store summary supplier support survey "
    "system table ticket timeline total travel update upload user value vendor version "
    "warehouse window winter workflow"
)
FIRST = _words("Ada Bruno Chloe Dario Elena Farid Greta Hugo Ines Jonas Keiko Luca Maya Noor Omar")
LAST = _words("Abbott Bianchi Costa Dubois Eriksen Fischer Garcia Haddad Ito Jensen Kowalski")
STATUSES = ["Active", "Pending", "Suspended", "Archived"]

HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 14px/1.4 sans-serif; margin: 0; }}
header, footer {{ background: #eef; padding: 8px; }}
nav ul {{ display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0; margin: 0; }}
.layout {{ display: flex; gap: 16px; padding: 8px; }}
aside {{ width: 220px; flex: none; }}
main {{ flex: 1; min-width: 0; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 2px 4px; }}
.card {{ border: 1px solid #ddd; margin: 4px 0; padding: 4px; }}
.icon {{ display: inline-block; width: 16px; height: 16px; background: #889; cursor: pointer; }}
iframe {{ border: 1px solid #999; width: 600px; height: 320px; display: block; }}
</style></head>
<body>
"""


def sentence(rng: random.Random, low: int = 8, high: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(sentence(rng) for _ in range(sentences))


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def page(title: str, body: str) -> str:
    return HEAD.format(title=html.escape(title)) + body + "\n</body></html>\n"


def big_page() -> str:
    """A shop catalogue with about 530 controls: header, filters, 90 product rows, footer."""
    rng = random.Random(1)
    nav = "".join(f'<li><a href="#dept{i}">{w.title()}</a></li>'
                  for i, w in enumerate(WORDS[:14]))
    header = (
        "<header><a href='#home'>Home</a> "
        "<form role='search' aria-label='Site search'><input type='search' name='q' "
        "placeholder='Search products'><button>Search</button></form>"
        f"<nav aria-label='Departments'><ul>{nav}</ul></nav>"
        "<a href='#account'>My account</a> <a href='#basket'>Basket (3)</a></header>"
    )
    brands = "".join(
        f"<label><input type='checkbox' name='brand' value='b{i}'> {w.title()} brand</label><br>"
        for i, w in enumerate(WORDS[20:40]))
    prices = "".join(
        f"<label><input type='radio' name='price' value='{i}'> up to ${(i + 1) * 25}</label><br>"
        for i in range(6))
    aside = (
        "<aside><h2>Filters</h2><fieldset><legend>Brand</legend>" + brands + "</fieldset>"
        "<fieldset><legend>Price</legend>" + prices + "</fieldset>"
        "<label>Sort by <select name='sort'><option>Relevance</option><option>Price: low "
        "to high</option><option>Price: high to low</option><option>Newest</option></select>"
        "</label> <button type='button'>Apply filters</button></aside>"
    )
    rows = []
    for i in range(90):
        name = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {i}"
        rows.append(
            f"<tr><td><a href='#p{i}'>{name}</a></td>"
            f"<td>{sentence(rng, 6, 12)} <b>In stock</b>: {rng.randint(0, 90)}</td>"
            f"<td>${rng.randint(3, 400)}.{rng.randint(0, 99):02d}</td>"
            f"<td><input type='number' min='0' aria-label='Quantity of {name}' value='1'></td>"
            f"<td><select aria-label='Size of {name}'><option>S</option><option>M</option>"
            f"<option>L</option><option>XL</option></select></td>"
            f"<td><button type='button'>Add to basket</button> "
            f"<span class='icon' title='Save {name} for later' onclick='void 0'></span></td></tr>"
        )
    table = (
        "<table><caption>Products</caption><thead><tr><th>Product</th><th>Details</th>"
        "<th>Price</th><th>Quantity</th><th>Size</th><th>Actions</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    pages = "".join(f"<a href='#page{i}'>{i}</a> " for i in range(1, 11))
    notes = "".join(f"<h3>{w.title()} notes</h3><p>{paragraph(rng, 3)}</p>"
                    for w in WORDS[50:56])
    main = (f"<main><h1>Catalogue</h1><p>{paragraph(rng, 2)}</p>{table}"
            f"<nav aria-label='Pages'>{pages}<a href='#next'>Next</a></nav>{notes}</main>")
    footer_links = "".join(f"<li><a href='#f{i}'>{w.title()}</a></li>"
                           for i, w in enumerate(WORDS[60:80]))
    footer = (f"<footer><nav aria-label='Footer'><ul>{footer_links}</ul></nav>"
              "<p>Copyright 2024 Example Shop Ltd.</p></footer>")
    return page("Catalogue - Example Shop",
                header + f"<div class='layout'>{aside}{main}</div>" + footer)


def article_page() -> str:
    """A long article: about 5,000 words of text with headings, lists, figures and notes."""
    rng = random.Random(2)
    sections = [w.title() for w in rng.sample(WORDS, 14)]
    toc = "".join(f"<li><a href='#s{i}'>{s}</a></li>" for i, s in enumerate(sections))
    parts = [
        "<header><a href='#home'>The Daily Ledger</a> <nav aria-label='Main'><ul>"
        + "".join(f"<li><a href='#{w}'>{w.title()}</a></li>" for w in WORDS[:8])
        + "</ul></nav></header>",
        "<main><article><h1>How a small " + sections[0].lower() + " team rebuilt its "
        + sections[1].lower() + "</h1>",
        f"<p>By <a href='#author'>{person(rng)}</a>, <time datetime='2024-05-02'>2 May 2024"
        "</time></p>",
        f"<nav aria-label='Contents'><h2>Contents</h2><ol>{toc}</ol></nav>",
    ]
    for i, title in enumerate(sections):
        parts.append(f"<section id='s{i}'><h2>{title}</h2>")
        for _ in range(rng.randint(3, 5)):
            s1, s2, s3 = sentence(rng), sentence(rng), sentence(rng)
            link = rng.choice(WORDS)
            parts.append(f"<p>{s1} <em>{sentence(rng, 3, 5)}</em> {s2} See the "
                         f"<a href='#{link}'>{link} guide</a> for <strong>more</strong>. "
                         f"{s3} Use <code>{link}_id</code> here.</p>")
        if i % 3 == 0:
            items = "".join(f"<li>{sentence(rng, 4, 9)}</li>" for _ in range(5))
            parts.append(f"<ul>{items}</ul>")
        if i % 4 == 1:
            parts.append(f"<blockquote><p>{sentence(rng)}</p><p>- {person(rng)}</p></blockquote>")
        if i % 5 == 2:
            parts.append(
                "<figure><img alt='Chart of " + title.lower() + " by month' width='300' "
                "height='120' src='data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg"
                "%22 width=%22300%22 height=%22120%22%3E%3Crect width=%22300%22 height=%22120%22"
                " fill=%22%23cde%22/%3E%3C/svg%3E'>"
                f"<figcaption>Figure {i}: {sentence(rng, 5, 9)}</figcaption></figure>")
        if i == 6:
            rows = "".join(f"<tr><th scope='row'>{w.title()}</th><td>{rng.randint(1, 999)}</td>"
                           f"<td>{rng.randint(1, 99)}%</td></tr>" for w in WORDS[30:38])
            parts.append("<table><caption>Results by region</caption><thead><tr><th>Region"
                         f"</th><th>Orders</th><th>Growth</th></tr></thead>{rows}</table>")
        if i == 9:
            parts.append("<pre><code>def total(order):\n    return sum(line.price for line in "
                         "order.lines)\n</code></pre>")
        parts.append("</section>")
    notes = "".join(f"<li id='n{i}'>{sentence(rng, 6, 12)} <a href='#ref{i}'>Back</a></li>"
                    for i in range(6))
    parts.append(f"<section aria-label='Notes'><h2>Notes</h2><ol>{notes}</ol></section>")
    comments = "".join(f"<div class='card'><p><b>{person(rng)}</b> wrote:</p><p>"
                       f"{paragraph(rng, 2)}</p><button type='button'>Reply</button> "
                       "<button type='button' aria-pressed='false'>Like</button></div>"
                       for _ in range(5))
    parts.append(
        f"</article><section aria-label='Comments'><h2>Comments</h2>{comments}"
        "<form><label for='c'>Your comment</label><br><textarea id='c' rows='3' cols='60'>"
        "</textarea><br><label><input type='checkbox'> Notify me of replies</label> "
        "<button>Post comment</button></form></section></main>")
    parts.append("<footer><p>The Daily Ledger. <a href='#privacy'>Privacy</a> "
                 "<a href='#terms'>Terms</a></p></footer>")
    return page("How a small team rebuilt its system - The Daily Ledger", "\n".join(parts))


def table_page() -> str:
    """A 300-row data grid with a checkbox, a link, an input and a select on every row."""
    rng = random.Random(3)
    rows = []
    for i in range(300):
        name = person(rng)
        email = name.lower().replace(" ", ".") + f"{i}@example.org"
        status = rng.choice(STATUSES)
        opts = "".join(f"<option{' selected' if s == status else ''}>{s}</option>"
                       for s in STATUSES)
        rows.append(
            f"<tr><td><input type='checkbox' aria-label='Select row {i + 1}'></td>"
            f"<td>{1000 + i}</td><td><a href='#u{i}'>{name}</a></td><td>{email}</td>"
            f"<td><select aria-label='Status of {name}'>{opts}</select></td>"
            f"<td><input type='text' aria-label='Notes for {name}' "
            f"value='{rng.choice(WORDS) if i % 3 == 0 else ''}'></td>"
            f"<td>{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/2024</td></tr>")
    heads = "".join(f"<th><button type='button' aria-label='Sort by {h}'>{h}</button></th>"
                    for h in ("ID", "Name", "Email", "Status", "Notes", "Joined"))
    body = (
        "<header><a href='#home'>Admin</a> / <a href='#users'>Users</a></header><main>"
        "<h1>Users</h1><div role='toolbar' aria-label='Bulk actions'>"
        "<label>With selected <select><option>Activate</option><option>Suspend</option>"
        "<option>Delete</option></select></label> <button type='button'>Apply</button> "
        "<input type='search' aria-label='Filter users' placeholder='Filter'></div>"
        "<table><caption>300 users</caption><thead><tr><th><input type='checkbox' "
        f"aria-label='Select all'></th>{heads}</tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table><nav aria-label='Pagination'><a href='#prev'>Previous</a> Page 1 of 4 "
        "<a href='#next'>Next</a></nav></main>"
    )
    return page("Users - Admin", body)


def admin_page() -> str:
    """A settings form with every kind of native control, states, hints and errors."""
    rng = random.Random(4)

    def field(label: str, control: str, hint: str | None = None, fid: str = "") -> str:
        hint_html = f"<small id='{fid}-hint'>{hint}</small>" if hint else ""
        return f"<p><label for='{fid}'>{label}</label><br>{control}{hint_html}</p>"

    tabs = "".join(
        f"<button role='tab' aria-selected='{'true' if i == 0 else 'false'}' "
        f"aria-controls='panel'>{t}</button>"
        for i, t in enumerate(["General", "Security", "Notifications", "Billing", "Advanced"]))
    countries = "".join(f"<option>{w.title()}land</option>" for w in WORDS[:30])
    roles = "".join(
        f"<optgroup label='{g}'>" + "".join(f"<option>{g} {w}</option>"
                                            for w in rng.sample(WORDS, 4)) + "</optgroup>"
        for g in ("Staff", "Partners", "Guests"))
    general = "".join([
        field("Site name", "<input id='name' value='Example Shop' required "
              "aria-describedby='name-hint'>", "Shown in the browser title.", "name"),
        field("Contact email", "<input id='email' type='email' value='shop@' "
              "aria-invalid='true' aria-describedby='email-hint'>",
              "Enter a full email address.", "email"),
        field("Password", "<input id='pw' type='password' value='s3cret-pass'>", None, "pw"),
        field("Phone", "<input id='tel' type='tel' placeholder='+33 1 23 45 67 89'>", None, "tel"),
        field("Website", "<input id='url' type='url' value='https://shop.example'>", None, "url"),
        field("Staff limit", "<input id='limit' type='number' min='1' max='500' value='25'>",
              None, "limit"),
        field("Opening date", "<input id='open' type='date' value='2024-03-15'>", None, "open"),
        field("Daily report at", "<input id='at' type='time' value='07:30'>", None, "at"),
        field("Brand colour", "<input id='colour' type='color' value='#3366cc'>", None,
              "colour"),
        field("Discount level", "<input id='disc' type='range' min='0' max='50' value='10'>",
              None, "disc"),
        field("Logo", "<input id='logo' type='file'>", None, "logo"),
        field("Country", f"<select id='country'>{countries}</select>", None, "country"),
        field("Default roles", f"<select id='roles' multiple size='5'>{roles}</select>",
              None, "roles"),
        field("Description", "<textarea id='desc' rows='4' cols='50'>"
              f"{sentence(rng)}</textarea>", None, "desc"),
        field("Store ID", "<input id='sid' value='SH-0042' readonly>", None, "sid"),
        field("Legacy key", "<input id='legacy' value='old-key' disabled>", None, "legacy"),
    ])
    channels = "".join(
        f"<label><input type='checkbox' name='ch' {'checked' if i % 2 == 0 else ''}> "
        f"{w.title()} alerts</label><br>" for i, w in enumerate(WORDS[10:22]))
    freq = "".join(f"<label><input type='radio' name='freq' {'checked' if f == 'Weekly' else ''}>"
                   f" {f}</label> " for f in ("Daily", "Weekly", "Monthly", "Never"))
    switches = "".join(
        f"<p><span id='sw{i}'>{w.title()} mode</span> <button type='button' role='switch' "
        f"aria-checked='{'true' if i % 2 else 'false'}' aria-labelledby='sw{i}'>"
        f"{'On' if i % 2 else 'Off'}</button></p>" for i, w in enumerate(WORDS[40:46]))
    members = "".join(
        f"<tr><td>{person(rng)}</td><td>{rng.choice(['Owner', 'Editor', 'Viewer'])}</td>"
        f"<td><button type='button'>Edit</button> <button type='button'>Remove</button></td>"
        "</tr>" for _ in range(12))
    body = (
        "<header><a href='#home'>Example Shop admin</a> <nav aria-label='Admin'><ul>"
        + "".join(f"<li><a href='#{w}'>{w.title()}</a></li>" for w in WORDS[:10])
        + "</ul></nav><button type='button' aria-haspopup='menu' aria-expanded='false'>"
        "Account menu</button></header>"
        "<div class='layout'><aside><nav aria-label='Settings sections'><ul>"
        + "".join(f"<li><a href='#set-{w}'>{w.title()}</a></li>" for w in WORDS[80:92])
        + "</ul></nav></aside><main><h1>Store settings</h1>"
        f"<div role='tablist' aria-label='Settings'>{tabs}</div>"
        "<form id='panel' role='tabpanel' aria-label='General'>"
        f"<fieldset><legend>Store</legend>{general}</fieldset>"
        f"<fieldset><legend>Notifications</legend>{channels}<p>Digest: {freq}</p></fieldset>"
        f"<fieldset><legend>Features</legend>{switches}</fieldset>"
        "<details><summary>Advanced options</summary><p><label><input type='checkbox'> "
        "Maintenance mode</label></p></details>"
        f"<h2>Team</h2><table><thead><tr><th>Name</th><th>Role</th><th>Actions</th></tr>"
        f"</thead><tbody>{members}</tbody></table>"
        "<p><button>Save changes</button> <button type='reset'>Reset</button> "
        "<a href='#cancel'>Cancel</a></p></form>"
        "<div role='alert'>Contact email: enter a full email address.</div>"
        "<dialog open aria-labelledby='dlg-t'><h2 id='dlg-t'>Unsaved changes</h2>"
        "<p>You have unsaved changes.</p><button type='button'>Keep editing</button> "
        "<button type='button'>Discard</button></dialog></main></div>"
    )
    return page("Store settings - Admin", body)


def frame_pages() -> dict[str, str]:
    """A page with three same-origin iframes, one of them nested two levels deep."""
    rng = random.Random(5)
    login = page("Sign in", (
        "<h1>Sign in</h1><form><p><label>Email <input type='email' name='e'></label></p>"
        "<p><label>Password <input type='password' name='p'></label></p>"
        "<p><label><input type='checkbox'> Remember me</label></p>"
        "<button>Sign in</button> <a href='#forgot'>Forgot password?</a></form>"))
    news_items = "".join(f"<li><a href='#n{i}'>{sentence(rng, 4, 8)}</a></li>" for i in range(15))
    news = page("News", (
        f"<h2>Latest news</h2><ul>{news_items}</ul>"
        "<iframe src='frame-widget.html' title='Weather widget' style='height:120px'></iframe>"))
    widget = page("Weather", (
        "<p>Lyon: 21 degrees, light rain.</p><button type='button'>Refresh</button> "
        "<select aria-label='City'><option>Lyon</option><option>Paris</option></select>"))
    cards = "".join(f"<div class='card'><h3>{w.title()}</h3><p>{sentence(rng)}</p>"
                    f"<a href='#{w}'>Open {w}</a></div>" for w in WORDS[:8])
    top = page("Portal with frames", (
        "<header><a href='#home'>Portal</a> <input type='search' aria-label='Search portal'>"
        "</header><main><h1>Welcome back</h1>"
        "<iframe src='frame-login.html' title='Sign-in form'></iframe>"
        f"<section aria-label='Cards'>{cards}</section>"
        "<iframe src='frame-news.html' title='News feed'></iframe>"
        "<iframe srcdoc=\"<p>Inline frame text</p><button>Inline button</button>\" "
        "title='Inline frame' style='height:80px'></iframe></main>"))
    return {"frames.html": top, "frame-login.html": login, "frame-news.html": news,
            "frame-widget.html": widget}


def pages() -> dict[str, str]:
    out = {"big.html": big_page(), "article.html": article_page(), "table.html": table_page(),
           "admin.html": admin_page()}
    out.update(frame_pages())
    return out


def main() -> int:
    for name, text in pages().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {name} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
