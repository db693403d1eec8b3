"""Tasks on the code-hosting site (Redmine), as the developer Liam Gray.

WebArena's GitLab tasks ask about projects, issues, members, milestones and commits,
and change issues; these do the same on Northwind Forge's three projects.
"""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.arena.tasks.draft import Draft, Snapshot, db, exact, fuzzy, html, includes, url

G = "__GITLAB__"
USER = "liam"
SITES = ["gitlab"]
NOTES_BOX = {"role": "textbox", "name": ""}  # the notes box of the edit form has no label
SUBMIT = {"click": {"role": "button", "name": "Submit"}}
EDIT = {"click": {"role": "link", "name": "Edit", "nth": 0}}


def _issue(n: int) -> str:
    return f"goto('{G}/issues/{n}')"


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Site:
    """Facts of the snapshot the tasks are built from."""

    def __init__(self, s: Snapshot) -> None:
        self.s = s
        self.name = dict(s.rows("select login, firstname||' '||lastname from users "
                                "where type='User'"))
        self.uid = dict(s.rows("select login, id from users where type='User'"))
        self.projects = dict(s.rows("select identifier, name from projects"))

    def open_count(self, ident: str) -> int:
        return self.s.one("select count(*) from issues i join issue_statuses s on "
                          "s.id=i.status_id join projects p on p.id=i.project_id "
                          "where p.identifier=? and s.is_closed=0", ident)

    def members(self, ident: str, role: str) -> list[str]:
        return [r[0] for r in self.s.rows(
            "select u.login from members m join member_roles mr on mr.member_id=m.id "
            "join roles r on r.id=mr.role_id join users u on u.id=m.user_id "
            "join projects p on p.id=m.project_id where p.identifier=? and r.name=? "
            "order by u.id", ident, role)]

    def issue(self, n: int, column: str) -> object:
        return self.s.one(f"select {column} from issues where id=?", n)


def drafts(snap: Callable[[str], Snapshot]) -> list[Draft]:
    site = Site(snap("tracker"))
    return _info(site) + _navigation(site) + _changes(site)


def _info(site: Site) -> list[Draft]:
    s, out = site.s, []
    for ident in ("harbor", "ledgerly", "tidewatch"):
        count = site.open_count(ident)
        out.append(Draft(f"tracker-open-issues-{ident}", SITES,
                         "How many open issues does the {project} project have?",
                         {"project": site.projects[ident]}, f"{G}/projects", exact(count),
                         [{"click": {"role": "link", "name": site.projects[ident]}},
                          {"stop": str(count), "wrong": str(count + 1)}]))
    for ident in ("ledgerly", "tidewatch"):
        manager = site.name[site.members(ident, "Manager")[0]]
        other = site.name[site.members(ident, "Developer")[0]]
        out.append(Draft(f"tracker-manager-{ident}", SITES,
                         "Who is the manager of the {project} project?",
                         {"project": site.projects[ident]}, f"{G}/", exact(manager),
                         [f"goto('{G}/projects/{ident}')",
                          {"stop": manager, "wrong": other}]))
    for n in (61, 133):
        reporter = site.name[s.one("select u.login from issues i join users u on "
                                   "u.id=i.author_id where i.id=?", n)]
        out.append(Draft(f"tracker-reporter-{n}", SITES, "Who reported issue #{number}?",
                         {"number": n}, f"{G}/", exact(reporter),
                         [_issue(n), {"stop": reporter,
                                      "wrong": next(v for v in site.name.values()
                                                    if v not in (reporter, "Redmine Admin"))}]))
    for n in (84, 150):
        rev = s.one("select c.revision from changesets c join changesets_issues ci on "
                    "ci.changeset_id=c.id where ci.issue_id=?", n)
        out.append(Draft(f"tracker-commit-of-{n}", SITES,
                         "Which commit is linked to issue #{number}? Give the first 8 "
                         "characters of its revision.", {"number": n}, f"{G}/",
                         includes(rev[:8]),
                         # the revision shows on the issue's "Associated revisions" tab
                         [f"goto('{G}/issues/{n}?tab=changesets')",
                          {"stop": rev[:8], "wrong": rev[8:16]}]))
    for ident, version in (("harbor", "1.3"), ("tidewatch", "2.0")):
        due = s.one("select v.effective_date from versions v join projects p on "
                    "p.id=v.project_id where p.identifier=? and v.name=?", ident, version)
        out.append(Draft(f"tracker-due-{ident}-{version}", SITES,
                         "When is version {version} of {project} due? Answer as YYYY-MM-DD.",
                         {"version": version, "project": site.projects[ident]}, f"{G}/",
                         exact(due),
                         # with the completed versions: a version with no issues left
                         # (Tidewatch 2.0) is listed only then
                         [f"goto('{G}/projects/{ident}/roadmap?completed=1')",
                          {"stop": str(due), "wrong": "2024-12-31"}]))
    for ident, login in (("harbor", "gabriel"), ("ledgerly", "emily")):
        count = s.one("select count(*) from issues i join issue_statuses st on "
                      "st.id=i.status_id join projects p on p.id=i.project_id where "
                      "p.identifier=? and i.tracker_id=1 and st.is_closed=0 and "
                      "i.assigned_to_id=?", ident, site.uid[login])
        out.append(Draft(f"tracker-open-bugs-{login}", SITES,
                         "How many open bugs in {project} are assigned to {person}?",
                         {"project": site.projects[ident], "person": site.name[login]},
                         f"{G}/projects/{ident}/issues", exact(count),
                         # the open bugs sorted by assignee, the person's rows counted
                         # (a filter by person would need their id, which the goal
                         # does not give)
                         [f"goto('{G}/projects/{ident}/issues?set_filter=1&tracker_id=1"
                          "&status_id=o&sort=assigned_to&per_page=100')",
                          {"stop": str(count), "wrong": str(count + 2)}]))
    top = s.rows("select c.name, count(*) from issues i join issue_categories c on "
                 "c.id=i.category_id join issue_statuses st on st.id=i.status_id where "
                 "i.project_id=1 and st.is_closed=0 group by c.name order by 2 desc")
    assert top[0][1] > top[1][1], "the busiest category must be unique"
    out.append(Draft("tracker-busiest-category", SITES,
                     "Which category of {project} has the most open issues?",
                     {"project": "Harbor"}, f"{G}/projects/harbor", exact(top[0][0]),
                     [{"click": {"role": "link", "name": "Summary"}},
                      {"stop": top[0][0], "wrong": top[1][0]}]))
    for n, phrase in ((44, "full log"), (47, "settings")):
        notes = s.rows("select notes from journals where journalized_id=? and notes!='' "
                       "order by id desc limit 1", n)
        assert notes and phrase in notes[0][0], f"issue {n}: the last note lacks {phrase!r}"
        out.append(Draft(f"tracker-last-note-{n}", SITES,
                         "What did the last comment on issue #{number} say?", {"number": n},
                         f"{G}/", fuzzy(notes[0][0], phrase),
                         [_issue(n), {"stop": notes[0][0], "wrong": "No comments yet."}]))
    return out


def _navigation(site: Site) -> list[Draft]:
    s, out = site.s, []
    for n in (30, 77, 208):
        subject = site.issue(n, "subject")
        project = s.one("select p.name from issues i join projects p on p.id=i.project_id "
                        "where i.id=?", n)
        search = {"role": "textbox", "name": "Search:"}
        out.append(Draft(f"tracker-find-issue-{n}", SITES,
                         "Open the issue \"{subject}\" of {project}.",
                         {"subject": subject, "project": project}, f"{G}/",
                         url(f"{G}/issues/{n}"),
                         [{"fill": search, "value": subject}, {"press": search, "key": "Enter"},
                          {"click": {"role": "link", "contains": f"#{n} ("},
                           "wrong": {"role": "link", "name": "Issues", "nth": 1}}]))
    out.append(Draft("tracker-roadmap-tidewatch", SITES,
                     "Show me the roadmap of the {project} project.", {"project": "Tidewatch"},
                     f"{G}/projects", url(f"{G}/projects/tidewatch/roadmap"),
                     [{"click": {"role": "link", "name": "Tidewatch"}},
                      {"click": {"role": "link", "name": "Roadmap"},
                       "wrong": {"role": "link", "name": "Activity"}}]))
    for ident, version, wrong in (("harbor", "1.2", "1.1"), ("ledgerly", "1.3", "2.0")):
        vid = s.one("select v.id from versions v join projects p on p.id=v.project_id "
                    "where p.identifier=? and v.name=?", ident, version)
        steps = [f"goto('{G}/projects/{ident}/roadmap')"]
        if version != "1.3":  # completed versions are listed only on request
            steps += [{"check": {"role": "checkbox", "name": "Show completed versions"}},
                      {"click": {"role": "button", "name": "Apply"}}]
        steps.append({"click": {"role": "link", "name": version, "nth": 1},
                      "wrong": {"role": "link", "name": wrong, "nth": 0}})
        out.append(Draft(f"tracker-version-{ident}-{version}", SITES,
                         "Open the page of version {version} of {project}.",
                         {"version": version, "project": site.projects[ident]}, f"{G}/",
                         url(f"{G}/versions/{vid}"), steps))
    out.append(Draft("tracker-repository-ledgerly", SITES,
                     "Browse the source code repository of {project}.",
                     {"project": "Ledgerly"}, f"{G}/projects/ledgerly",
                     url(f"{G}/projects/ledgerly/repository"),
                     [{"click": {"role": "link", "name": "Repository"},
                       "wrong": {"role": "link", "name": "Wiki"}}]))
    out.append(Draft("tracker-release-process-harbor", SITES,
                     "Open the wiki page that describes how {project} is released.",
                     {"project": "Harbor"}, f"{G}/projects/harbor",
                     url(f"{G}/projects/harbor/wiki/ReleaseProcess"),
                     [{"click": {"role": "link", "name": "Wiki"}},
                      {"click": {"role": "link", "name": "ReleaseProcess"},
                       "wrong": {"role": "link", "name": "Installation"}}]))
    return out


def _changes(site: Site) -> list[Draft]:
    out: list[Draft] = []
    me = site.uid[USER]
    notes = {35: "I can reproduce this on Fedora 39 as well.",
             70: "Moving this to the next release; the fix needs a schema change.",
             130: "Customers reported this twice this week."}
    for n, text in notes.items():
        out.append(Draft(f"tracker-note-{n}", SITES,
                         "Add the comment \"{text}\" to issue #{number}.",
                         {"text": text, "number": n}, f"{G}/issues/{n}",
                         db("tracker", f"select count(*) from journals where journalized_id={n} "
                            f"and user_id={me} and notes={_sql(text)}", [[1]]),
                         [EDIT, {"fill": NOTES_BOX, "value": text,
                                 "wrong": text.replace(".", "!")}, SUBMIT]))
    for n, status, wrong in ((38, "Resolved", "Feedback"), (68, "Feedback", "Resolved")):
        out.append(Draft(f"tracker-status-{n}", SITES,
                         "Change the status of issue #{number} to {status}.",
                         {"number": n, "status": status}, f"{G}/issues/{n}",
                         db("tracker", "select s.name from issues i join issue_statuses s on "
                            f"s.id=i.status_id where i.id={n}", [[status]]),
                         [EDIT, {"select_option": {"role": "combobox", "name": "Status *"},
                                 "options": status, "wrong": wrong}, SUBMIT]))
    for n, login, wrong in ((40, "mateo", "gabriel"), (121, "joseph", "zoe")):
        out.append(Draft(f"tracker-assign-{n}", SITES,
                         "Assign issue #{number} to {person}.",
                         {"number": n, "person": site.name[login]}, f"{G}/issues/{n}",
                         db("tracker", "select u.login from issues i join users u on "
                            f"u.id=i.assigned_to_id where i.id={n}", [[login]]),
                         [EDIT, {"select_option": {"role": "combobox", "name": "Assignee"},
                                 "options": site.name[login], "wrong": site.name[wrong]},
                          SUBMIT]))
    new = (("harbor", "Bug", "Slideshow skips portrait photos", "High"),
           ("ledgerly", "Feature", "Export invoices as UBL XML", "Normal"),
           ("harbor", "Support", "Document the backup procedure", "Low"))
    for ident, tracker, subject, priority in new:
        out.append(Draft(f"tracker-new-{tracker.lower()}-{ident}", SITES,
                         "Create a {tracker} issue in {project} titled \"{subject}\" with "
                         "priority {priority}.", {"tracker": tracker.lower(),
                                                  "project": site.projects[ident],
                                                  "subject": subject, "priority": priority},
                         f"{G}/projects/{ident}",
                         db("tracker", "select t.name, e.name, p.identifier from issues i join "
                            "trackers t on t.id=i.tracker_id join enumerations e on "
                            "e.id=i.priority_id join projects p on p.id=i.project_id where "
                            f"i.author_id={me} and i.subject={_sql(subject)}",
                            [[tracker, priority, ident]]),
                         [{"click": {"role": "link", "name": "Issues"}},
                          {"click": {"role": "link", "name": "New issue"}},
                          {"select_option": {"role": "combobox", "name": "Tracker *"},
                           "options": tracker},
                          "scroll(0, 0)",  # the form re-renders for the new tracker
                          {"fill": {"role": "textbox", "name": "Subject *"}, "value": subject},
                          {"select_option": {"role": "combobox", "name": "Priority *"},
                           "options": priority,
                           "wrong": "Urgent" if priority != "Urgent" else "Low"},
                          {"click": {"role": "button", "name": "Create"}}]))
    n = 97
    out.append(Draft(f"tracker-version-of-{n}", SITES,
                     "Move issue #{number} to version {version}.",
                     {"number": n, "version": "2.0"}, f"{G}/issues/{n}",
                     db("tracker", "select v.name from issues i join versions v on "
                        f"v.id=i.fixed_version_id where i.id={n}", [["2.0"]]),
                     [EDIT, {"select_option": {"role": "combobox", "name": "Target version"},
                             "options": "2.0", "wrong": "1.3"}, SUBMIT]))
    n = 52
    out.append(Draft(f"tracker-priority-{n}", SITES,
                     "Raise the priority of issue #{number} to {priority}.",
                     {"number": n, "priority": "Urgent"}, f"{G}/issues/{n}",
                     db("tracker", "select e.name from issues i join enumerations e on "
                        f"e.id=i.priority_id where i.id={n}", [["Urgent"]]),
                     [EDIT, {"select_option": {"role": "combobox", "name": "Priority *"},
                             "options": "Urgent", "wrong": "Immediate"}, SUBMIT]))
    n = 58
    out.append(Draft(f"tracker-log-time-{n}", SITES,
                     "Log {hours} hours of work on issue #{number}.",
                     {"hours": "1.5", "number": n}, f"{G}/issues/{n}",
                     db("tracker", f"select hours from time_entries where issue_id={n} and "
                        f"user_id={me}", [[1.5]]),
                     [{"click": {"role": "link", "name": "Log time", "nth": 0}},
                      {"fill": {"role": "textbox", "name": "Hours *"}, "value": "1.5",
                       "wrong": "2.5"},
                      {"select_option": {"role": "combobox", "name": "Activity *"},
                       "options": "Development"},
                      {"click": {"role": "button", "name": "Create"}}]))
    title, text = "Troubleshooting", "If thumbnails stay grey, clear the cache folder."
    out.append(Draft("tracker-wiki-troubleshooting", SITES,
                     "Create a wiki page called {title} in {project} that says: {text}",
                     {"title": title, "project": "Harbor", "text": text},
                     f"{G}/projects/harbor/wiki/{title}",
                     html(f"{G}/projects/harbor/wiki/{title}",
                          "document.querySelector('.wiki.wiki-page').innerText", text),
                     [{"fill": {"role": "textbox", "name": ""}, "value": text,
                       "wrong": text.replace("grey", "blue")},
                      {"click": {"role": "button", "name": "Save"}}]))
    return out
