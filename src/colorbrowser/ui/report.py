"""``colorbrowser report STUDY_DIR``: report.md and report.html, and a short table here.

The HTML page is one file (inline CSS, thumbnails as data URIs) so it can be mailed
or kept as a CI artifact; links to episodes point at their ``trace.html`` pages
(``colorbrowser view STUDY_DIR`` writes them) by relative path, so the study folder
can be moved as a whole.
"""

from __future__ import annotations

import html
import os
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from urllib.parse import quote

import click
import jinja2
from rich.console import Console
from rich.table import Table

from colorbrowser.destination import Destination, Source
from colorbrowser.errors import UserError
from colorbrowser.evaluation.collaboration import CollaborationRow, collaboration
from colorbrowser.evaluation.collaboration import markdown as collaboration_markdown
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evaluation.report import Group, Rate, Report, build_report
from colorbrowser.safe_text import escape
from colorbrowser.ui.images import inside, thumbnail_uri
from colorbrowser.ui.trace import TRACE

MAX_THUMBNAILS = 300  # about 5 kB each: the page stays a few MB at most


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def ci(rate: Rate) -> str:
    low, high = rate.interval
    return f"{100 * low:.1f}–{100 * high:.1f}%"


def points(delta: float) -> str:
    return f"{100 * delta:+.1f} pts"


def md(text: object) -> str:
    """Safe in a Markdown table cell: no pipes or line breaks, no live HTML."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def clip(text: object, limit: int = 200) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def errors_line(group: Group) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in group.errors.items())


def mark(record: EpisodeRecord) -> str:
    if record.errored:
        return f"! {record.error_class}"
    return "✓" if record.success else "✗"


class Links:
    """Where each episode's trace page and final screenshot are, seen from ``out_dir``."""

    def __init__(self, study: Path, out_dir: Path, thumbnails: bool) -> None:
        self.study, self.out_dir = study, out_dir
        self.thumbnails_left = MAX_THUMBNAILS if thumbnails else 0

    def run_dir(self, record: EpisodeRecord) -> Path | None:
        """The episode's folder, if it exists inside the study (records are data)."""
        path = inside(self.study, record.trajectory)
        return path if path is not None and path.is_dir() else None

    def trace(self, record: EpisodeRecord) -> str | None:
        run_dir = self.run_dir(record)
        if run_dir is None or not (run_dir / TRACE).is_file():
            return None
        rel = os.path.relpath(run_dir / TRACE, self.out_dir.resolve())
        return quote(Path(rel).as_posix())

    def thumbnail(self, record: EpisodeRecord) -> str | None:
        run_dir = self.run_dir(record)
        if run_dir is None or self.thumbnails_left <= 0:
            return None
        shots = sorted((run_dir / "screenshots").glob("*-som.png"))
        uri = thumbnail_uri(shots[-1]) if shots else None
        if uri:
            self.thumbnails_left -= 1
        return uri


@cache
def _templates(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("colorbrowser.ui", "templates"),
        undefined=jinja2.StrictUndefined, autoescape=autoescape,
        trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pct=pct, ci=ci, points=points, md=md, clip=clip, mark=mark,
                       errors_line=errors_line)
    return env


def render(report: Report, links: Links) -> tuple[str, str]:
    """(Markdown, HTML) of the report."""
    context = {
        "report": report, "links": links,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "several_variants": len(report.variants) > 1,
    }
    return (_templates(False).get_template("report.md.j2").render(**context),
            _templates(True).get_template("report.html.j2").render(**context))


def summary_table(report: Report) -> Table:
    table = Table(title=f"success, {escape(str(report.study))}", title_justify="left")
    for name in ("", "episodes", "success", "rate", "95% CI", "failed", "errored"):
        table.add_column(name, justify="left" if not name else "right")
    rows = [report.overall]
    if len(report.variants) > 1:
        rows += report.variants
    if len(report.sites) > 1:
        rows += report.sites
    for g in rows:
        table.add_row(escape(g.name), str(g.episodes), str(g.rate.successes), pct(g.rate.value),
                      ci(g.rate), str(g.failures), str(g.errored))
    return table


def collaboration_table(rows: list[CollaborationRow]) -> Table:
    table = Table(title="collaboration (copilot runs)", title_justify="left")
    for name in ("", "episodes", "success", "agent steps", "human steps", "total",
                 "human share", "interventions", "agent-driven"):
        table.add_column(name, justify="left" if not name else "right")
    for r in rows:
        table.add_row(escape(r.variant), str(r.episodes), pct(r.success), f"{r.agent_steps:.1f}",
                      f"{r.human_steps:.1f}", f"{r.total_steps:.1f}", pct(r.human_share),
                      f"{r.interventions:.1f}", pct(r.agent_driven))
    return table


@click.command("report")
@click.argument("study", type=Source(path_type=Path))
@click.option("--compare", "other", type=Source(path_type=Path), default=None,
              metavar="OTHER_STUDY", help="Show per-task differences against this study.")
@click.option("--out", "out_dir",
              type=Destination("the report folder", folder=True, path_type=Path), default=None,
              help="Folder for report.md and report.html (default: the study folder).")
@click.option("--thumbnails/--no-thumbnails", default=True, show_default=True,
              help="Embed each episode's final screenshot in report.html.")
def report_command(study: Path, other: Path | None, out_dir: Path | None,
                   thumbnails: bool) -> int:
    """Success rates (Wilson 95% intervals) overall, per site, per variant and per task;
    errors apart from failures; steps, tokens, cost and time. Writes report.md and
    report.html into STUDY (or --out)."""
    report = build_report(study, other)
    out_dir = out_dir or study
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--out {out_dir} is a file; give a folder")
    links = Links(study, out_dir, thumbnails)
    markdown, page = render(report, links)
    together = collaboration(study, report.records)
    markdown += collaboration_markdown(together)
    paths = (out_dir / "report.md", out_dir / "report.html")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for path, text in zip(paths, (markdown, page), strict=True):
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the report into {out_dir}: {exc.strerror}") from None
    console = Console()
    for warning in report.warnings:
        console.print(f"[yellow]warning[/] {escape(warning)}")
    console.print(summary_table(report))
    if together:
        console.print(collaboration_table(together))
    if report.verdicts.judged:
        console.print(f"verdicts: {escape(report.verdicts.line())}")
    if report.overall.errored:
        console.print(f"errored (counted as not successful): "
                      f"{escape(errors_line(report.overall))}")
    c = report.comparison
    if c is not None:
        console.print(
            f"against {escape(c.a_name)}: {c.a.successes}/{c.a.total} -> {c.b.successes}/"
            f"{c.b.total} ({points(c.delta)}) over matched episodes; "
            f"{len(c.fixed)} fixed, {len(c.broken)} broken")
    if not any(links.trace(r) for r in report.records):
        console.print(f"episode pages: colorbrowser view {escape(str(study))}, "
                      "then report again to link them")
    for path in paths:
        console.print(escape(str(path)), soft_wrap=True)
    return 0
