"""Live display of an episode in the terminal, as a Hook."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from colorbrowser.agent.hooks import Hook
from colorbrowser.safe_text import escape

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode, EpisodeResult


def _clip(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConsoleHook(Hook):
    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)

    def on_start(self, episode: Episode) -> None:
        s = episode.state
        self.console.print(f"[bold]goal[/] {escape(episode.redact(s.goal))}")
        if s.start_url:
            self.console.print(f"[bold]start[/] {escape(episode.redact(s.start_url))}")

    def after_step(self, episode: Episode, ctx: Any, record: dict[str, Any]) -> None:
        record = episode.redact(record)  # the terminal is a log too: no keys in it
        result = record["result"]
        mark = "[green]ok[/]" if result["ok"] else f"[red]error[/] {escape(_clip(result['error']))}"
        if result.get("output") and result["ok"]:
            mark += f" -> {escape(_clip(result['output'], 80))}"
        usage = record["usage"]
        self.console.print(
            f"[cyan]step {record['step']}/{episode.settings.max_steps}[/] "
            f"[dim]{escape(_clip(record['url'], 80))}[/]"
        )
        if record["thought"]:
            self.console.print(f"  [dim]thought[/] {escape(_clip(record['thought']))}")
        for trigger in record.get("triggers") or []:
            self.console.print(f"  [yellow]trigger[/] {escape(_clip(str(trigger.get('reason'))))}")
        self.console.print(
            f"  [bold]{escape(record['action'] or '(no valid action)')}[/] {mark} "
            f"[dim]{usage['prompt_tokens']}+{usage['completion_tokens']} tok[/]"
        )


def print_summary(console: Console, result: EpisodeResult) -> None:
    table = Table(show_header=False, box=None)
    table.add_row("status", result.status)
    table.add_row("answer", escape(result.answer) if result.answer is not None else "-")
    table.add_row("steps", str(result.steps))
    u = result.usage
    table.add_row("tokens", f"{u.total_tokens} ({u.prompt_tokens} in, {u.completion_tokens} out,"
                            f" {u.calls} calls)")
    table.add_row("cost", f"{u.cost:.4f}")
    table.add_row("time", f"{result.elapsed:.1f} s")
    if result.run_dir:
        table.add_row("run folder", escape(result.run_dir))
    if result.error:
        table.add_row("note", escape(result.error))
    console.print(table)
