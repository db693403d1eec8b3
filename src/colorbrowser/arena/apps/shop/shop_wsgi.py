"""WSGI entry point of the arena shop, for gunicorn."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop_settings")
application = get_wsgi_application()
