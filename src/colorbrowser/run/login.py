"""``colorbrowser login SITE --url URL``: a person signs in once; the session is saved
as the login profile SITE for ``run --profile SITE`` and ``Agent(profile=...)``.

With a screen the browser window opens and the person presses Enter at the terminal
when signed in. Headless, the copilot panel shows the page and forwards the person's
clicks and typing (copilot/login.py). Either way only the person types the password:
the agent and the model are not involved.
"""

from __future__ import annotations

from collections.abc import Callable

import click
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import Settings
from colorbrowser.errors import UserError
from colorbrowser.run.flags import checked_start, require_start_allowed
from colorbrowser.run.profiles import Profile, check_name, save_profile

Waiter = Callable[[BrowserSession], None]


def capture_login(name: str, url: str, settings: Settings, wait: Waiter) -> Profile:
    """Open ``url``, let ``wait`` return once the person has signed in, save the state."""
    check_name(name)
    url, _ = checked_start(url, allow_file_url=False)
    require_start_allowed(url, settings, file_flag=False)
    session = BrowserSession(settings.browser)
    try:
        session.start()
        try:
            session.page.goto(url, wait_until="domcontentloaded")
        except PlaywrightError as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "no answer"
            raise UserError(f"--url: cannot open {url}: {reason[:160]}") from None
        wait(session)
        state = session.storage_state()
    finally:
        session.close()
    return save_profile(name, url, state)


def terminal_wait(session: BrowserSession) -> None:
    """The person signs in in the window and presses Enter here."""
    click.echo("Sign in in the browser window, then press Enter here.", err=True)
    click.get_text_stream("stdin").readline()
