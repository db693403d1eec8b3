"""Tasks on Trac (the Harbor project), as the developer Hugo Sanchez.

Kept small and quick to replay: the test suite proves every one of them on each run.
"""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.arena.tasks.draft import Draft, Snapshot, db, exact, html, includes, url

T = "__TRAC__"
USER = "hugo"
COMMENT_BOX = {"role": "textbox", "name": "You may use WikiFormatting here."}
SUBMIT = {"click": {"role": "button", "name": "Submit changes"}}
MODIFY = {"click": {"role": "link", "name": "Modify Ticket"}}


def _ticket(n: int) -> str:
    return f"goto('{T}/ticket/{n}')"


def drafts(snap: Callable[[str], Snapshot]) -> list[Draft]:
    s = snap("trac")
    names = dict(s.rows("select sid, value from session_attribute where name='name'"))
    dev_names = [names[u] for u in ("julian", "noah", "james", "clara", "hugo")]
    out: list[Draft] = []

    def other(name: str) -> str:
        return next(n for n in dev_names if n != name)

    # -- information seeking -----------------------------------------------------------
    for n in (18, 42, 76):
        owner = names[s.one("select owner from ticket where id=?", n)]
        out.append(Draft(f"trac-ticket-owner-{n}", ["trac"],
                         "Who is the owner of ticket #{number} in Harbor's tracker?",
                         {"number": n}, f"{T}/", exact(owner),
                         [_ticket(n), {"stop": owner, "wrong": other(owner)}]))
    for ms in ("1.1", "1.3"):
        count = s.one("select count(*) from ticket where milestone=?", ms)
        out.append(Draft(f"trac-milestone-size-{ms}", ["trac"],
                         "How many tickets belong to milestone {milestone}?",
                         {"milestone": ms}, f"{T}/roadmap", exact(count),
                         [f"goto('{T}/milestone/{ms}')",
                          {"stop": str(count), "wrong": str(count + 1)}]))
    for n in (20, 27):
        res = s.one("select resolution from ticket where id=?", n)
        out.append(Draft(f"trac-ticket-resolution-{n}", ["trac"],
                         "How was ticket #{number} resolved?", {"number": n}, f"{T}/",
                         exact(res),
                         [_ticket(n), {"stop": res, "wrong": "wontfix" if res != "wontfix"
                                       else "fixed"}]))
    for n in (17, 44):
        rev = s.one("select rev from revision where message like ?", f"%(fixes #{n})")
        out.append(Draft(f"trac-fixing-commit-{n}", ["trac"],
                         "Which commit fixed ticket #{number}? Give the first 7 characters "
                         "of its hash.", {"number": n}, f"{T}/", includes(rev[:7]),
                         [f"goto('{T}/search?q=fixes+%23{n}&noquickjump=1&changeset=on')",
                          {"stop": rev[:7], "wrong": rev[7:14]}]))
    top = s.rows("select component, count(*) from ticket where type='defect' and "
                 "status!='closed' group by component order by 2 desc")
    assert top[0][1] > top[1][1], "the busiest component must be unique"
    out.append(Draft("trac-busiest-component", ["trac"],
                     "Which component has the most open defects?", {}, f"{T}/",
                     exact(top[0][0]),
                     [f"goto('{T}/query?status=!closed&type=defect&group=component')",
                      {"stop": top[0][0], "wrong": top[1][0]}]))
    for user in ("julian", "james"):
        count = s.one("select count(*) from ticket where owner=? and status='accepted'", user)
        out.append(Draft(f"trac-accepted-by-{user}", ["trac"],
                         "How many tickets has {person} accepted that are still open?",
                         {"person": names[user]}, f"{T}/", exact(count),
                         [f"goto('{T}/query?owner={user}&status=accepted')",
                          {"stop": str(count), "wrong": str(count - 1)}]))

    # -- navigation ----------------------------------------------------------------------
    unique = [n for n in (48, 94, 84, 63, 37) if s.one(
        "select count(*) from ticket where summary=(select summary from ticket where id=?)",
        n) == 1]
    for n in unique[:2]:
        summary = s.one("select summary from ticket where id=?", n)
        search = {"role": "textbox", "name": "Search:"}  # the header's label, hidden by CSS
        out.append(Draft(f"trac-find-ticket-{n}", ["trac"],
                         "Open the ticket titled \"{summary}\".", {"summary": summary},
                         f"{T}/", url(f"{T}/ticket/{n}"),
                         [{"fill": search, "value": summary},
                          {"press": search, "key": "Enter"},
                          {"click": {"role": "link", "contains": summary},
                           "wrong": {"role": "link", "name": "View Tickets"}}]))
    for ms, wrong in (("1.3", "2.0"), ("2.0", "1.3")):
        out.append(Draft(f"trac-open-milestone-{ms}", ["trac"],
                         "Show me the page of milestone {milestone}.", {"milestone": ms},
                         f"{T}/", url(f"{T}/milestone/{ms}"),
                         [{"click": {"role": "link", "name": "Roadmap"}},
                          {"click": {"role": "link", "name": f"Milestone: {ms}"},
                           "wrong": {"role": "link", "name": f"Milestone: {wrong}"}}]))
    out.append(Draft("trac-open-install-guide", ["trac"],
                     "Open the wiki page that explains how to install Harbor.", {}, f"{T}/",
                     url(f"{T}/wiki/Installation"),
                     [{"click": {"role": "link", "name": "Wiki"}},
                      {"click": {"role": "link", "name": "Installation"},
                       "wrong": {"role": "link", "name": "ReleaseProcess"}}]))
    n = 57
    rev = s.one("select rev from revision where message like ?", f"%refs #{n})")
    out.append(Draft(f"trac-open-changeset-{n}", ["trac"],
                     "Open the changeset that references ticket #{number}.", {"number": n},
                     f"{T}/", url(f"{T}/changeset/{rev}"),
                     [f"goto('{T}/search?q=refs+%23{n}&noquickjump=1&changeset=on')",
                      {"click": {"role": "link", "contains": f"refs #{n}"},
                       "wrong": {"role": "link", "name": "Browse Source"}}]))
    return out + _changes(s, names)


def _changes(s: Snapshot, names: dict[str, str]) -> list[Draft]:
    out: list[Draft] = []
    notes = {33: "I can reproduce this with the 1.2 release on Debian 12.",
             60: "The design for the slideshow is ready for review.",
             90: "This also happens on an NFS share."}
    for n, text in notes.items():
        check = db("trac", f"select count(*) from ticket_change where ticket={n} and "
                   f"field='comment' and author='{USER}' and newvalue={_sql(text)}", [[1]])
        out.append(Draft(f"trac-comment-{n}", ["trac"],
                         "Add the comment \"{text}\" to ticket #{number}.",
                         {"text": text, "number": n}, f"{T}/ticket/{n}", check,
                         [{"fill": COMMENT_BOX, "value": text,
                           "wrong": text.replace(".", "!")}, SUBMIT]))
    for n, priority, wrong in ((36, "critical", "major"), (73, "blocker", "critical")):
        out.append(Draft(f"trac-priority-{n}", ["trac"],
                         "Set the priority of ticket #{number} to {priority}.",
                         {"number": n, "priority": priority}, f"{T}/ticket/{n}",
                         db("trac", f"select priority from ticket where id={n}", [[priority]]),
                         [MODIFY, {"select_option": {"role": "combobox", "name": "Priority:"},
                                   "options": priority, "wrong": wrong}, SUBMIT]))
    for n, resolution, wrong in ((67, "wontfix", "invalid"), (50, "fixed", "worksforme")):
        out.append(Draft(f"trac-resolve-{n}", ["trac"],
                         "Close ticket #{number} with the resolution \"{resolution}\".",
                         {"number": n, "resolution": resolution}, f"{T}/ticket/{n}",
                         db("trac", f"select status, resolution from ticket where id={n}",
                            [["closed", resolution]]),
                         [MODIFY, {"check": {"role": "radio", "name": "resolve"}},
                          {"select_option": {"role": "combobox", "name": ""},
                           "options": resolution, "wrong": wrong}, SUBMIT]))
    new = (("Album covers are blurry on high-DPI screens", "defect", "albums"),
           ("Support importing from an SD card reader", "enhancement", "importer"))
    for summary, kind, component in new:
        out.append(Draft(f"trac-new-{kind}-{component}", ["trac"],
                         "File a new {kind} ticket in the {component} component titled "
                         "\"{summary}\".", {"kind": kind, "component": component,
                                           "summary": summary}, f"{T}/",
                         db("trac", f"select type, component from ticket where reporter='{USER}' "
                            f"and summary={_sql(summary)}", [[kind, component]]),
                         [{"click": {"role": "link", "name": "New Ticket"}},
                          {"fill": {"role": "textbox", "name": "Summary:"}, "value": summary},
                          {"select_option": {"role": "combobox", "name": "Type:"},
                           "options": kind},
                          {"select_option": {"role": "combobox", "name": "Component:"},
                           "options": component, "wrong": "web ui"},
                          {"click": {"role": "button", "name": "Create ticket"}}]))
    n = 49
    out.append(Draft(f"trac-keyword-{n}", ["trac"],
                     "Add the keyword \"{keyword}\" to ticket #{number}.",
                     {"keyword": "design", "number": n}, f"{T}/ticket/{n}",
                     html(f"{T}/ticket/{n}",
                          "document.querySelector('td[headers=\"h_keywords\"]').innerText",
                          "design"),
                     [MODIFY, {"fill": {"role": "textbox", "name": "Keywords:"},
                               "value": "design", "wrong": "layout"}, SUBMIT]))
    page, text = "FAQ", "Thumbnails are rebuilt at night; run harbor thumbs --rebuild to force it."
    out.append(Draft("trac-wiki-faq", ["trac"],
                     "Create a wiki page named {page} that says: {text}",
                     {"page": page, "text": text}, f"{T}/wiki/{page}",
                     html(f"{T}/wiki/{page}",
                          "document.querySelector('#wikipage').innerText", text),
                     [{"click": {"role": "button", "name": "Create this page"}},
                      # the page source box has no label; the first unlabelled box is search
                      {"fill": {"role": "textbox", "name": ""}, "value": text,
                       "wrong": text.replace("night", "noon")},
                      {"click": {"role": "button", "name": "Submit changes"}}]))
    return out


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
