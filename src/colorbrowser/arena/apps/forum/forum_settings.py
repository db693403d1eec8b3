"""django-spirit settings for the arena forum (runs in the forum's own venv)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena_django import DATA, MIDDLEWARE_HEAD, PORT, common

globals().update(common("forum"))
SECRET_KEY = "arena-forum-local-fixture-key-not-a-secret-0123456789"
ROOT_URLCONF = "forum_urls"
WSGI_APPLICATION = "forum_wsgi.application"
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles",
    "django.contrib.humanize",
    "spirit.core", "spirit.admin", "spirit.search", "spirit.user", "spirit.user.admin",
    "spirit.user.auth", "spirit.category", "spirit.category.admin", "spirit.topic",
    "spirit.topic.admin", "spirit.topic.favorite", "spirit.topic.moderate",
    "spirit.topic.notification", "spirit.topic.private", "spirit.topic.unread",
    "spirit.comment", "spirit.comment.bookmark", "spirit.comment.flag",
    "spirit.comment.flag.admin", "spirit.comment.history", "spirit.comment.like",
    "spirit.comment.poll", "djconfig", "haystack",
]
MIDDLEWARE = [
    *MIDDLEWARE_HEAD,
    "spirit.user.middleware.TimezoneMiddleware",
    "spirit.user.middleware.LastIPMiddleware",
    "spirit.user.middleware.LastSeenMiddleware",
    "spirit.user.middleware.ActiveUserMiddleware",
    "spirit.core.middleware.PrivateForumMiddleware",
    "djconfig.middleware.DjConfigMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.contrib.auth.context_processors.auth",
        "django.template.context_processors.debug",
        "django.template.context_processors.i18n",
        "django.template.context_processors.media",
        "django.template.context_processors.static",
        "django.template.context_processors.tz",
        "django.template.context_processors.request",
        "django.contrib.messages.context_processors.messages",
        "djconfig.context_processors.config",
    ]},
}]
# In the database, so a reset restores the cache with everything else.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache",
                "LOCATION": "spirit_cache"},
    "st_rate_limit": {"BACKEND": "django.core.cache.backends.db.DatabaseCache",
                      "LOCATION": "spirit_rl_cache", "TIMEOUT": None},
}
AUTHENTICATION_BACKENDS = ["spirit.user.auth.backends.UsernameAuthBackend",
                           "spirit.user.auth.backends.EmailAuthBackend"]
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
                                    "PATH": str(DATA / "st_search")}}
HAYSTACK_SIGNAL_PROCESSOR = os.environ.get("ARENA_HAYSTACK_SIGNALS",
                                           "spirit.search.signals.RealtimeSignalProcessor")
LOGIN_URL = "spirit:user:auth:login"
LOGIN_REDIRECT_URL = "spirit:user:update"
LOGOUT_REDIRECT_URL = "spirit:index"
LANGUAGE_CODE = "en"
USE_I18N = True
ST_SITE_URL = f"http://127.0.0.1:{PORT}/"
ST_RATELIMIT_ENABLE = False
ST_TASK_MANAGER = None
ST_PRIVATE_FORUM = False
