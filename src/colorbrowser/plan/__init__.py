"""Plans: actions that name elements by role and name, resolved on the live page.

The format proves arena tasks (evaluation), drives the scripted person (copilot study),
grounds synthesised tasks (explore) and is what a learned workflow runs, so it sits
below the agent.
"""

from colorbrowser.plan.format import (
    ENCODED,
    RANDOM,
    OracleMiss,
    Plan,
    Step,
    Target,
    decode_step,
    encode_step,
    fill,
    parse_plan,
    parse_step,
)
from colorbrowser.plan.placeholders import PLACEHOLDERS

__all__ = ["ENCODED", "PLACEHOLDERS", "RANDOM", "OracleMiss", "Plan", "Step", "Target",
           "decode_step", "encode_step", "fill", "parse_plan", "parse_step"]
