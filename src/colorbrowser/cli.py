"""The ``colorbrowser`` command. Subcommands live next to the code they drive.

Commands are imported lazily so that ``colorbrowser --help`` stays fast and a
missing optional extra only breaks the command that needs it.
"""

from __future__ import annotations

import importlib
import sys

import click

from colorbrowser.errors import ColorBrowserError, UserError
from colorbrowser.safe_text import plain

# name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "run": "colorbrowser.run.cli:run_command",
    "resume": "colorbrowser.run.cli:resume_command",
    "login": "colorbrowser.run.cli:login_command",
    "eval": "colorbrowser.evaluation.cli:eval_command",
    "tips": "colorbrowser.knowledge.cli:tips",
    "workflows": "colorbrowser.workflows.cli:workflows",
    "doctor": "colorbrowser.doctor:doctor_command",
    "demo": "colorbrowser.demo.cli:demo_command",
    "observe": "colorbrowser.browser.cli:observe_command",
    "adapt": "colorbrowser.evaluation.adapt:adapt_command",
    "review": "colorbrowser.hitl.cli:review_command",
    "report": "colorbrowser.ui.report:report_command",
    "view": "colorbrowser.ui.cli:view_command",
    "arena": "colorbrowser.arena.cli:arena",
    "copilot": "colorbrowser.copilot.cli:copilot_command",
    "session": "colorbrowser.copilot.session_cli:session",
    "explore": "colorbrowser.explore.cli:explore_command",
    "mcp": "colorbrowser.mcp.cli:mcp_command",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module, attr = COMMANDS[cmd_name].split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="colorbrowser")
def cli() -> None:
    """Web agents that finish long tasks on real websites."""


ERROR_CHARS = 2000  # a message quoting a whole hostile file stays readable


def one_line(message: object) -> str:
    """An error as one line: messages quote names and values from files, which may hold
    line breaks (a tip id, a path, a page title) or be huge."""
    text = " ".join(plain(message).split())
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS - 1] + "…"


def main(argv: list[str] | None = None) -> None:
    """Entry point: user mistakes become one line on stderr and a non-zero exit."""
    try:
        code = cli.main(args=argv, prog_name="colorbrowser", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"error: {one_line(exc.format_message())}", err=True)
        sys.exit(exc.exit_code)
    except UserError as exc:
        click.echo(f"error: {one_line(exc)}", err=True)
        sys.exit(2)
    except ColorBrowserError as exc:  # e.g. the browser or the model endpoint failed
        click.echo(f"error: {one_line(exc)}", err=True)  # may quote what an endpoint sent
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    if isinstance(code, int) and code:
        sys.exit(code)
