"""What the two Django apps (shop, forum) share on the arena side: how to run a manage
command or a seed script in the app's venv, and how gunicorn serves them."""

from __future__ import annotations

from pathlib import Path

from colorbrowser.arena.apps.base import App, BuildContext, ServeContext
from colorbrowser.arena.process import Command

APPS_DIR = Path(__file__).resolve().parent


class DjangoApp(App):
    settings_module: str
    wsgi_module: str
    workers = 2

    def django_env(self, data: Path, static: Path, port: int | None = None) -> dict[str, str]:
        code = APPS_DIR / self.name
        env = {"ARENA_DATA": str(data), "ARENA_STATIC": str(static),
               "PYTHONPATH": f"{code}:{APPS_DIR}", "DJANGO_SETTINGS_MODULE": self.settings_module,
               "PYTHONHASHSEED": "0"}
        if port is not None:
            env["ARENA_PORT"] = str(port)
        return env

    def manage(self, ctx: BuildContext, *args: str, what: str | None = None) -> None:
        assert ctx.python is not None
        ctx.run([ctx.python, "-m", "django", *args], what or args[0],
                env=self.django_env(ctx.data, ctx.snapshot / "static"))

    def script(self, ctx: BuildContext, name: str, *args: str | Path, what: str) -> None:
        assert ctx.python is not None
        ctx.run([ctx.python, self.resource(name), *args], what,
                env=self.django_env(ctx.data, ctx.snapshot / "static"))

    def server(self, ctx: ServeContext) -> Command:
        assert ctx.python is not None
        gunicorn = ctx.python.parent / "gunicorn"
        return Command([str(gunicorn), "--bind", f"127.0.0.1:{ctx.port}", "--workers",
                        str(self.workers), "--timeout", "60", "--graceful-timeout", "2",
                        f"{self.wsgi_module}:application"],
                       self.django_env(ctx.data, ctx.snapshot / "static", ctx.port))
