"""The arena's tasks: WebArena-format task files with oracle plans, written from the
built snapshots (``colorbrowser arena write-tasks``) and proven by ``arena prove``.

``data/<group>.json`` holds the task configs, ``data/<group>.oracle.yaml`` their
oracle plans in the replay format (``colorbrowser eval arena --replay <file>``).
"""
