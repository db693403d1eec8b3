"""``colorbrowser observe URL``: see a page the way the agent sees it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from colorbrowser.config import load_settings
from colorbrowser.destination import Destination
from colorbrowser.errors import BrowserError, UserError
from colorbrowser.safe_text import plain


@click.command("observe")
@click.argument("url")
@click.option("--json", "as_json", is_flag=True, help="Print the full observation as JSON.")
@click.option("--screenshot", type=Destination("the screenshot", folder=False, path_type=Path),
              help="Write the Set-of-Marks PNG to this file.")
@click.option("--interactive-only", is_flag=True,
              help="Keep only interactive elements and text in the tree.")
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Settings file (TOML).")
@click.option("--allow-file-url", is_flag=True, help="Let URL be a local file: page.")
def observe_command(url: str, as_json: bool, screenshot: Path | None, interactive_only: bool,
                    headed: bool, config_path: Path | None, allow_file_url: bool) -> None:
    """Open URL in Chromium and print the observation (bids, roles, names, states)."""
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.browser.messages import ActionFailed, normalize_url
    from colorbrowser.browser.observe import observation_text
    from colorbrowser.browser.policy import start_pages, start_refusal

    try:
        url = normalize_url(url)  # a typo fails here, before a browser is started
    except ActionFailed as exc:
        raise UserError(str(exc)) from None

    settings = load_settings(config_path, {
        ("browser", "headless"): False if headed else None,
        ("browser", "interactive_only"): True if interactive_only else None,
        ("browser", "screenshots"): screenshot is not None,
        ("browser", "trusted_pages"): start_pages(url, allow_file=allow_file_url) or None,
    })
    reason = start_refusal(url, settings.browser.allow_hosts, settings.browser.trusted_pages)
    if reason:
        raise UserError(reason)
    try:
        with BrowserEnv(settings.browser) as env:
            obs = env.reset(url)
    except BrowserError as exc:
        raise UserError(str(exc)) from None
    if screenshot is not None:
        if obs.som is None:
            raise UserError(f"no screenshot could be taken: {obs.last_error or 'unknown reason'}")
        try:
            screenshot.write_bytes(obs.som)
        except OSError as exc:
            raise UserError(f"cannot write {screenshot}: {exc.strerror}") from None
    if as_json:
        click.echo(json.dumps(obs.to_json(), ensure_ascii=False, indent=1))
    else:
        click.echo(plain(observation_text(obs)))  # the page wrote it
