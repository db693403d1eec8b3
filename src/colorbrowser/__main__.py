"""``python -m colorbrowser``: the same as the ``colorbrowser`` command."""

from colorbrowser.cli import main

main()
