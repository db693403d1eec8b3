"""Trac 1.6 with TracAccountManager: the small pip-only tracker the test suite builds.

One project (Harbor) with 120 tickets, their comments and field changes, milestones,
versions, wiki pages and a git repository whose commits reference the tickets.
Dates are shown absolute (``default_dateinfo_format``), so a page reads the same
whatever day it is opened.

Its logins are fixed test credentials, public in this source: the server answers only
requests addressed to 127.0.0.1/localhost at its port (``serve_trac.py``, against DNS
rebinding), and the plugin admin page (*Admin → Plugins*, which installs code into the
Trac process) is switched off.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import ClassVar

from colorbrowser.arena.apps.base import Account, App, BuildContext, LoginForm, ServeContext
from colorbrowser.arena.content.markup import to_trac
from colorbrowser.arena.content.projects import HARBOR
from colorbrowser.arena.content.tracker import START, Project, project
from colorbrowser.arena.gitrepo import build_repo
from colorbrowser.arena.process import Command

ADMIN_PASSWORD = "admin.Arena24"
AUTHENTICATED = ("TICKET_CREATE", "TICKET_MODIFY", "TICKET_APPEND", "WIKI_CREATE",
                 "WIKI_MODIFY", "MILESTONE_VIEW", "ROADMAP_VIEW", "TIMELINE_VIEW", "BROWSER_VIEW",
                 "CHANGESET_VIEW", "FILE_VIEW", "LOG_VIEW", "REPORT_VIEW", "SEARCH_VIEW")


def _config(name: str, tagline: str) -> dict[str, str]:
    return {
        "project.name": name, "project.descr": tagline,
        "header_logo.src": "site/logo.svg", "header_logo.alt": name,
        "header_logo.link": "/", "header_logo.width": "220", "header_logo.height": "48",
        "trac.default_dateinfo_format": "absolute", "trac.default_timezone": "UTC",
        "logging.log_type": "none",
        "components.acct_mgr.*": "enabled",
        "components.acct_mgr.register.*": "disabled",
        "components.trac.web.auth.loginmodule": "disabled",
        # Installing a plugin is running code in the Trac process: never from a page.
        "components.trac.admin.web_ui.pluginadminpanel": "disabled",
        "components.tracopt.versioncontrol.git.*": "enabled",
        "account-manager.password_store": "SessionStore",
        "account-manager.hash_method": "HtDigestHashMethod",
        "account-manager.persistent_sessions": "true",
        "repositories..dir": "repo.git", "repositories..type": "git",
        "git.cached_repository": "true", "git.persistent_cache": "true",
        "ticket.default_version": "", "ticket.default_milestone": "",
    }


class TracApp(App):
    name = "trac"
    title = "Trac (Harbor project)"
    site = "gitlab"
    pip = ("trac==1.6", "tracaccountmanager==0.6.0")
    databases = ("env/db/trac.db",)
    side_dirs = ("env/files",)
    health_path = "/"
    start_timeout = 30.0
    content: ClassVar = {"env/db/trac.db": {
        "ticket": (), "ticket_change": (), "ticket_custom": (), "milestone": (), "version": (),
        "component": (), "wiki": (), "enum": (), "permission": (), "report": (),
        "revision": (), "node_change": (), "attachment": (),
    }}
    login = LoginForm(path="/login", user_field="username", password_field="password",
                      check_path="/prefs", marker="logged in as {name}")

    def project(self, seed: int) -> Project:
        return project(HARBOR, seed)

    def accounts(self, seed: int) -> list[Account]:
        team = self.project(seed).members
        out = [Account("admin", ADMIN_PASSWORD, "admin", "Trac Admin", "admin@harbor.example.org")]
        out += [Account(p.username, p.password, "developer" if i < 5 else "reporter", p.name,
                        p.email) for i, p in enumerate(team)]
        return out

    def payload(self, seed: int) -> dict[str, object]:
        proj = self.project(seed)
        owners = [m.username for m in proj.members]
        return {
            "config": _config(HARBOR.name, HARBOR.tagline),
            "authenticated_perms": list(AUTHENTICATED),
            "pinned_time": START.isoformat(),
            "users": [{"username": a.username, "password": a.password, "name": a.name,
                       "email": a.email, "role": a.role} for a in self.accounts(seed)],
            "components": [{"name": c.name, "owner": owners[i % 5], "description": c.description}
                           for i, c in enumerate(HARBOR.components)],
            "milestones": [{"name": m.name, "description": m.description,
                            "due": m.due.isoformat(),
                            "completed": m.completed.isoformat() if m.completed else None}
                           for m in proj.milestones],
            "versions": [{"name": m.name, "time": m.completed.isoformat()}
                         for m in proj.milestones if m.completed],
            "tickets": [{
                "created": t.created.isoformat(),
                "fields": {"summary": t.summary, "description": to_trac(t.description),
                           "type": t.kind, "component": t.component, "priority": t.priority,
                           "milestone": t.milestone, "version": t.version,
                           "reporter": t.reporter, "owner": t.owner, "keywords": t.keywords},
                "changes": [{"time": c.time.isoformat(), "author": c.author,
                             "comment": c.comment,
                             "fields": {k: list(v) for k, v in c.fields.items()}}
                            for c in t.changes],
            } for t in proj.issues],
            "wiki": [{"name": w.name, "text": to_trac(w.blocks), "author": w.author,
                      "time": w.time.isoformat()} for w in proj.wiki],
        }

    def build(self, ctx: BuildContext) -> None:
        assert ctx.python is not None
        bin_dir = ctx.python.parent
        env_dir = ctx.data / "env"
        ctx.say("git history")
        build_repo(ctx.work / "repo.git", self.project(ctx.seed).commits, ctx.work)
        ctx.run([bin_dir / "trac-admin", env_dir, "initenv", HARBOR.name, "sqlite:db/trac.db"],
                "initenv")
        shutil.move(ctx.work / "repo.git", env_dir / "repo.git")
        shutil.copy(self.resource("logo.svg"), env_dir / "htdocs" / "logo.svg")
        payload = ctx.write_json("trac.json", self.payload(ctx.seed))
        ctx.run([ctx.python, self.resource("seed_trac.py"), env_dir, payload], "seed")
        ctx.run([bin_dir / "trac-admin", env_dir, "repository", "resync", "*"], "repository sync")

    def server(self, ctx: ServeContext) -> Command:
        assert ctx.python is not None
        hostcheck = Path(str(resources.files("colorbrowser") / "hostcheck.py"))
        return Command([str(ctx.python), str(self.resource("serve_trac.py")),
                        str(ctx.data / "env"), str(ctx.port), str(hostcheck)])
