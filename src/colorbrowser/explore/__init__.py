"""Self-exploration (SCALE): find what the agent cannot predict and turn it into tasks,
tips and data. ``colorbrowser explore START`` runs ``Explorer`` (loop.py)."""
