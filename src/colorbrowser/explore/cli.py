"""``colorbrowser explore START``: explore a site or an arena app and write the graph,
tasks, tips and a training set. START is a URL, ``demo`` (the bundled shop) or an
arena app's name."""

from __future__ import annotations

import contextlib
from pathlib import Path
from urllib.parse import urlsplit

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from colorbrowser.browser.policy import url_host_entries
from colorbrowser.destination import Destination
from colorbrowser.errors import UserError
from colorbrowser.explore.baselines import STRATEGIES
from colorbrowser.explore.synth import MAX_TASKS
from colorbrowser.run.flags import model_flags, model_options


class ArenaSandbox:
    """An arena app: its snapshot is restored hot, and its SQLite files are diffed."""

    def __init__(self, arena, app: str) -> None:
        self.arena, self.app = arena, app
        self.name = f"arena {app}"

    def reset(self) -> None:
        self.arena.reset([self.app])

    def db_paths(self) -> list[Path]:
        return self.arena.db_paths(self.app)


def allowed_hosts(text: str | None, start: str) -> list[str]:
    """The start URL's host at its port only (another port of 127.0.0.1 is another
    service: another arena instance, a copilot panel, a model server), then ``--allow``."""
    extra = [h.strip() for h in (text or "").split(",") if h.strip()]
    return [*url_host_entries(start), *extra]


@click.command("explore")
@click.argument("start")
@click.option("--budget", type=click.IntRange(min=1), default=100, show_default=True,
              help="Browser actions to spend, backtracking included.")
@click.option("--allow", "allow", default=None,
              help="More hosts the browser may reach, comma-separated (host or host:port); "
                   "the start URL's host at its port always may.")
@click.option("--out", "out_dir",
              type=Destination("the exploration folder", folder=True, path_type=Path),
              default=None, help="Folder for the exploration (run again to resume).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--strategy", type=click.Choice(STRATEGIES), default="ours", show_default=True,
              help="ours (SCALE-Hop) or a baseline.")
@click.option("--instance", type=click.IntRange(0, 50), default=0, show_default=True,
              help="Arena instance, when START is an arena app.")
@click.option("--user", default=None, help="Arena app: explore logged in as this seeded user.")
@click.option("--reset-running", is_flag=True,
              help="Arena app already running on --instance: reset it (wiping its data) and "
                   "explore it anyway.")
@click.option("--screenshots", type=click.Choice(["all", "nodes", "none"]), default="all",
              show_default=True)
@click.option("--tasks/--no-tasks", default=True, show_default=True,
              help="Synthesise and validate tasks at the end.")
@click.option("--max-tasks", type=click.IntRange(min=0), default=MAX_TASKS, show_default=True,
              help="Tasks proved at most, taken in turn from each kind (each proof takes "
                   "a few seconds).")
@click.option("--kb", "kb_path",
              type=Destination("the knowledge base", folder=False, path_type=Path), default=None,
              help="Knowledge base whose review queue gets the findings.")
@click.option("--predictor", type=click.Choice(["rules", "model"]), default="rules",
              show_default=True,
              help="model: a model predicts the actions the rules abstain on.")
@click.option("--intents", type=click.Choice(["templates", "model"]), default="templates",
              show_default=True,
              help="model: a model rewrites kept tasks' intents (checked, else the template's).")
@click.option("--workflows", is_flag=True,
              help="Learn a workflow from each proved task into the knowledge base (--kb, "
                   "else the configured one), so matching goals run without a model.")
@model_options
@click.option("--headed", is_flag=True)
def explore_command(start, budget, allow, out_dir, seed, strategy, instance, user, reset_running,
                    screenshots, tasks, max_tasks, kb_path, predictor, intents, workflows,
                    config_path, base_url, model_name, api_key_env, headed):
    """Explore START: find what the agent cannot predict; write graph, tasks, tips, data."""
    from colorbrowser.explore.run import ExploreRequest, explore

    if workflows and not tasks:
        raise UserError("--workflows learns from the proved tasks: it needs --tasks")
    console = Console(stderr=True)
    with contextlib.ExitStack() as stack:
        out = out_dir or Path("explorations") / _slug(start)
        site = _site(start, instance, user, stack, out, reset_running)
        request = ExploreRequest(
            start_url=site.url, budget=budget, out=out, seed=seed, strategy=strategy,
            allow_hosts=allowed_hosts(allow, site.url), screenshots=screenshots, tasks=tasks,
            max_tasks=max_tasks, kb_path=kb_path, config_path=config_path, headed=headed,
            sandbox=site.sandbox,
            cookies=site.cookies, predictor=predictor, intents=intents, workflows=workflows,
            overrides=model_flags(base_url, model_name, api_key_env))
        progress = Progress(TextColumn("[bold]explore[/]"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[info]}"), TimeElapsedColumn(),
                            console=console, transient=False)
        bar = None

        def on_step(state) -> None:
            nonlocal bar
            if bar is None:  # shown from the first action, so an early error stays one line
                progress.start()
                stack.callback(progress.stop)
                bar = progress.add_task("explore", total=state.budget, info="")
            progress.update(bar, completed=state.used, total=state.budget,
                            info=f"states {len(state.graph.nodes)} · findings "
                                 f"{len(state.graph.findings)}")

        summary = explore(request, on_step=on_step, say=console.print)
        progress.stop()
    console.print(summary)


class _Site:
    def __init__(self, url: str, sandbox=None, cookies=None) -> None:
        self.url, self.sandbox, self.cookies = url, sandbox, cookies


def _previous_start(out: Path) -> str | None:
    """The start address an earlier run in ``out`` explored (to resume it), if any."""
    import json

    from colorbrowser.explore.state import STATE_FILE

    try:
        return json.loads((out / STATE_FILE).read_text("utf-8")).get("start_url")
    except (OSError, ValueError, AttributeError):
        return None


def demo_site(stack: contextlib.ExitStack, out: Path) -> _Site:
    """The bundled shop on 127.0.0.1; a resumed run gets the same port and path back,
    since its graph and paths name them."""
    from colorbrowser.demo.cli import SITE
    from colorbrowser.static_server import StaticServer

    token, port = None, 0
    previous = _previous_start(out)
    if previous:
        parts = urlsplit(previous)
        if parts.hostname == "127.0.0.1" and parts.port:
            token, port = parts.path.strip("/").split("/", 1)[0], parts.port
    try:
        server = stack.enter_context(StaticServer(SITE, token=token, port=port))
    except OSError as exc:
        raise UserError(f"cannot serve the demo shop on port {port} again to resume {out} "
                        f"({exc.strerror}); explore into another --out") from None
    return _Site(f"{server.url}/index.html", sandbox="browser")


def _site(start: str, instance: int, user: str | None, stack: contextlib.ExitStack,
          out: Path, reset_running: bool = False) -> _Site:
    """A URL as given; ``demo`` served here; an arena app started from its snapshot."""
    if start == "demo":
        return demo_site(stack, out)
    from colorbrowser.arena.apps import APPS

    if start in APPS:
        return _arena_site(start, instance, user, stack, reset_running)
    parts = urlsplit(start)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"START must be an http(s) URL, 'demo' or an arena app "
                        f"({', '.join(APPS)}), not {start!r}")
    if user:
        raise UserError("--user is for arena apps only")
    if reset_running:
        raise UserError("--reset-running is for arena apps only")
    return _Site(start)


def _arena_site(app: str, instance: int, user: str | None, stack: contextlib.ExitStack,
                reset_running: bool = False) -> _Site:
    """The app on arena ``instance``, started here from its snapshot (and stopped after).
    Exploring resets the app again and again, so an app someone already runs there is
    refused unless ``reset_running`` says its data may be wiped."""
    import json

    from colorbrowser.arena import Arena

    arena = Arena(instance)
    if app not in arena.running():
        arena.up([app])
        stack.callback(arena.down, [app])
    elif not reset_running:
        raise UserError(f"{app} is already running on arena instance {instance} and exploring "
                        f"resets its data: pass --instance N for a free copy, stop it with "
                        f"`colorbrowser arena down {app} --instance {instance}`, or pass "
                        "--reset-running to wipe it")
    else:
        arena.reset([app])
    cookies = None
    if user:
        state = json.loads(arena.login_state(app, user).read_text("utf-8"))
        cookies = state.get("cookies") or None
    return _Site(arena.base_url(app) + "/", sandbox=ArenaSandbox(arena, app), cookies=cookies)


def _slug(start: str) -> str:
    from colorbrowser.agent.trajectory import slugify

    return slugify(start.split("://", 1)[-1], 40)
