"""TerminalAsker: a person answers help requests at the terminal.

It reads plain lines, so it works the same on a terminal, a pipe or a StringIO
(tests script the person that way). End of input means "skip, and do not ask
again"; a mistake (empty tip, broken pattern) is one line and the question again.
"""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from colorbrowser.hitl.asking import WHOLE_SITE, AnswerKind, HelpAnswer, HelpRequest
from colorbrowser.knowledge.lint import lint
from colorbrowser.knowledge.tip import InvalidTip
from colorbrowser.safe_text import escape

_LABELS: dict[str, str] = {
    "tip": "[t]ip: teach the agent how this site works (stored)",
    "hint": "[h]int: a one-off hint for this run (not stored)",
    "skip": "[s]kip: let the agent go on",
    "abort": "[a]bort: stop this run",
    "quit": "[q]uit: stop reviewing",
}


# How a good tip reads (the papers' template): scope, action, constraint, goal alignment.
TIP_TEMPLATE = ("Write it as: where it applies (scope), what to do (action), what must or "
                "must not happen (constraint), and what it achieves (goal). E.g. \"On the "
                "checkout page, tick 'I agree' before Place order; otherwise the order is not "
                "placed.\"")


class _Closed(Exception):
    """The input ended."""


class TerminalAsker:
    def __init__(self, console: Console | None = None, stream: TextIO | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.stream = stream

    # -- input ------------------------------------------------------------------
    def _line(self, prompt: str) -> str:
        # Escaped: a proposed scope in [brackets] would otherwise read as markup and vanish.
        self.console.print(f"[bold cyan]{escape(prompt)}[/] ", end="")
        stream = self.stream or sys.stdin
        line = stream.readline()
        if not line:
            self.console.print("[dim](end of input)[/]")
            raise _Closed
        answer = line.rstrip("\r\n")
        if not (hasattr(stream, "isatty") and stream.isatty()):
            self.console.print(escape(answer), style="dim")  # echo what a script typed
        return answer.strip()

    def _error(self, message: str) -> None:
        self.console.print(f"[red]error:[/] {escape(message)}")

    # -- the conversation -------------------------------------------------------
    def show(self, request: HelpRequest) -> None:
        table = Table(show_header=False, box=None, padding=(0, 1))
        table.add_row("[bold]why[/]", escape(request.reason))
        table.add_row("[bold]goal[/]", escape(request.goal))
        where = request.url + (f"  (step {request.step})" if request.step else "")
        table.add_row("[bold]page[/]", escape(where))
        if request.live_url:
            table.add_row("[bold]served at[/]", escape(request.live_url))
        if request.summary:
            table.add_row("[bold]summary[/]", escape(request.summary))
        if request.last_actions:
            table.add_row("[bold]last actions[/]", escape("\n".join(request.last_actions)))
        if request.screenshot:
            table.add_row("[bold]screenshot[/]", escape(request.screenshot))
        if request.run_dir:
            table.add_row("[bold]run folder[/]", escape(request.run_dir))
        self.console.print(Panel(table, title=escape(request.title), border_style="yellow"))

    def ask(self, request: HelpRequest) -> HelpAnswer:
        self.show(request)
        try:
            kind = self._choose(request.choices)
            if kind == "tip":
                return self._tip(request)
            if kind == "hint":
                return HelpAnswer("hint", text=self._text("hint for this run"))
            return HelpAnswer(kind)
        except _Closed:
            return HelpAnswer("skip", closed=True)

    def _choose(self, choices: tuple[AnswerKind, ...]) -> AnswerKind:
        for choice in choices:
            self.console.print(f"  {escape(_LABELS[choice])}")
        keys = {c[0]: c for c in choices}
        while True:
            raw = self._line(f"answer ({'/'.join(keys)})").lower()
            if raw in keys or raw in choices:
                return keys.get(raw) or raw  # type: ignore[return-value]
            self._error(f"answer one of {', '.join(keys)}")

    def _text(self, prompt: str) -> str:
        while True:
            text = self._line(prompt)
            if text:
                return text
            self._error(f"the {prompt.split()[0]} is empty: write a sentence, or end input "
                        "to skip")

    def _tip(self, request: HelpRequest) -> HelpAnswer:
        if not request.can_store:
            self.console.print("[yellow]knowledge is off or frozen: the tip is used in this "
                               "run only, not stored[/]")
        self.console.print(f"[dim]{escape(TIP_TEMPLATE)}[/]")
        text = self._text("tip (how the site works, for every task on it)")
        while True:
            site = self._line(f"site [{request.site}]") or request.site
            shown = request.pattern or WHOLE_SITE
            raw = self._line(f"URL pattern [{shown}] ('{WHOLE_SITE}' for the whole site)")
            pattern = raw or request.pattern
            patterns = [] if pattern in ("", WHOLE_SITE) else [pattern]
            answer = HelpAnswer("tip", text=text, site=site, patterns=patterns)
            try:
                tip = answer.tip()
            except InvalidTip as exc:
                self._error(str(exc))
                if "empty" in str(exc):
                    text = self._text("tip (how the site works, for every task on it)")
                continue
            for finding in lint([tip]):
                self.console.print(f"[yellow]note:[/] {escape(finding.message)}")
            answer.site = tip.site
            return answer
