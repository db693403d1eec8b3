"""``colorbrowser view RUN_DIR|STUDY_DIR``: write trace.html pages to open in a browser."""

from __future__ import annotations

from pathlib import Path

import click

from colorbrowser.destination import Destination, Source
from colorbrowser.errors import UserError
from colorbrowser.evaluation.records import RESULTS, STUDY, EpisodeRecord, read_records
from colorbrowser.ui.images import inside
from colorbrowser.ui.trace import write_trace

RUN_FILES = ("steps.jsonl", "meta.json", "result.json")


def is_run_dir(path: Path) -> bool:
    return any((path / name).is_file() for name in RUN_FILES)


def study_runs(study: Path) -> list[tuple[Path, EpisodeRecord | None]]:
    """Every run folder of a study (older attempts too), with its record when it has one.
    Folders named by records must lie inside the study: the page is written there."""
    found: dict[Path, EpisodeRecord | None] = {}
    for record in read_records(study / RESULTS):
        path = inside(study, record.trajectory)
        if path is not None and is_run_dir(path):
            found[path] = record
    runs = study / "runs"
    if runs.is_dir():
        for path in sorted(runs.glob("*/*")):
            if path.is_dir() and is_run_dir(path):
                found.setdefault(path.resolve(), None)
    return sorted(found.items(), key=lambda item: str(item[0]))


@click.command("view")
@click.argument("folder", type=Source(path_type=Path))
@click.option("--out", "out", type=Destination("the page", folder=False, path_type=Path),
              default=None,
              help="Where to write the page (one run folder only; default RUN_DIR/trace.html).")
def view_command(folder: Path, out: Path | None) -> int:
    """Write FOLDER/trace.html: one episode's steps, screenshots, thoughts and actions in
    one file that opens in any browser. Given a study folder, write one per run folder."""
    if not folder.exists():
        raise UserError(f"no such folder: {folder}")
    if not folder.is_dir():
        raise UserError(f"{folder} is a file; give a run folder or a study folder")
    if is_run_dir(folder):
        click.echo(str(write_trace(folder, out)))
        return 0
    if not ((folder / RESULTS).is_file() or (folder / STUDY).is_file()):
        raise UserError(f"{folder} is neither a run folder (steps.jsonl) nor a study folder "
                        f"({RESULTS})")
    if out is not None:
        raise UserError("--out names one file, so it works with a run folder only")
    runs = study_runs(folder)
    for path, record in runs:
        write_trace(path, record=record)
    click.echo(f"wrote {len(runs)} trace(s) under {folder / 'runs'}")
    return 0
