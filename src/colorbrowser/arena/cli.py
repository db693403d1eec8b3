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
from colorbrowser.errors import UserError

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
    (fixed credentials, public in ColorBrowser's source: keep the arena on loopback).

    The instance stays reserved for you: an eval without --instance runs on a running
    instance nobody uses before it starts a copy of its own."""
    from colorbrowser.arena.instances import holder

    arena_ = _arena(instance, ports)
    who = holder(arena_.layout, instance)
    if who is not None:
        raise UserError(f"arena instance {instance} is in use by {who.describe()}; "
                        "choose another --instance")
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
    click.echo(f"eval arena --instance {instance} runs here (a plain eval arena does too, "
               "while nobody else uses it)")


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
    from colorbrowser.arena.instances import holder

    arena_ = _arena(instance, None)
    who = holder(arena_.layout, instance)
    if who is not None:
        console.print(f"[yellow]note[/] arena instance {instance} is in use by "
                      f"{who.describe()}; its episodes will fail")
    stopped = arena_.down(apps)
    click.echo(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")


@arena.command("status")
@apps_argument
@click.option("--instance", "-i", type=click.IntRange(0, 50), default=None,
              help="Only this instance (default: every instance that runs, else 0).")
@ports_option
@click.option("--hash", "live_hash", is_flag=True, help="Also hash the live content.")
def status_command(apps: tuple[str, ...], instance: int | None, ports: str | None,
                   live_hash: bool) -> None:
    """What is installed, built and running in each instance that runs, and who uses
    each (the pid of the eval holding its lock); the snapshot's content hash."""
    from colorbrowser.arena.instances import holder, running_instances

    layout = _arena(0, ports).layout
    numbers = [instance] if instance is not None else running_instances(layout) or [0]
    table = Table(box=None)
    for col in ("instance", "app", "installed", "snapshot", "running", "address", "used by"):
        table.add_column(col, no_wrap=True)
    if live_hash:
        table.add_column("live hash")
    for number in numbers:
        arena_ = _arena(number, ports)
        who = holder(layout, number)
        for st in arena_.status(apps):
            row = [str(number), st.app, "yes" if st.installed else "no",
                   f"content {st.built.content_hash[:12]}" if st.built else "not built",
                   f"pid {st.pgid}" if st.running else "no", st.url,
                   who.describe() if who else "-"]
            if live_hash:
                same = st.built and arena_.layout.live(number, st.app).exists()
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
@click.argument("targets", nargs=-1, metavar=f"[{'|'.join(APPS)}]... | FILE.json")
@click.option("--plans", "plan_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Oracle plans of FILE.json (default: FILE.oracle.yaml "
                                 "beside it).")
@click.option("--tasks", metavar="PATTERNS", help="Comma list of task ids or globs.")
@click.option("--workers", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Eval workers, each with its own arena instance.")
@click.option("--instance", type=click.IntRange(0, 50), default=None,
              help="Run on arena instance N (worker k on N+k); default as for eval.")
@click.option("--out", type=Destination("the proofs folder", folder=True, path_type=Path),
              default=Path("studies/arena-prove"), show_default=True,
              help="Folder for the four proof studies and proofs.json.")
@click.option("--shuffle", type=int, default=None, metavar="SEED",
              help="Run the tasks in a shuffled order (outcomes must not change).")
@click.option("--timeout", type=click.FloatRange(min=5), default=180, show_default=True,
              help="Seconds per episode.")
def prove_command(targets: tuple[str, ...], plan_file: Path | None, tasks: str | None,
                  workers: int, instance: int | None, out: Path, shuffle: int | None,
                  timeout: float) -> None:
    """Prove the tasks: oracle scores 1; doing nothing, a wrong value and a missing
    last step score 0. Prints counts per app and per evaluator kind.

    The shipped tasks (of some APPS), or a WebArena task file of your own with its
    oracle plans: colorbrowser arena prove mine.json (plans in mine.oracle.yaml)."""
    import os

    from colorbrowser.arena.instances import study_env
    from colorbrowser.arena.plans import plan_paths
    from colorbrowser.arena.prove import prove
    from colorbrowser.arena.report import print_proofs
    from colorbrowser.arena.suite import ORDER_VAR

    suite, task_file = _prove_target(targets, plan_file)
    plans_from = plan_paths(task_file, plan_file) if task_file is not None else None
    os.environ.update(study_env(_arena(0, None).layout, instance, workers))
    if shuffle is not None:
        os.environ[ORDER_VAR] = f"shuffle:{shuffle}"
    proofs = prove(suite, tasks, out, workers=workers, timeout=timeout, console=console,
                   plans_from=plans_from)
    proven = print_proofs(proofs, Console(width=200))
    raise SystemExit(0 if proven == len(proofs) else 1)


def _prove_target(targets: tuple[str, ...], plan_file: Path | None
                  ) -> tuple[str, Path | None]:
    """``arena[:apps]`` and no task file, or ``arena:<file>`` and that file."""
    files = [t for t in targets if t.lower().endswith(".json")]
    if not files:
        if plan_file is not None:
            raise UserError("--plans goes with a task file: arena prove FILE.json --plans P")
        select(list(targets))
        return "arena" + (f":{','.join(targets)}" if targets else ""), None
    if len(targets) > 1:
        raise UserError("arena prove takes one task file, or app names, not both")
    path = Path(files[0])
    if not path.is_file():
        raise UserError(f"no such task file: {path}")
    return f"arena:{path.resolve()}", path.resolve()


@arena.command("plans")
@click.argument("kind", type=click.Choice(["oracle", "null", "wrong", "truncated", "random"]))
@click.argument("task_file", required=False, type=click.Path(dir_okay=False, path_type=Path),
                metavar="[FILE.json]")
@click.option("--plans", "plan_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Oracle plans of FILE.json (default: FILE.oracle.yaml "
                                 "beside it).")
@click.option("--out", "-o", type=Destination("the replay file", folder=False, path_type=Path),
              default=None,
              help="Write the replay file here (default: print it).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random agent.")
@click.option("--steps", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Random actions before the random agent answers.")
def plans_command(kind: str, task_file: Path | None, plan_file: Path | None,
                  out: Path | None, seed: int, steps: int) -> None:
    """A replay file for every arena task, or every task of FILE.json: its oracle plan,
    a mutant, nothing, or the random agent. Run it with:
    colorbrowser eval arena --replay OUT (or eval arena:FILE.json --replay OUT)"""
    from colorbrowser.arena.plans import plans, script, write_script

    found = plans(kind, seed=seed, steps=steps, tasks=task_file, plan_file=plan_file)
    if out is None:
        click.echo(script(found), nl=False)
    else:
        write_script(found, out)
        click.echo(f"{len(found)} task(s) -> {out}")
