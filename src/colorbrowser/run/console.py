"""Live display of an episode in the terminal: each step, the tips it was given, and
the summary at the end. Everything shown came from a page or a model, so it is
escaped (rich markup) and stripped of control characters (safe_text)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.safe_text import escape
from colorbrowser.steps import EpisodeResult, Step, StepContext


def _clip(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConsoleHook(Hook):
    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)

    def on_start(self, episode: EpisodeView) -> None:
        self.console.print(f"[bold]goal[/] {escape(episode.redact(episode.goal))}")
        if episode.start_url:
            self.console.print(f"[bold]start[/] {escape(episode.redact(episode.start_url))}")

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        step = Step.model_validate(episode.redact(step.to_json()))  # a log too: no keys in it
        result = step.result
        mark = "[green]ok[/]" if result.ok else f"[red]error[/] {escape(_clip(result.error))}"
        if result.output and result.ok:
            mark += f" -> {escape(_clip(result.output, 80))}"
        who = "" if step.actor == "agent" else f" [magenta]{step.actor}[/]"
        self.console.print(f"[cyan]step {step.step}/{episode.max_steps}[/]{who} "
                           f"[dim]{escape(_clip(step.url, 80))}[/]")
        if step.thought:
            self.console.print(f"  [dim]thought[/] {escape(_clip(step.thought))}")
        for trigger in step.triggers:
            self.console.print(f"  [yellow]trigger[/] {escape(_clip(trigger.reason))}")
        for gate in step.gate:
            if gate.verdict != "run" or gate.edited_from:
                self.console.print(f"  [yellow]gate[/] {gate.verdict} by {escape(gate.by)}"
                                   + (f": {escape(_clip(gate.reason))}" if gate.reason else ""))
        usage = step.usage
        self.console.print(
            f"  [bold]{escape(step.action or '(no valid action)')}[/] {mark} "
            f"[dim]{usage.prompt_tokens}+{usage.completion_tokens} tok[/]")


class KnowledgeConsole(Hook):
    """Shows which tips and shortcuts the agent was given or used."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._last: tuple[list[str], list[str]] | None = None

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        current = (list(ctx.tip_ids), [s.split(":", 1)[0] for s in ctx.shortcuts])
        if current != self._last and (current[0] or current[1]):
            tips = ", ".join(current[0]) or "none"
            line = f"  [magenta]tips[/] {escape(tips)}"
            if current[1]:
                line += f"  [magenta]shortcuts[/] {escape(', '.join(current[1]))}"
            self.console.print(line)
        self._last = current
        if ctx.shortcut is not None:
            self.console.print(f"  [magenta]shortcut used[/] {escape(ctx.shortcut.id)} "
                               f"-> {escape(ctx.shortcut.url)}")


def print_summary(console: Console, result: EpisodeResult) -> None:
    table = Table(show_header=False, box=None)
    table.add_row("status", result.status)
    if result.verification is not None:
        v = result.verification
        colour = {"verified": "green", "refuted": "red"}.get(v.verdict, "yellow")
        table.add_row("verdict", f"[{colour}]{v.verdict}[/]"
                      + (f": {escape(_clip(v.reason_text(), 300))}" if v.reasons else ""))
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
