"""MediaWiki 1.39 from Debian: the wiki (WebArena's Wikipedia), served by ``php -S``.

About 2,400 articles of a fictional country (towns, rivers, mountains, regions and
people) with infoboxes and links between them, imported from a generated export file.
Two SQLite files hold state: the wiki itself and its object cache (sessions, parser
cache); a reset restores both.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import ClassVar

from colorbrowser.arena.apps.base import Account, App, BuildContext, LoginForm, ServeContext
from colorbrowser.arena.content.wiki import world
from colorbrowser.arena.content.wikitext import export_xml, pages
from colorbrowser.arena.process import Command

MW = "/usr/share/mediawiki"
EDITORS = (("Admin", "admin.Arena24", "sysop"), ("Emma", "emma.Arena24", "editor"),
           ("Jasper", "jasper.Arena24", "editor"), ("Odile", "odile.Arena24", "editor"),
           ("Silas", "silas.Arena24", "reader"))


def pin_main_page(db: Path) -> None:
    """The installer wrote a Main Page stamped with the build time: move that revision
    before the imported one and make the imported text current, so builds match."""
    with sqlite3.connect(db) as con:
        page = con.execute("SELECT page_id FROM page WHERE page_namespace=0 AND "
                           "page_title='Main_Page'").fetchone()[0]
        con.execute("UPDATE revision SET rev_timestamp='20240101000000' WHERE rev_page=? "
                    "AND rev_timestamp > '20250101000000'", (page,))
        rev, size = con.execute("SELECT rev_id, rev_len FROM revision WHERE rev_page=? "
                                "ORDER BY rev_timestamp DESC, rev_id DESC LIMIT 1",
                                (page,)).fetchone()
        con.execute("UPDATE page SET page_latest=?, page_len=? WHERE page_id=?",
                    (rev, size, page))


class WikiApp(App):
    name = "wiki"
    title = "Valdoria Encyclopedia (MediaWiki)"
    site = "wikipedia"
    apt = ("mediawiki", "php-sqlite3", "php-intl", "php-mbstring", "php-xml", "php-cli")
    databases = ("arenawiki.sqlite", "wikicache.sqlite")
    side_dirs = ("images",)
    health_path = "/index.php/Main_Page"
    start_timeout = 30.0
    content: ClassVar = {"arenawiki.sqlite": {
        "page": ("page_random", "page_touched", "page_links_updated"),
        "revision": (), "slots": (), "content": (), "text": (), "comment": (),
        "pagelinks": (), "templatelinks": (), "categorylinks": ("cl_timestamp",),
        "category": (), "actor": (),
        "user": ("user_password", "user_token", "user_touched", "user_registration",
                 "user_newpass_time", "user_email_token_expires"),
        "user_groups": (), "watchlist": ("wl_notificationtimestamp",),
    }}
    login = LoginForm(path="/index.php?title=Special:UserLogin", user_field="wpName",
                      password_field="wpPassword", check_path="/index.php/Special:Preferences",
                      marker="{username}", extra={"wpRemember": "1"})

    def accounts(self, seed: int) -> list[Account]:
        return [Account(name, password, role, name, f"{name.lower()}@valdoria.example.org")
                for name, password, role in EDITORS]

    def env(self, data, port: int | None = None) -> dict[str, str]:
        return {"MW_CONFIG_FILE": str(self.resource("LocalSettings.php")),
                "ARENA_DATA": str(data), "ARENA_PORT": str(port or 80)}

    def php(self, ctx: BuildContext, script: str, *args: str, what: str) -> None:
        ctx.run(["php", f"{MW}/maintenance/{script}", *args], what, env=self.env(ctx.data))

    def build(self, ctx: BuildContext) -> None:
        conf = ctx.work / "conf"
        conf.mkdir()
        admin = EDITORS[0]
        ctx.run(["php", f"{MW}/maintenance/install.php", "--confpath", str(conf),
                 "--dbtype", "sqlite", "--dbpath", str(ctx.data), "--dbname", "arenawiki",
                 "--server", "http://127.0.0.1", "--scriptpath", "", "--lang", "en",
                 "--pass", admin[1], "Valdoria Encyclopedia", admin[0]], "install",
                env={"MW_INSTALL_PATH": MW})
        ctx.say("write articles")
        dump = ctx.work / "pages.xml"
        dump.write_text(export_xml(pages(world(ctx.seed), ctx.seed)), "utf-8")
        self.php(ctx, "importDump.php", "--no-updates", str(dump), what="import articles")
        pin_main_page(ctx.data / "arenawiki.sqlite")
        for name, password, _role in EDITORS[1:]:
            self.php(ctx, "createAndPromote.php", "--force", name, password,
                     what=f"user {name}")
        self.php(ctx, "refreshLinks.php", what="links")
        self.php(ctx, "rebuildtextindex.php", what="search index")
        self.php(ctx, "initSiteStats.php", "--update", what="site statistics")
        self.php(ctx, "runJobs.php", what="jobs")

    def server(self, ctx: ServeContext) -> Command:
        # router.php refuses a request addressed to another name (DNS rebinding).
        return Command(["php", "-S", f"127.0.0.1:{ctx.port}", "-t", MW,
                        str(self.resource("router.php"))],
                       {**self.env(ctx.data, ctx.port), "PHP_CLI_SERVER_WORKERS": "4"},
                       cwd=ctx.data)
