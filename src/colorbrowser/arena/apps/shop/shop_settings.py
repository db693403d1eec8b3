"""django-oscar settings for the arena shop (runs in the shop's own venv)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena_django import DATA, MIDDLEWARE_HEAD, common
from oscar import INSTALLED_APPS as OSCAR_APPS
from oscar.defaults import *  # noqa: F403

globals().update(common("shop"))
SECRET_KEY = "arena-shop-local-fixture-key-not-a-secret-0123456789"
ROOT_URLCONF = "shop_urls"
WSGI_APPLICATION = "shop_wsgi.application"
SITE_ID = 1
INSTALLED_APPS = [*OSCAR_APPS, "sorl.thumbnail"]
MIDDLEWARE = [
    *MIDDLEWARE_HEAD,
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    # Our overrides of Oscar's templates (the review form's named star choices).
    "DIRS": [str(Path(__file__).resolve().parent / "templates")],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug",
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.template.context_processors.i18n",
        "django.contrib.messages.context_processors.messages",
        "oscar.apps.search.context_processors.search_form",
        "oscar.apps.checkout.context_processors.checkout",
        "oscar.apps.communication.notifications.context_processors.notifications",
        "oscar.core.context_processors.metadata",
    ]},
}]
AUTHENTICATION_BACKENDS = ("oscar.apps.customer.auth_backends.EmailBackend",
                           "django.contrib.auth.backends.ModelBackend")
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
HAYSTACK_CONNECTIONS = {"default": {
    "ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
    "PATH": str(DATA / "whoosh"),
}}
# The index is built once at build time; live edits do not reach it, so a reset need
# not rebuild it (a product edited in the dashboard keeps its old search entry).
HAYSTACK_SIGNAL_PROCESSOR = "haystack.signals.BaseSignalProcessor"
THUMBNAIL_DEBUG = False
THUMBNAIL_KVSTORE = "sorl.thumbnail.kvstores.cached_db_kvstore.KVStore"
OSCAR_SHOP_NAME = "OneStop Market"
OSCAR_SHOP_TAGLINE = "Everyday goods, shipped fast"
OSCAR_DEFAULT_CURRENCY = "USD"
OSCAR_FROM_EMAIL = "orders@onestop.example.com"
OSCAR_INITIAL_ORDER_STATUS = "Pending"
OSCAR_INITIAL_LINE_STATUS = "Pending"
OSCAR_ORDER_STATUS_PIPELINE = {
    "Pending": ("Processing", "Cancelled"),
    "Processing": ("Shipped", "Cancelled"),
    "Shipped": ("Complete",),
    "Complete": (),
    "Cancelled": (),
}
OSCAR_LINE_STATUS_PIPELINE = OSCAR_ORDER_STATUS_PIPELINE
OSCAR_PRODUCTS_PER_PAGE = 24
OSCAR_IMAGE_FOLDER = "images/products/"  # no upload date in the path: builds match
OSCAR_ALLOW_ANON_REVIEWS = False
OSCAR_MODERATE_REVIEWS = False
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop_settings")
