"""``colorbrowser session export|import``: a run (a copilot session) as portable files."""

from __future__ import annotations

from pathlib import Path

import click

from colorbrowser.destination import Destination, Source


@click.group("session")
def session() -> None:
    """Export a run with its screenshots and turns, or import one back."""


@session.command("export")
@click.argument("run_dir", type=Source(file_okay=False, path_type=Path))
@click.argument("out", type=Destination("the export", folder=True, path_type=Path))
def export_command(run_dir: Path, out: Path) -> None:
    """Write RUN_DIR to OUT: steps.jsonl (with images), turns.jsonl, meta, result."""
    from colorbrowser.copilot.export import export_session

    click.echo(f"exported {export_session(run_dir, out)} steps to {out}")


@session.command("import")
@click.argument("export", type=Source(file_okay=False, path_type=Path))
@click.argument("run_dir", type=Destination("the run folder", folder=True, path_type=Path))
def import_command(export: Path, run_dir: Path) -> None:
    """Rebuild a run folder RUN_DIR (new or empty) from an export. Everything is checked
    first; a bad export changes nothing."""
    from colorbrowser.copilot.export import import_session

    click.echo(f"imported {import_session(export, run_dir)} steps into {run_dir}")
