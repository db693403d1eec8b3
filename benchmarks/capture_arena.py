"""The sessions of ``capture.py`` on the arena's real apps: Trac's new-ticket form and
ticket page, MediaWiki's editor and search, Redmine's issue form, Spirit's topic and
reply forms, Oscar's storefront and dashboard.

Every expected action here was written by hand from the page (its fields' labels as
the observation names them) before the normaliser ever ran on these sessions, and they
are the held-out part of the corpus, except three kinds marked ``revised``: a comment on a
Trac ticket, whose labels gained the person's scroll after the first run (the scripted
person had reached the field by Playwright's own scrolling, which no person does, and
now uses the wheel), MediaWiki's search, labelled on the header's search box
(searchbox) when the field the page focuses, and the person types in, is its own
(combobox), and Trac's keywords with Tab away, whose labels gained the scroll the
second Tab makes (it focuses the radio of the form's action, below the window, so the
browser scrolls the page to its end, 354 px): the person sees another part of the
page, which is a scroll, though no wheel made it.
Selectors are the apps' own ids, so the scripted person finds the field a person would;
the labels name the field as the agent sees it (role 'name').
"""

from __future__ import annotations

from collections.abc import Callable

from capture_sessions import Person, Session

TICKET = "/ticket/5"
TOPIC = "/topic/577/advice-needed-my-night-train-plan-is-getting-expensive/"
PRODUCT = "/catalogue/hearth-fireside-merino-sweater-charcoal-m_41/"
NEW_ISSUE = "/projects/harbor/issues/new"
WIKI_EDIT = "/index.php?title=Sandbox&action=edit"
WIKI_SEARCH = "/index.php?title=Special:Search"
USERS = {"trac": "hugo", "wiki": "Emma", "tracker": "leah", "forum": "clever_fox",
         "shop": "priya"}


def fill(role: str, name: str, value: str) -> str:
    return f"fill({role} {name!r}, {value!r})"


def act(verb: str, role: str, name: str, *rest: str) -> str:
    more = "".join(f", {r!r}" for r in rest)
    return f"{verb}({role} {name!r}{more})"


def arena_sessions() -> list[Session]:
    """Thirty-one kinds of session on five apps, three variants each. Selects are
    chosen by keys (arrows, or typing an option's first letters): headless Chromium
    draws a select's list outside the page, where no mouse event can reach it, and a
    scripted ``select_option`` is no person's input (the capture ignores it)."""
    out: list[Session] = []

    def add(kind: str, app: str, start: str, do: Callable[[Person], None],
            expected: list[str], *, writes: bool = False, user: str = "",
            revised: bool = False) -> None:
        # ``revised``: labels changed after a run (not held out any more).
        n = sum(s.kind == kind for s in out) + 1
        out.append(Session(f"{kind}-{n}", kind, do, expected, start=start, app=app,
                           user=user or USERS[app], writes=writes, heldout=not revised))

    summaries = ["Thumbnails blur on zoom", "Import stalls at 99%", "Share link expires early"]
    notes = [("First line", "second line"), ("Steps:", "open album"), ("Seen on", "build 7")]
    words = ["panorama", "importer", "rotate"]
    dates = [("12", "24", "2026"), ("01", "05", "2027"), ("03", "15", "2027")]
    for v in range(3):
        summary, (top, bottom), word, (mm, dd, yy) = summaries[v], notes[v], words[v], dates[v]
        two = f"{top}\n{bottom}"

        # -- Trac: the new-ticket form --------------------------------------------
        def trac_typed(p, summary=summary, v=v):
            p.click("#field-summary")
            p.type(summary, typos=v)
        add("trac: summary with typos", "trac", "/newticket", trac_typed,
            [fill("textbox", "Summary:", summary)])

        def trac_lines(p, top=top, bottom=bottom, v=v):
            p.click("#field-description")
            p.type(top, typos=1)
            p.page.keyboard.press("Enter" if v != 1 else "Shift+Enter")
            p.type(bottom, typos=0)
        add("trac: description on two lines", "trac", "/newticket", trac_lines,
            [fill("textbox", "Description: You may use WikiFormatting here.", two)])

        def trac_keys(p, v=v):
            p.page.focus("#field-priority")
            p.press(*(["ArrowDown"] * (v + 1) if v < 2 else ["ArrowUp"]))
        add("trac: priority by arrow keys", "trac", "/newticket", trac_keys,
            [act("select_option", "combobox", "Priority:",
                 ("minor", "trivial", "critical")[v])])

        def trac_typeahead(p, v=v):
            p.page.focus("#field-component")
            p.type(("im", "sh", "we")[v], typos=0)
            p.pause()
        add("trac: component by typing its name", "trac", "/newticket", trac_typeahead,
            [act("select_option", "combobox", "Component:",
                 ("importer", "sharing", "web ui")[v])])

        def trac_enter(p, summary=summary):
            p.click("#field-summary")
            p.type(summary, typos=1)
            p.page.keyboard.press("Enter")
            p.page.wait_for_load_state()
        add("trac: Enter in the summary (preview)", "trac", "/newticket", trac_enter,
            [fill("textbox", "Summary:", summary), act("press", "textbox", "Summary:", "Enter")])

        def trac_create(p, summary=summary, v=v):
            p.click("#field-summary")
            p.type(summary, typos=1)
            p.page.focus("#field-type")
            p.type(("en", "ta", "e")[v], typos=0)
            p.pause()
            p.click("input[name=submit]")
            p.page.wait_for_url("**/ticket/*")
        add("trac: create a ticket", "trac", "/newticket", trac_create,
            [fill("textbox", "Summary:", summary),
             act("select_option", "combobox", "Type:", ("enhancement", "task", "enhancement")[v]),
             act("click", "button", "Create ticket")], writes=True)

        def trac_tab_keywords(p, word=word):
            p.click("#field-keywords")
            p.type(word, typos=0)
            p.press("Tab", "Tab")
        add("trac: keywords, Tab away", "trac", "/newticket", trac_tab_keywords,
            [fill("textbox", "Keywords:", word), "scroll(0, 354)"], revised=True)

        def trac_reload(p, word=word, v=v):
            p.click("#field-keywords")
            p.type(word, typos=1)
            p.page.wait_for_timeout(300 * (1 + v))
            p.page.reload()
            p.pause()
        add("trac: reload after typing", "trac", "/newticket", trac_reload,
            [fill("textbox", "Keywords:", word), "goto('{base}/newticket')"])

        # -- Trac: a ticket page and the header -------------------------------------
        def trac_comment(p, top=top, v=v):
            p.scroll(150, 6)  # down to the form, as a person would, before clicking
            p.click("#comment")
            p.type(top, typos=v)
        add("trac: comment on a ticket", "trac", TICKET, trac_comment,
            ["scroll(0, 900)", fill("textbox", "You may use WikiFormatting here.", top)],
            revised=True)

        def trac_space(p):
            p.page.focus("role=checkbox[name='Show comments']")
            p.press("Space")
        add("trac: untick by Space", "trac", TICKET, trac_space,
            [act("uncheck", "checkbox", "Show comments")])

        def trac_search(p, word=word):
            p.click("#proj-search")
            p.type(word, typos=1)
            p.page.keyboard.press("Enter")
            p.page.wait_for_url("**/search*")
        add("trac: header search + Enter", "trac", TICKET, trac_search,
            [fill("textbox", "Search:", word), act("press", "textbox", "Search:", "Enter")])

        def trac_middle(p):
            with p.page.context.expect_page() as opened:
                p.page.click("#mainnav a:has-text('Timeline')", button="middle")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
        add("trac: middle click in the menu", "trac", TICKET, trac_middle,
            [act("click", "link", "Timeline", "middle")])

        def trac_back(p):
            p.click("#mainnav a:has-text('Roadmap')")
            p.page.wait_for_url("**/roadmap")
            p.pause(300, 500)
            p.page.go_back()
            p.pause(200, 300)
        add("trac: link, then back", "trac", TICKET, trac_back,
            [act("click", "link", "Roadmap"), "go_back()"])

        def trac_scroll(p, v=v):
            p.scroll(100, 3 + v)
        add("trac: scroll a ticket", "trac", TICKET, trac_scroll, [f"scroll(0, {100 * (3 + v)})"])

        def trac_new_tab(p):
            fresh = p.page.context.new_page()
            fresh.goto(p.base + "/roadmap")
            fresh.wait_for_timeout(300)
        add("trac: new tab, typed address", "trac", TICKET, trac_new_tab,
            ["new_tab('{base}/roadmap')"])

        # -- MediaWiki: the editor and search ---------------------------------------
        def wiki_edit(p, top=top, bottom=bottom, word=word):
            p.click("#wpTextbox1")
            p.type(top, typos=1)
            p.page.keyboard.press("Enter")
            p.type(bottom, typos=0)
            p.click("#wpSummary")
            p.type(word, typos=0)
        add("wiki: source and summary", "wiki", WIKI_EDIT, wiki_edit,
            [fill("textbox", "Wikitext source editor", two), fill("textbox", "Summary:", word)])

        def wiki_save(p, top=top):
            p.click("#wpTextbox1")
            p.type(top, typos=1)
            p.click("#wpSave")
            p.page.wait_for_url(lambda u: "action=edit" not in u)
            p.page.wait_for_load_state()
        add("wiki: save a page", "wiki", WIKI_EDIT, wiki_save,
            [fill("textbox", "Wikitext source editor", top), act("click", "button", "Save page")],
            writes=True)

        def wiki_unwatch(p):
            p.click("label[for=wpWatchthis]")
        add("wiki: untick watch by its label", "wiki", WIKI_EDIT, wiki_unwatch,
            [act("uncheck", "checkbox", "Watch this page")])

        def wiki_search(p, word=word):
            p.click("#searchText input")
            p.type(word, typos=1)
            p.page.keyboard.press("Enter")
            p.page.wait_for_url("**search=*")
            p.page.wait_for_load_state()
        add("wiki: search + Enter", "wiki", WIKI_SEARCH, wiki_search,
            [fill("combobox", "Search Valdoria Encyclopedia", word),
             act("press", "combobox", "Search Valdoria Encyclopedia", "Enter")], revised=True)

        # -- Redmine: the issue form ------------------------------------------------
        def rm_date(p, mm=mm, dd=dd, yy=yy):
            # On the date's first part, as a person aims: typing in its middle part
            # fills the day first and leaves the date invalid (nothing to capture).
            p.page.click("#issue_due_date", position={"x": 8, "y": 8})
            p.pause()
            p.type(mm + dd + yy, typos=0)
        add("redmine: due date typed", "tracker", NEW_ISSUE, rm_date,
            [fill("textbox", "Due date", f"{yy}-{mm}-{dd}")])

        def rm_keys(p, v=v):
            p.page.focus("#issue_priority_id")
            p.press(*(["ArrowDown"] * (v + 1)))
        add("redmine: priority by arrow keys", "tracker", NEW_ISSUE, rm_keys,
            [act("select_option", "combobox", "Priority *",
                 ("High", "Urgent", "Immediate")[v])])

        def rm_subject(p, summary=summary):
            p.click("#issue_subject")
            p.type(summary, typos=1)
            p.page.keyboard.press("Tab")
        add("redmine: subject, Tab away", "tracker", NEW_ISSUE, rm_subject,
            [fill("textbox", "Subject *", summary)])

        def rm_bold(p, word=word):
            p.click("#issue_description")
            p.type(word, typos=0)
            p.click("#content .jstb_strong")
        add("redmine: description, Bold button", "tracker", NEW_ISSUE, rm_bold,
            [fill("textbox", "Description", word), act("click", "button", "Strong (Ctrl+B)")])

        def rm_create(p, summary=summary):
            p.click("#issue_subject")
            p.type(summary, typos=1)
            p.click("input[name=commit]")
            p.page.wait_for_url(lambda u: not u.endswith("/new"))
            p.page.wait_for_load_state()
        add("redmine: create an issue", "tracker", NEW_ISSUE, rm_create,
            [fill("textbox", "Subject *", summary), act("click", "button", "Create")],
            writes=True)

        def rm_done(p, v=v):
            p.page.focus("#issue_done_ratio")
            p.type(("3", "5", "9")[v], typos=0)
            p.pause()
        add("redmine: % done by typing", "tracker", NEW_ISSUE, rm_done,
            [act("select_option", "combobox", "% Done", ("30 %", "50 %", "90 %")[v])])

        # -- Spirit: topic and reply forms -------------------------------------------
        def forum_topic(p, summary=summary, top=top, bottom=bottom, v=v):
            p.click("#id_title")
            p.type(summary, typos=1)
            p.page.focus("#id_category")
            p.press(*(["ArrowDown"] * (v + 1)))
            p.click("#id_comment")
            p.type(top, typos=0)
            p.page.keyboard.press("Enter")
            p.type(bottom, typos=0)
        add("forum: topic form by keys", "forum", "/topic/publish/", forum_topic,
            [fill("textbox", "Title:", summary),
             act("select_option", "combobox", "Category:",
                 ("Board Games", "Books", "Cycling")[v]),
             fill("textbox", "Comment:", two)])

        def forum_publish(p, summary=summary, top=top, v=v):
            p.click("#id_title")
            p.type(summary, typos=0)
            p.page.focus("#id_category")
            p.type(("Cy", "Boo", "Ga")[v], typos=0)
            p.pause()
            p.click("#id_comment")
            p.type(top + " " + summary, typos=1)
            p.click("role=button[name='Publish']")
            p.page.wait_for_url(lambda u: "/publish" not in u)
            p.page.wait_for_load_state()
        add("forum: publish a topic", "forum", "/topic/publish/", forum_publish,
            [fill("textbox", "Title:", summary),
             act("select_option", "combobox", "Category:", ("Cycling", "Books", "Gardening")[v]),
             fill("textbox", "Comment:", top + " " + summary),
             act("click", "button", "Publish")], writes=True)

        def forum_reply(p, top=top, word=word):
            p.click("#id_comment")
            p.type(f"{top} {word}", typos=1)
        add("forum: reply typed", "forum", TOPIC, forum_reply,
            [fill("textbox", "Write comment...", f"{top} {word}")])

        # -- Oscar: storefront and dashboard ------------------------------------------
        def shop_search(p, word=("rain jacket", "green tea", "wool socks")[v]):
            p.click("#id_q")
            p.type(word, typos=1)
            p.page.keyboard.press("Enter")
            p.page.wait_for_url("**/search/*")
            p.page.wait_for_load_state()
        add("shop: search + Enter", "shop", PRODUCT, shop_search,
            [fill("textbox", "Search", ("rain jacket", "green tea", "wool socks")[v]),
             act("press", "textbox", "Search", "Enter")])

        def shop_cart(p):
            p.click("button:has-text('Add to cart')")
            p.page.wait_for_load_state()
            p.pause(300, 400)
        add("shop: add to cart", "shop", PRODUCT, shop_cart,
            [act("click", "button", "Add to cart")], writes=True)

        def dash_search(p, word=("sweater", "kettle", "lamp")[v]):
            p.click("#id_title")
            p.type(word, typos=1)
            p.click("button:has-text('Search')")
            p.page.wait_for_load_state()
            p.pause()
        add("shop: dashboard product search", "shop", "/dashboard/catalogue/", dash_search,
            [fill("textbox", "Product title:", ("sweater", "kettle", "lamp")[v]),
             act("click", "button", "Search")], user="omar")
    return out
