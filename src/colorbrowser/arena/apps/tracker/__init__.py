"""Redmine 5 from Debian: the code-hosting site (WebArena's GitLab), served by ``thin``.

Three projects of one company (Harbor, Ledgerly, Tidewatch) with 240 issues, their
comments and status changes, versions, categories, members with roles, wiki pages,
release news and a git repository per project whose commits reference the issues.

Debian's Redmine keeps an instance's files under ``instances/<name>`` of its code
folder; the name may be a relative path, so ``REDMINE_INSTANCE`` points at the live
data folder itself: config, database, attachments, tmp and logs all stay in the
arena's copy. The server runs in that folder, so the repositories' relative paths
resolve to the instance's own copy.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import ClassVar

from colorbrowser.arena.apps.base import Account, App, BuildContext, LoginForm, ServeContext
from colorbrowser.arena.content.forge import COMPANY, DOMAIN, Forge, forge
from colorbrowser.arena.content.markup import to_markdown
from colorbrowser.arena.content.tracker import END, START, Issue, Project
from colorbrowser.arena.gitrepo import build_repo
from colorbrowser.arena.process import Command

REDMINE = Path("/usr/share/redmine")
ADMIN_PASSWORD = "admin.Arena24"
TRACKERS = {"defect": "Bug", "enhancement": "Feature", "task": "Support"}
PRIORITIES = {"blocker": "Immediate", "critical": "Urgent", "major": "High", "minor": "Normal",
              "trivial": "Low"}
MODULES = ("issue_tracking", "time_tracking", "news", "documents", "files", "wiki",
           "repository", "calendar", "gantt")
SETTINGS = {
    "app_title": "Northwind Forge", "default_language": "en", "text_formatting": "common_mark",
    "date_format": "%Y-%m-%d", "time_format": "%H:%M", "user_format": "firstname_lastname",
    "gravatar_enabled": "0", "self_registration": "0", "login_required": "0",
    "autofetch_changesets": "0", "commit_ref_keywords": "refs,references,IssueID,fixes,closes",
    "notified_events": [], "host_name": "127.0.0.1", "per_page_options": "25,50,100",
    "welcome_text": f"Code, issues and releases of {COMPANY}' open-source projects.",
}
DATABASE_YML = """production:
  adapter: sqlite3
  database: <%= ENV.fetch("ARENA_DATA") %>/db/redmine.sqlite3
  timeout: 10000
"""
CONFIGURATION_YML = """production:
  email_delivery:
    delivery_method: :test
  scm_git_command: git
"""


def status_after(fields: dict[str, tuple[str, str]]) -> str | None:
    """Redmine's status for a tracker change (Trac-style fields), or None."""
    if "status" not in fields:
        return None
    new = fields["status"][1]
    if new == "closed":
        return "Closed" if fields.get("resolution", ("", ""))[1] == "fixed" else "Rejected"
    return "In Progress" if new == "accepted" else "New"


def _issue(issue: Issue) -> dict[str, object]:
    return {
        "id": issue.id, "tracker": TRACKERS[issue.kind], "category": issue.component,
        "subject": issue.summary, "description": to_markdown(issue.description),
        "author": issue.reporter, "priority": PRIORITIES[issue.priority],
        "assignee": None if issue.status == "new" else issue.owner,
        "version": issue.milestone or None, "created": issue.created.isoformat(),
        "journals": [{"time": c.time.isoformat(), "user": c.author, "notes": c.comment,
                      "status": status_after(c.fields)} for c in issue.changes],
    }


def _news(proj: Project) -> list[dict[str, str]]:
    out = []
    for m in proj.milestones:
        if m.completed is None:
            continue
        fixed = sum(1 for i in proj.issues if i.milestone == m.name and i.resolution == "fixed")
        name = f"{proj.profile.name} {m.name}"
        out.append({"title": f"{name} released", "summary": m.description,
                    "description": f"{name} is out. {m.description} This release closes "
                                   f"{fixed} issues; see the roadmap for the full list.",
                    "author": proj.members[0].username, "time": m.completed.isoformat()})
    return out


class TrackerApp(App):
    name = "tracker"
    title = "Northwind Forge (Redmine)"
    site = "gitlab"
    apt = ("redmine", "redmine-sqlite", "thin", "git")
    databases = ("db/redmine.sqlite3",)
    side_dirs = ("files",)
    health_path = "/"
    start_timeout = 90.0
    content: ClassVar = {"db/redmine.sqlite3": {
        "projects": (), "issues": ("lock_version",), "journals": (), "journal_details": (),
        "versions": (), "issue_categories": (), "members": (), "member_roles": (),
        "users": ("hashed_password", "salt", "last_login_on", "passwd_changed_on",
                  "updated_on"),
        "email_addresses": (), "wiki_pages": (), "wiki_contents": (),
        "wiki_content_versions": (), "changesets": (), "changes": (),
        "changesets_issues": (), "news": (), "enabled_modules": (), "repositories": (),
        "issue_relations": (), "time_entries": (), "attachments": (),
    }}
    login = LoginForm(path="/login", user_field="username", password_field="password",
                      check_path="/my/account", marker="Logged in as {username}")

    def data(self, seed: int) -> Forge:
        return forge(seed)

    def accounts(self, seed: int) -> list[Account]:
        site = self.data(seed)
        out = [Account("admin", ADMIN_PASSWORD, "admin", "Redmine Admin", f"admin@{DOMAIN}")]
        roles: dict[str, str] = {}
        for proj in site.projects:
            for m in proj.members:
                roles.setdefault(m.username, site.role(proj, m.username).lower())
        return out + [Account(p.username, p.password, roles.get(p.username, "member"), p.name,
                              p.email) for p in site.people]

    def payload(self, seed: int) -> dict[str, object]:
        site = self.data(seed)
        joined = START.replace(hour=8).isoformat()
        users = [{"login": "admin", "password": ADMIN_PASSWORD, "firstname": "Redmine",
                  "lastname": "Admin", "mail": f"admin@{DOMAIN}", "admin": True,
                  "created": joined}]
        users += [{"login": p.username, "password": p.password, "firstname": p.first,
                   "lastname": p.last, "mail": p.email, "admin": False, "created": joined}
                  for p in site.people]
        return {"pinned": START.isoformat(), "latest": END.isoformat(), "settings": SETTINGS,
                "users": users,
                "projects": [self._project(site, proj) for proj in site.projects]}

    def _project(self, site: Forge, proj: Project) -> dict[str, object]:
        p = proj.profile
        created = START.isoformat()
        return {
            "identifier": p.key, "name": p.name, "created": created,
            "description": f"{p.name} is {p.tagline}.",
            "homepage": f"https://{p.key}.example.org/", "modules": list(MODULES),
            "members": [{"login": m.username, "role": site.role(proj, m.username)}
                        for m in proj.members],
            "categories": [{"name": c.name, "assignee": proj.members[1 + i % 4].username}
                           for i, c in enumerate(p.components)],
            "versions": [{"name": m.name, "description": m.description,
                          "due": m.due.date().isoformat(), "created": created,
                          "closed": m.completed.isoformat() if m.completed else None}
                         for m in proj.milestones],
            "issues": [_issue(i) for i in proj.issues],
            "wiki": [{"title": w.name, "text": to_markdown(w.blocks), "author": w.author,
                      "time": w.time.isoformat()} for w in proj.wiki],
            "news": _news(proj),
            "repository": {"identifier": p.key, "url": f"repos/{p.key}.git",
                           "created": created},
        }

    def env(self, data: Path) -> dict[str, str]:
        """Redmine's instance is the data folder itself, named relative to its code."""
        instance = os.path.relpath(data.resolve(), REDMINE / "instances")
        return {"RAILS_ENV": "production", "RACK_ENV": "production",
                "REDMINE_INSTANCE": instance, "ARENA_DATA": str(data.resolve()),
                "RAILS_LOG_TO_STDOUT": "1"}

    def rails(self, ctx: BuildContext, *args: str | Path, what: str) -> None:
        ctx.run([REDMINE / "bin" / args[0], *args[1:]], what,
                env={**self.env(ctx.data), "REDMINE_LANG": "en"}, cwd=ctx.data)

    def build(self, ctx: BuildContext) -> None:
        for folder in ("config", "db", "files", "tmp", "log", "repos"):
            (ctx.data / folder).mkdir()
        (ctx.data / "config" / "database.yml").write_text(DATABASE_YML, "utf-8")
        (ctx.data / "config" / "configuration.yml").write_text(CONFIGURATION_YML, "utf-8")
        secret = hashlib.sha256(f"arena-tracker:{ctx.seed}".encode()).hexdigest()
        (ctx.data / "config" / "secret_key.txt").write_text(secret + "\n", "utf-8")
        rakefile = REDMINE / "Rakefile"
        self.rails(ctx, "rake", "-f", rakefile, "db:migrate", what="migrate")
        self.rails(ctx, "rake", "-f", rakefile, "redmine:load_default_data",
                   what="default trackers and roles")
        site = self.data(ctx.seed)
        for proj in site.projects:
            ctx.say(f"git history of {proj.profile.key}")
            build_repo(ctx.data / "repos" / f"{proj.profile.key}.git", proj.commits, ctx.work)
        payload = ctx.write_json("tracker.json", self.payload(ctx.seed))
        self.rails(ctx, "rails", "runner", self.resource("seed_tracker.rb"), payload,
                   what="seed projects, issues, wiki, repositories")
        for folder in ("tmp", "log"):  # build leftovers: the snapshot starts clean
            for path in sorted((ctx.data / folder).rglob("*"), reverse=True):
                path.rmdir() if path.is_dir() else path.unlink()

    def server(self, ctx: ServeContext) -> Command:
        # Our config.ru runs Redmine behind a check that refuses a request addressed to
        # another name (DNS rebinding).
        return Command(["thin", "-R", str(self.resource("config.ru")), "-a", "127.0.0.1",
                        "-p", str(ctx.port), "-e", "production", "start"],
                       {**self.env(ctx.data), "ARENA_REDMINE": str(REDMINE),
                        "ARENA_HOST_CHECK": str(self.resource("host_check.rb")),
                        "ARENA_PORT": str(ctx.port)}, cwd=ctx.data)
