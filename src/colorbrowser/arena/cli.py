"""``colorbrowser arena install|build|up|status|reset|down [APPS]``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from colorbrowser.arena.apps import APPS, select
from colorbrowser.arena.arena import Arena
from colorbrowser.destination import Destination

console = Console(stderr=True)
instance_option = click.option("--instance", "-i", type=click.IntRange(0, 50), default=0,
                               show_default=True, help="Which copy of the arena (shifts ports).")
ports_option = click.option("--ports", default=None, metavar="APP=PORT,...",
                            help="Base ports of some apps (before the instance shift).")
apps_argument = click.argument("apps", nargs=-1, metavar=f"[{'|'.join(APPS)}]...")


def _arena(instance: int, ports: str | None) -> Arena:
    from colorbrowser.arena.ports import parse_ports

    return Arena(instance, ports=parse_ports(ports, set(APPS)))


@contextmanager
def _progress(title: str) -> Iterator:
    """A spinner naming the current stage; each finished stage is printed with its time."""
    last: dict[str, tuple[str, float]] = {}
    with console.status(title) as status:
        def say(app: str, message: str) -> None:
            now = time.monotonic()
            if app in last:
                done, since = last[app]
                console.print(f"  [dim]{app}: {done} ({now - since:.1f} s)[/dim]")
            last[app] = (message, now)
            status.update(f"{app}: {message}")

        yield say
        for app, (done, since) in last.items():
            console.print(f"  [dim]{app}: {done} ({time.monotonic() - since:.1f} s)[/dim]")


@click.group("arena")
def arena() -> None:
    """A local arena of real web apps: shop, forum, trac, wiki, tracker."""


@arena.command("install")
@apps_argument
def install_command(apps: tuple[str, ...]) -> None:
    """Install the apps: a venv per pip app, Debian packages for the others."""
    select(list(apps))
    with _progress("installing") as say:
        done = _arena(0, None).install(apps, say)
    for name, did in done.items():
        click.echo(f"{name}: {'installed' if did else 'already installed'}")


@arena.command("build")
@apps_argument
def build_command(apps: tuple[str, ...]) -> None:
    """Migrate, seed and snapshot the apps (deterministic: same content hash every time)."""
    with _progress("building") as say:
        metas = _arena(0, None).build(apps, say)
    for name, meta in metas.items():
        click.echo(f"{name}: built in {meta.build_seconds:.1f} s, content {meta.content_hash[:16]}")


CREDENTIALS_NOTE = (
    "note: these are fixed test credentials, public in ColorBrowser's source. The apps "
    "listen on 127.0.0.1 only and refuse requests addressed to any other name; never "
    "expose the arena beyond loopback (no port forwarding, proxy or tunnel).")


@arena.command("up")
@apps_argument
@instance_option
@ports_option
def up_command(apps: tuple[str, ...], instance: int, ports: str | None) -> None:
    """Start the apps from their snapshots and print their addresses and test logins
    (fixed credentials, public in ColorBrowser's source: keep the arena on loopback)."""
    arena_ = _arena(instance, ports)
    started = time.monotonic()
    with _progress("starting") as say:
        arena_.up(apps, say)
    click.echo(f"arena instance {instance} up in {time.monotonic() - started:.1f} s")
    for app in select(list(apps)):
        field = app.login.login_with
        logins = ", ".join(f"{getattr(a, field)} / {a.password} ({a.role})"
                           for a in arena_.accounts(app.name)[:4])
        more = len(arena_.accounts(app.name)) - 4
        click.echo(f"  {app.name:8} {arena_.base_url(app.name):24} {app.title}")
        click.echo(f"  {'':8} test logins: {logins}" + (f" (+{more} more)" if more > 0
                                                           else ""))
    click.echo(CREDENTIALS_NOTE)


@arena.command("reset")
@apps_argument
@instance_option
@ports_option
def reset_command(apps: tuple[str, ...], instance: int, ports: str | None) -> None:
    """Restore the snapshot into the running apps (hot, without a restart)."""
    timings = _arena(instance, ports).reset(apps)
    for name, seconds in timings.items():
        click.echo(f"{name}: reset in {seconds * 1000:.0f} ms")


@arena.command("down")
@apps_argument
@instance_option
def down_command(apps: tuple[str, ...], instance: int) -> None:
    """Stop every server this instance started (whole process groups)."""
    stopped = _arena(instance, None).down(apps)
    click.echo(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")


@arena.command("status")
@apps_argument
@instance_option
@ports_option
@click.option("--hash", "live_hash", is_flag=True, help="Also hash the live content.")
def status_command(apps: tuple[str, ...], instance: int, ports: str | None,
                   live_hash: bool) -> None:
    """What is installed, built and running; the snapshot's content hash."""
    arena_ = _arena(instance, ports)
    table = Table(box=None)
    for col in ("app", "installed", "snapshot", "running", "address"):
        table.add_column(col, no_wrap=True)
    if live_hash:
        table.add_column("live hash")
    for st in arena_.status(apps):
        row = [st.app, "yes" if st.installed else "no",
               f"content {st.built.content_hash[:12]}" if st.built else "not built",
               f"pid {st.pgid}" if st.running else "no", st.url]
        if live_hash:
            same = st.built and arena_.layout.live(instance, st.app).exists()
            row.append(arena_.content_hash(st.app)[:12] if same else "-")
        table.add_row(*row)
    Console(width=200).print(table)


@arena.command("env")
@instance_option
def env_command(instance: int) -> None:
    """Print WA_* exports for this instance, so any WebArena task file runs against it:
    eval "$(colorbrowser arena env)"; colorbrowser eval my_tasks.json"""
    from colorbrowser.arena.exports import exports

    for line in exports(_arena(instance, None)):
        click.echo(line)


@arena.command("write-tasks", hidden=True)
@click.argument("groups", nargs=-1)
@click.option("--out", type=Destination("the task files folder", folder=True, path_type=Path),
              default=None,
              help="Folder for the task files (default: the package's own).")
def write_tasks_command(groups: tuple[str, ...], out: Path | None) -> None:
    """Write the task files and oracle plans from the built snapshots (maintainers)."""
    from colorbrowser.arena.suite import tasks_dir
    from colorbrowser.arena.tasks.write import write_tasks

    counts = write_tasks(_arena(0, None).layout, out or tasks_dir(), list(groups) or None,
                         say=click.echo)
    click.echo(f"tasks: {sum(counts.values())}")


@arena.command("prove")
@apps_argument
@click.option("--tasks", metavar="PATTERNS", help="Comma list of task ids or globs.")
@click.option("--workers", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Eval workers, each with its own arena instance.")
@click.option("--out", type=Destination("the proofs folder", folder=True, path_type=Path),
              default=Path("studies/arena-prove"), show_default=True,
              help="Folder for the four proof studies and proofs.json.")
@click.option("--shuffle", type=int, default=None, metavar="SEED",
              help="Run the tasks in a shuffled order (outcomes must not change).")
@click.option("--timeout", type=click.FloatRange(min=5), default=180, show_default=True,
              help="Seconds per episode.")
def prove_command(apps: tuple[str, ...], tasks: str | None, workers: int, out: Path,
                  shuffle: int | None, timeout: float) -> None:
    """Prove the tasks: oracle scores 1; doing nothing, a wrong value and a missing
    last step score 0. Prints counts per app and per evaluator kind."""
    import os

    from colorbrowser.arena.prove import prove
    from colorbrowser.arena.report import print_proofs
    from colorbrowser.arena.suite import ORDER_VAR

    select(list(apps))
    if shuffle is not None:
        os.environ[ORDER_VAR] = f"shuffle:{shuffle}"
    suite = "arena" + (f":{','.join(apps)}" if apps else "")
    proofs = prove(suite, tasks, out, workers=workers, timeout=timeout, console=console)
    proven = print_proofs(proofs, Console(width=200))
    raise SystemExit(0 if proven == len(proofs) else 1)


@arena.command("plans")
@click.argument("kind", type=click.Choice(["oracle", "null", "wrong", "truncated", "random"]))
@click.option("--out", "-o", type=Destination("the replay file", folder=False, path_type=Path),
              default=None,
              help="Write the replay file here (default: print it).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random agent.")
@click.option("--steps", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Random actions before the random agent answers.")
def plans_command(kind: str, out: Path | None, seed: int, steps: int) -> None:
    """A replay file for every arena task: its oracle plan, a mutant, nothing, or the
    random agent. Run it with: colorbrowser eval arena --replay FILE"""
    from colorbrowser.arena.plans import plans, script, write_script

    found = plans(kind, seed=seed, steps=steps)
    if out is None:
        click.echo(script(found), nl=False)
    else:
        write_script(found, out)
        click.echo(f"{len(found)} task(s) -> {out}")
