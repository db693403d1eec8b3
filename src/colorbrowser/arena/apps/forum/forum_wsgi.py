"""WSGI entry point of the arena forum, for gunicorn."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "forum_settings")
application = get_wsgi_application()
