"""Typed values that cross module boundaries.

Everything here is plain data: it can be written to a trajectory as JSON and read
back without pickling, so a run folder stays readable by any later version.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from colorbrowser.evidence import Evidence

Role = Literal["system", "user", "assistant"]


@dataclass
class Tab:
    index: int
    url: str
    title: str
    active: bool = False


@dataclass
class BBox:
    """CSS pixels in the top-level viewport (iframe offsets already added)."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)


@dataclass
class ElementInfo:
    """What the observation knows about one element that carries a bid."""

    bid: str
    role: str
    name: str = ""
    tag: str = ""
    bbox: BBox | None = None
    visible: bool = True
    interactive: bool = False
    states: dict[str, Any] = field(default_factory=dict)
    frame: list[str] = field(default_factory=list)  # bids of the iframes that contain it
    is_new: bool = False  # appeared since the previous observation


@dataclass
class Observation:
    url: str
    title: str
    axtree: str  # "[bid] role 'name' states" lines, the text the model reads
    tabs: list[Tab] = field(default_factory=list)
    focused: str | None = None  # bid of the focused element
    last_error: str | None = None  # error of the previous action, if any
    # What the browser itself reported (a watchdog's recovery, a crashed tab, an
    # unreadable page), kept apart from the action's error that last_error also holds.
    notice: str | None = None
    dialog: str | None = None  # a JS dialog that was handled since the last step
    elements: dict[str, ElementInfo] = field(default_factory=dict)
    screenshot: bytes | None = None  # viewport PNG
    som: bytes | None = None  # Set-of-Marks PNG (same bids as axtree)
    changes: str | None = None  # short "what changed" line since the last step
    dom_hash: str = ""  # cheap fingerprint for "did anything change" checks
    # The tree with every option of every select listed, when observe() was asked for it
    # and axtree had to cut a long option list ("(+N more)"); None otherwise.
    every_option_tree: str | None = None

    @property
    def bids(self) -> list[str]:
        return list(self.elements)

    def to_json(self, *, with_elements: bool = True) -> dict[str, Any]:
        """JSON-safe form: images are left out (they go to files)."""
        data = asdict(self)
        data.pop("screenshot")
        data.pop("som")
        if not with_elements:
            data.pop("elements")
        return data


@dataclass
class Action:
    """One parsed call such as ``click('12')``."""

    name: str
    args: list[Any] = field(default_factory=list)
    raw: str = ""

    def __str__(self) -> str:
        return self.raw or f"{self.name}({', '.join(repr(a) for a in self.args)})"


@dataclass
class ActionResult:
    """Outcome of one action. Failures are data so the loop never crashes on them."""

    ok: bool = True
    error: str | None = None
    output: str | None = None  # e.g. the value a calculate() returned
    done: bool = False  # stop() was called
    answer: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    evidence: Evidence | None = None  # what the browser saw happen (requests, cookies...)

    @classmethod
    def failure(cls, error: str, **info: Any) -> ActionResult:
        return cls(ok=False, error=error, info=dict(info))


@dataclass
class Message:
    role: Role
    content: str
    images: list[bytes] = field(default_factory=list)  # PNGs, sent only to vision models


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # in the currency of the configured prices (USD by default)
    calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> Usage:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost += other.cost
        self.calls += other.calls
        return self

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Constraint:
    """How to constrain a model's output. Servers that cannot do it ignore it."""

    grammar: str | None = None  # GBNF, for llama.cpp servers
    json_schema: dict[str, Any] | None = None


@dataclass
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    raw: dict[str, Any] = field(default_factory=dict)
