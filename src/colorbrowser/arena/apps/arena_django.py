"""Settings every arena Django app shares. Imported by the apps' settings modules, inside
the app's own venv (this file must not import colorbrowser).

Data lives under $ARENA_DATA (database, media, search index) and static files under
$ARENA_STATIC, so one code tree serves any instance's copy of the snapshot.
"""

import os
from pathlib import Path

from django.contrib.auth.hashers import PBKDF2PasswordHasher

DATA = Path(os.environ["ARENA_DATA"])
STATIC_ROOT = os.environ.get("ARENA_STATIC", str(DATA.parent / "static"))
PORT = os.environ.get("ARENA_PORT", "8000")


# Django's usual stack, with whitenoise serving static files (DEBUG is off).
MIDDLEWARE_HEAD = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]


class ArenaPasswordHasher(PBKDF2PasswordHasher):
    """Fewer rounds than Django's default: seeded fixtures log in by the dozen at build
    time, and a local test arena guards no real secrets."""

    algorithm = "arena_pbkdf2"
    iterations = 20_000


def common(prefix: str) -> dict:
    """The settings two arena Django apps have in common; ``prefix`` names their cookies,
    so two apps on 127.0.0.1 (cookies ignore the port) never overwrite each other's."""
    return {
        "DEBUG": False,
        "ALLOWED_HOSTS": ["127.0.0.1", "localhost"],
        "CSRF_TRUSTED_ORIGINS": [f"http://127.0.0.1:{PORT}", f"http://localhost:{PORT}"],
        "DATABASES": {"default": {"ENGINE": "django.db.backends.sqlite3",
                                  "NAME": str(DATA / "db.sqlite3"),
                                  "OPTIONS": {"timeout": 20}}},
        "SESSION_COOKIE_NAME": f"{prefix}_sessionid",
        "CSRF_COOKIE_NAME": f"{prefix}_csrftoken",
        "SESSION_COOKIE_AGE": 10 * 365 * 24 * 3600,  # seeded sessions outlive the snapshot
        "PASSWORD_HASHERS": ["arena_django.ArenaPasswordHasher",
                             "django.contrib.auth.hashers.PBKDF2PasswordHasher"],
        "STATIC_URL": "/static/",
        "STATIC_ROOT": STATIC_ROOT,
        "MEDIA_URL": "/media/",
        "MEDIA_ROOT": str(DATA / "media"),
        "USE_TZ": True,
        "TIME_ZONE": "UTC",
        "DEFAULT_AUTO_FIELD": "django.db.models.AutoField",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LOGGING": {"version": 1, "disable_existing_loggers": False,
                    "handlers": {"console": {"class": "logging.StreamHandler"}},
                    "root": {"handlers": ["console"], "level": "WARNING"}},
    }
