"""``colorbrowser tips``: manage the knowledge base from a terminal.

Every user mistake is a UserError (one line, exit 2 through colorbrowser.cli.main)
raised before anything is written, so a typo never costs saved tips.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
import yaml

from colorbrowser.datafile import compose_yaml_as
from colorbrowser.destination import Destination
from colorbrowser.errors import UserError
from colorbrowser.knowledge.exchange import (
    FORMATS,
    TipFileError,
    detect_format,
    dumps,
    read_tips_file,
    tip_from_dict,
    tip_to_dict,
    write_atomic,
)
from colorbrowser.knowledge.lint import lint as lint_tips
from colorbrowser.knowledge.retrieve import STAGES
from colorbrowser.knowledge.store import EDITABLE, KnowledgeBase, default_db_path
from colorbrowser.knowledge.tip import KINDS, SOURCES, Tip, make_tip, masked
from colorbrowser.safe_text import escape, plain

TRUSTED_NOTE = ("note: imported tips are trusted instructions to the agent: it sees them "
                "outside the untrusted-page fence and follows them; read a tip file from "
                "someone else first (`colorbrowser tips lint FILE` flags tips that give the "
                "agent orders or send data off the site)")


class KbState:
    """The knowledge base a command group opens lazily, closed when the command ends."""

    def __init__(self, db: Path | None, frozen: bool) -> None:
        self.db = db
        self.frozen = frozen
        self.kb: KnowledgeBase | None = None
        self._masker: Callable[[str], str] | None = None

    def open(self, *, embeddings: bool = False) -> KnowledgeBase:
        if self.kb is None:
            self.kb = KnowledgeBase.open(self.db, readonly=self.frozen, embeddings=embeddings)
        return self.kb

    def close(self) -> None:
        if self.kb is not None:
            self.kb.close()

    def masker(self) -> Callable[[str], str]:
        """The known secrets of the person's own config (values and API keys)."""
        if self._masker is None:
            from colorbrowser.agent.secrets import person_masker
            from colorbrowser.config import load_settings

            self._masker = person_masker(load_settings())
        return self._masker

    def mask(self, tip: Tip) -> Tip:
        """A secret pasted into the tip, masked before it is stored (said on stderr)."""
        clean = masked(tip, self.masker())
        if clean is not tip:
            click.echo(f"note: tip {tip.id} held a secret; it is stored masked", err=True)
        return clean


def _state(ctx: click.Context) -> KbState:
    return ctx.find_object(KbState)


def _read_text(text: str) -> str:
    return sys.stdin.read() if text == "-" else text


def _split(values: tuple[str, ...]) -> list[str]:
    """--keyword a --keyword "b, c" -> [a, b, c]."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def kb_options(command: Callable) -> Callable:
    """--db and --frozen, as every command group on the knowledge base takes them."""
    command = click.option("--frozen", is_flag=True,
                           help="Open read-only, as during an evaluation.")(command)
    return click.option(
        "--db", type=Destination("the knowledge base", folder=False, path_type=Path),
        envvar="COLORBROWSER_KB",
        help=f"Knowledge base file (env COLORBROWSER_KB; default {default_db_path()}).",
    )(command)


def attach_kb(ctx: click.Context, db: Path | None, frozen: bool) -> None:
    state = KbState(db, frozen)
    ctx.obj = state
    ctx.call_on_close(state.close)


@click.group("tips")
@kb_options
@click.pass_context
def tips(ctx: click.Context, db: Path | None, frozen: bool) -> None:
    """Site-level tips: add, review, search, import and export them."""
    attach_kb(ctx, db, frozen)


@tips.command("add")
@click.option("--site", required=True, help="Host the tip is about, e.g. shop.local.")
@click.option("--text", "text", required=True, help="Scope, action, constraint, goal ('-': stdin).")
@click.option("--pattern", "patterns", multiple=True,
              help="URL glob (http://shop.local/admin/*, /search*) or re:REGEX. Repeatable.")
@click.option("--keyword", "keywords", multiple=True, help="Keyword(s), comma-separated ok.")
@click.option("--tag", "tags", multiple=True, help="Tag(s), comma-separated ok.")
@click.option("--kind", type=click.Choice(KINDS), default="tip", show_default=True)
@click.option("--template", "url_template", help="URL template of a shortcut, with {names}.")
@click.option("--id", "tip_id", default="", help="Tip id (default: generated from the site).")
@click.option("--author", default=None)
@click.option("--source", type=click.Choice(SOURCES), default="person", show_default=True)
@click.pass_context
def add_cmd(ctx: click.Context, site: str, text: str, patterns: tuple[str, ...],
            keywords: tuple[str, ...], tags: tuple[str, ...], kind: str,
            url_template: str | None, tip_id: str, author: str | None, source: str) -> None:
    """Add one tip and print its id."""
    tip = make_tip(id=tip_id, site=site, text=_read_text(text), url_patterns=list(patterns),
                   keywords=_split(keywords), tags=_split(tags), kind=kind,
                   url_template=url_template, author=author, source=source)
    tip = _state(ctx).mask(tip)
    _state(ctx).open().add(tip)
    click.echo(tip.id)


@tips.command("list")
@click.option("--site", default=None)
@click.option("--kind", type=click.Choice(KINDS), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def list_cmd(ctx: click.Context, site: str | None, kind: str | None, as_json: bool) -> None:
    """List tips (optionally of one site or kind)."""
    found = _state(ctx).open().list(site=site, kind=kind)
    if as_json:
        click.echo(json.dumps([tip_to_dict(t) for t in found], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(found)} tips")
    for column in ("id", "site", "kind", "url patterns", "text", "used", "ok/failed"):
        table.add_column(column, overflow="fold")
    for t in found:
        text = t.text if len(t.text) <= 90 else t.text[:87] + "..."
        table.add_row(escape(t.id), escape(t.site), t.kind, escape("\n".join(t.url_patterns)),
                      escape(text), str(t.stats.retrieved),
                      f"{t.stats.successes}/{t.stats.failures}")
    Console().print(table)


@tips.command("show")
@click.argument("tip_id")
@click.option("--format", "fmt", type=click.Choice([*FORMATS, "json"]), default="yaml",
              show_default=True)
@click.pass_context
def show_cmd(ctx: click.Context, tip_id: str, fmt: str) -> None:
    """Print one tip in full."""
    tip = _state(ctx).open().get(tip_id)
    if fmt == "json":
        click.echo(json.dumps(tip_to_dict(tip), indent=2))
    else:
        click.echo(dumps([tip], fmt), nl=False)


def _edit_form(tip) -> str:
    data = {k: v for k, v in tip_to_dict(tip, stats=False).items() if k in ("id", *EDITABLE)}
    for key in ("keywords", "tags"):
        data.setdefault(key, [])
    from colorbrowser.knowledge.exchange import _Dumper

    header = "# Edit the tip, save and close. The id cannot change.\n"
    return header + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                              width=88)


def _parse_edit_form(text: str, tip_id: str) -> dict:
    data = compose_yaml_as(text, "edited tip", TipFileError)[1]
    if not isinstance(data, dict):
        raise UserError("edited tip: expected a mapping of fields")
    if str(data.get("id", tip_id)) != tip_id:
        raise UserError(f"edited tip: the id cannot change (was {tip_id})")
    unknown = set(data) - {"id", *EDITABLE}
    if unknown:
        raise UserError(f"edited tip: cannot edit {', '.join(sorted(unknown))}")
    # Validate the whole form as a tip so errors name the field.
    tip_from_dict({**data, "id": tip_id}, "edited tip")
    return {k: v for k, v in data.items() if k != "id"}


def _masked_changes(changes: dict, mask: Callable[[str], str], tip_id: str) -> dict:
    """Edited text, keywords and tags with the known secrets masked."""
    out = dict(changes)
    for key in ("text", "keywords", "tags"):
        value = out.get(key)
        if isinstance(value, str):
            out[key] = mask(value)
        elif isinstance(value, list):
            out[key] = [mask(v) if isinstance(v, str) else v for v in value]
    if out != changes:
        click.echo(f"note: tip {tip_id} held a secret; it is stored masked", err=True)
    return out


@tips.command("edit")
@click.argument("tip_id")
@click.option("--text", default=None, help="New text ('-': stdin).")
@click.option("--pattern", "patterns", multiple=True, help="Replace the URL patterns.")
@click.option("--keyword", "keywords", multiple=True, help="Replace the keywords.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags.")
@click.option("--site", default=None)
@click.option("--kind", type=click.Choice(KINDS), default=None)
@click.option("--template", "url_template", default=None)
@click.option("--author", default=None)
@click.pass_context
def edit_cmd(ctx: click.Context, tip_id: str, text: str | None, patterns: tuple[str, ...],
             keywords: tuple[str, ...], tags: tuple[str, ...], site: str | None,
             kind: str | None, url_template: str | None, author: str | None) -> None:
    """Edit a tip with flags, or in $EDITOR (YAML form) when no flag is given."""
    kb = _state(ctx).open()
    tip = kb.get(tip_id)
    changes: dict = {}
    if text is not None:
        changes["text"] = _read_text(text)
    if patterns:
        changes["url_patterns"] = list(patterns)
    if keywords:
        changes["keywords"] = _split(keywords)
    if tags:
        changes["tags"] = _split(tags)
    for key, value in (("site", site), ("kind", kind), ("url_template", url_template),
                       ("author", author)):
        if value is not None:
            changes[key] = value
    if not changes:
        edited = click.edit(_edit_form(tip), extension=".yaml", require_save=True)
        if edited is None:
            click.echo("no changes", err=True)
            return
        changes = _parse_edit_form(edited, tip_id)
    changes = _masked_changes(changes, _state(ctx).masker(), tip_id)
    new = kb.update(tip_id, **changes)
    click.echo(f"{new.id} {'unchanged' if new == tip else 'updated'}")


@tips.command("rm")
@click.argument("tip_ids", nargs=-1, required=True)
@click.pass_context
def rm_cmd(ctx: click.Context, tip_ids: tuple[str, ...]) -> None:
    """Remove tips (all or none: an unknown id removes nothing)."""
    _state(ctx).open().remove(*tip_ids)
    click.echo(f"removed {len(tip_ids)} tip{'s' * (len(tip_ids) != 1)}")


@tips.command("search")
@click.option("--url", default=None, help="Page URL the agent is on.")
@click.option("--goal", required=True, help="What the agent is trying to do.")
@click.option("--k", "k", type=click.IntRange(1, 100), default=3, show_default=True)
@click.option("--budget", type=click.IntRange(1), default=400, show_default=True,
              help="Token budget for the returned tips.")
@click.option("--stage", "stages", multiple=True, type=click.Choice(STAGES),
              help="Only these stages (default: all).")
@click.option("--no-embeddings", is_flag=True, help="Skip the embedding stage.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def search_cmd(ctx: click.Context, url: str | None, goal: str, k: int, budget: int,
               stages: tuple[str, ...], no_embeddings: bool, as_json: bool) -> None:
    """Retrieve the tips the agent would see for a page and goal."""
    kb = _state(ctx).open(embeddings=not no_embeddings)
    started = time.perf_counter()
    found = kb.search(url, goal, k=k, token_budget=budget, stages=stages or None)
    took = time.perf_counter() - started
    if as_json:
        click.echo(json.dumps([r.to_json() for r in found], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(found)} tips in {took * 1000:.0f} ms")
    for column in ("id", "score", "why", "text"):
        table.add_column(column, overflow="fold")
    for r in found:
        table.add_row(escape(r.tip.id), f"{r.score:.3f}", escape(r.why), escape(r.tip.text))
    Console().print(table)


@tips.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Default: from the file name (.yaml/.yml or .md).")
@click.option("--replace", "on_conflict", flag_value="replace", help="Overwrite existing ids.")
@click.option("--skip-existing", "on_conflict", flag_value="skip", help="Keep existing ids.")
@click.pass_context
def import_cmd(ctx: click.Context, file: Path, fmt: str | None, on_conflict: str | None) -> None:
    """Import a YAML or Markdown file in one transaction (all tips or none).

    Imported tips are trusted instructions to the agent: it sees them outside the fence
    that marks page text as untrusted, and follows them. Import only files you have
    read; `tips lint FILE` flags tips that give the agent orders or send data away."""
    found = [_state(ctx).mask(t) for t in read_tips_file(file, fmt)]
    result = _state(ctx).open().add_many(found, on_conflict=on_conflict or "error")
    click.echo(f"imported {len(result.added)} new, {len(result.replaced)} replaced, "
               f"{len(result.skipped)} skipped from {file}")
    click.echo(TRUSTED_NOTE, err=True)
    stored = set(result.added) | set(result.replaced)
    orders = [f for f in lint_tips([t for t in found if t.id in stored])
              if f.category == "instruction"]
    for finding in orders:
        click.echo(f"warning: tip {finding.tip_id} {plain(finding.message)}", err=True)


@tips.command("export")
@click.argument("file", type=Destination("the tips file", folder=False, path_type=Path),
                required=False)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Default: from the file name, yaml on stdout.")
@click.option("--site", default=None)
@click.option("--no-stats", is_flag=True, help="Leave usage statistics out.")
@click.pass_context
def export_cmd(ctx: click.Context, file: Path | None, fmt: str | None, site: str | None,
               no_stats: bool) -> None:
    """Export tips as YAML or Markdown (to FILE, or stdout)."""
    fmt = detect_format(file, fmt) if file else (fmt or "yaml")
    text = dumps(_state(ctx).open().list(site=site), fmt, stats=not no_stats)
    if file is None:
        click.echo(text, nl=False)
    else:
        write_atomic(file, text)
        click.echo(f"exported to {file}", err=True)


@tips.command("lint")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None)
@click.option("--strict", is_flag=True, help="Exit non-zero on warnings too.")
@click.option("--embeddings", is_flag=True, help="Also find duplicates by embedding similarity.")
@click.pass_context
def lint_cmd(ctx: click.Context, file: Path | None, fmt: str | None, strict: bool,
             embeddings: bool) -> None:
    """Check tips (the store, or a file before importing it); one line per finding."""
    if file is not None:
        found = read_tips_file(file, fmt, check=False)
    else:
        found = _state(ctx).open().list()
    embedder = None
    if embeddings:
        from colorbrowser.knowledge.embed import default_embedder

        embedder = default_embedder()
    findings = lint_tips(found, embedder=embedder)
    for finding in findings:
        click.echo(str(finding))
    errors = sum(f.severity == "error" for f in findings)
    click.echo(f"{len(found)} tips, {errors} errors, {len(findings) - errors} warnings", err=True)
    if errors or (strict and findings):
        ctx.exit(1)


def _set_store(ctx: click.Context, param: click.Parameter, value) -> None:
    if value:  # given after the command name: same meaning as before it
        setattr(_state(ctx), param.name, value)


# `colorbrowser tips search --db kb.db ...` works as well as `tips --db kb.db search ...`.
for _command in tips.commands.values():
    _command.params += [
        click.Option(["--db"], type=Destination("the knowledge base", folder=False, path_type=Path),
                     expose_value=False,
                     callback=_set_store, help="Knowledge base file (as `tips --db`)."),
        click.Option(["--frozen"], is_flag=True, expose_value=False, callback=_set_store,
                     help="Open read-only (as `tips --frozen`)."),
    ]
