"""A local arena of real web applications: a shop with its admin, a forum, two trackers
and a wiki, installed from PyPI and Debian, seeded deterministically, started from a
snapshot in seconds and reset in milliseconds.

    from colorbrowser.arena import Arena
    arena = Arena(instance=0)
    arena.up(["trac"]); arena.reset(); arena.down()
"""

from colorbrowser.arena.apps import APPS
from colorbrowser.arena.apps.base import Account
from colorbrowser.arena.arena import DEFAULT_SEED, AppStatus, Arena, login_state

__all__ = ["APPS", "DEFAULT_SEED", "Account", "AppStatus", "Arena", "login_state"]
