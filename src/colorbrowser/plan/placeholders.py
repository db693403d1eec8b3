"""Site placeholders of task and plan files (``__TRAC__``), filled from ``WA_*`` variables.

They live below the agent because plans run inside episodes (workflows) as well as in
evaluation.
"""

from __future__ import annotations

PLACEHOLDERS: dict[str, str] = {
    "__SHOPPING__": "WA_SHOPPING",
    "__SHOPPING_ADMIN__": "WA_SHOPPING_ADMIN",
    "__REDDIT__": "WA_REDDIT",
    "__GITLAB__": "WA_GITLAB",
    "__MAP__": "WA_MAP",
    "__WIKIPEDIA__": "WA_WIKIPEDIA",
    "__HOMEPAGE__": "WA_HOMEPAGE",
    "__TRAC__": "WA_TRAC",  # the arena's second tracker (colorbrowser arena)
}
