"""What the normaliser makes of a person's raw input: one action and where it came from.

Apart from the rules (``normalize``, ``tab_rules``) so both can name it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from colorbrowser.actions import format_action
from colorbrowser.steps import Target
from colorbrowser.types import Action


@dataclass
class HumanAction:
    """One normalised action and where it came from."""

    action: Action
    tab: int  # the tab's index, as the agent's tab actions name it
    url: str
    t: float
    target: Target | None = None
    events: list[int] = field(default_factory=list)  # seq numbers of the raw events used
    led_to: list[str] = field(default_factory=list)  # loads and tabs credited to it
    ancestors: list[str] = field(default_factory=list)  # ids of the elements around it
    via_label: bool = False  # a click on a label, which the browser passes to its control
    opened_by: str = ""  # a click in a menu a hover opened: the hovered element's id
    group: str = ""  # a radio's group
    opens_tab: bool = False  # a click on a link the browser opens in a new tab
    key: int = -1  # the tab's identity (indices shift as tabs close)

    @property
    def name(self) -> str:
        return self.action.name

    def text(self) -> str:
        return str(self.action)

    def label(self) -> str:
        """The action with its element named (role 'name') instead of its id."""
        args = list(self.action.args)
        if self.target is not None and args and isinstance(args[0], str):
            shown = f"{self.target.role} {self.target.name!r}"
            rest = ", ".join(repr(a) for a in args[1:])
            return f"{self.name}({shown}{', ' + rest if rest else ''})"
        return format_action(self.name, args)

    def describe(self) -> str:
        """What the person did, for the agent's history line."""
        what = f"{self.target.role} {self.target.name!r}" if self.target else ""
        done = f"on {what}" if what else ""
        if self.led_to:
            done = f"{done}; {'; '.join(self.led_to)}".strip("; ")
        return done


@dataclass
class Normalised:
    actions: list[HumanAction] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)  # reason -> raw events
    used: int = 0
    credited: int = 0

    def report(self) -> dict[str, object]:
        return {"actions": len(self.actions), "used": self.used, "credited": self.credited,
                "dropped": dict(self.dropped)}
