"""Seed a Trac environment from the arena's JSON payload. Runs inside Trac's own venv.

Usage: python seed_trac.py ENV_DIR PAYLOAD.json
Everything goes through Trac's Python API with explicit timestamps, so two runs with
the same payload give the same rows.
"""

import json
import sys
from datetime import UTC, datetime

from acct_mgr.api import AccountManager
from trac.env import Environment
from trac.perm import PermissionSystem
from trac.ticket.model import Component, Milestone, Ticket, Version
from trac.util.datefmt import to_utimestamp
from trac.web.session import DetachedSession
from trac.wiki.model import WikiPage


def when(text):
    return datetime.fromisoformat(text).astimezone(UTC)


def configure(env, data):
    cfg = env.config
    for key, value in data["config"].items():
        section, option = key.split(".", 1)
        cfg.set(section, option, value)
    cfg.save()


def seed(env, data):
    perms = PermissionSystem(env)
    have = {action for _who, action in perms.get_all_permissions() if _who == "authenticated"}
    for action in data["authenticated_perms"]:
        if action not in have:
            perms.grant_permission("authenticated", action)
    accounts = AccountManager(env)
    for user in data["users"]:
        session = DetachedSession(env, user["username"])
        session["name"] = user["name"]
        session["email"] = user["email"]
        session.save()  # before the password: saving a session rewrites its attributes
        accounts.set_password(user["username"], user["password"])
        if user["role"] == "admin":
            perms.grant_permission(user["username"], "TRAC_ADMIN")
    with env.db_transaction as db:
        for table in ("component", "milestone", "version"):
            db(f"DELETE FROM {table}")  # initenv's examples
    for item in data["components"]:
        comp = Component(env)
        comp.name, comp.owner, comp.description = item["name"], item["owner"], item["description"]
        comp.insert()
    for item in data["milestones"]:
        ms = Milestone(env)
        ms.name, ms.description = item["name"], item["description"]
        ms.due = when(item["due"])
        ms.completed = when(item["completed"]) if item["completed"] else None
        ms.insert()
    for item in data["versions"]:
        ver = Version(env)
        ver.name, ver.time = item["name"], when(item["time"])
        ver.insert()
    for item in data["tickets"]:
        ticket = Ticket(env)
        for field, value in item["fields"].items():
            ticket[field] = value
        ticket["status"] = "new"
        ticket.insert(when=when(item["created"]))
        for change in item["changes"]:
            for field, (_old, new) in change["fields"].items():
                ticket[field] = new
            ticket.save_changes(change["author"], change["comment"], when=when(change["time"]))
    for page in data["wiki"]:
        wiki = WikiPage(env, page["name"])
        wiki.text = page["text"]
        wiki.save(page["author"], "", when(page["time"]))
    pinned = to_utimestamp(when(data["pinned_time"]))
    with env.db_transaction as db:
        # initenv stamps its default pages with the build time: pin them.
        db("UPDATE wiki SET time=%s WHERE author='trac'", (pinned,))


def main():
    env_dir, payload = sys.argv[1], sys.argv[2]
    with open(payload, encoding="utf-8") as fh:
        data = json.load(fh)
    env = Environment(env_dir)
    configure(env, data)
    env.shutdown()
    env = Environment(env_dir)
    seed(env, data)
    env.shutdown()


if __name__ == "__main__":
    main()
