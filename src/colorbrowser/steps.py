"""One step of an episode as data: what a decider saw and chose, what hooks added, what
the gate said, what ran, and the record that goes to ``steps.jsonl``.

Whoever takes a step (the Operator, a person in the copilot panel, a replay script,
the explorer's Selector) produces the same ``Step``, so the trace viewer, reports,
resume and the copilot metrics read one typed shape. Records written before the
shape had a version still read back: ``Step.read`` keeps what it understands and
drops what it cannot, so an old or damaged line never stops a viewer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colorbrowser.evidence import Evidence, Verification
from colorbrowser.types import Action, Message, Observation, Usage

SCHEMA_VERSION = 2  # run folders without one were written by version 1
Actor = Literal["agent", "person", "script"]


# -- what a decider sees and returns ---------------------------------------------------
@dataclass
class DecisionView:
    """Everything a decider is shown before it picks one action."""

    goal: str
    obs: Observation
    step: int
    max_steps: int
    memory: str = ""
    memory_title: str = "Progress so far"
    recent: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tips: list[str] = field(default_factory=list)
    shortcuts: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    last_result: str = ""
    browser_notice: str = ""  # what a watchdog did since the last step (reload, restart...)
    guidance: str = ""  # a learned workflow for a goal like this one (workflows/match.py)


@dataclass
class Decision:
    thought: str
    action: Action | None
    reply: str
    usage: Usage = field(default_factory=Usage)
    format_errors: list[str] = field(default_factory=list)
    prompt: list[Message] = field(default_factory=list)
    workflow: WorkflowNote | None = None  # set when a learned workflow chose this step

    @property
    def error(self) -> str | None:
        return None if self.action else (self.format_errors[-1] if self.format_errors else None)


_BY = {"agent": "", "person": " (by the person)", "script": " (scripted)"}


@dataclass
class HistoryEntry:
    """One finished step, as later steps and the memory see it (no page text)."""

    step: int
    url: str
    action: str | None
    ok: bool
    error: str | None = None
    output: str | None = None
    thought: str = ""
    actor: Actor = "agent"

    def line(self) -> str:
        act = self.action or "(no valid action)"
        if self.ok:
            outcome = f"ok: {self.output}" if self.output else "ok"
        else:
            outcome = f"error: {self.error}"
        return f"step {self.step}{_BY[self.actor]}: {act} -> {outcome}"


# -- what hooks add to a step (typed, so readers need no guessing) ----------------------
class _Note(BaseModel):
    model_config = ConfigDict(extra="ignore")


class TipWhy(_Note):
    id: str
    score: float = 0.0
    why: str = ""


class TriggerNote(_Note):
    kind: str
    reason: str
    step: int = 0


class CriticNote(_Note):
    verdict: Literal["consistent", "inconsistent"] | None = None
    reason: str = ""
    error: str | None = None


class HelpNote(_Note):
    reason: str
    answer: str
    tip_id: str | None = None
    stored: bool | None = None
    error: str | None = None


class ShortcutUse(_Note):
    id: str
    values: dict[str, str] = Field(default_factory=dict)
    url: str = ""


class WorkflowNote(_Note):
    """A step that came from a learned workflow: which one, which of its steps, and
    whether the Operator did it instead (``healed``: the recorded step missed)."""

    id: str
    version: int = 1
    step: int = 0  # 1-based index of the workflow step; 0 for the answer read at the end
    healed: bool = False
    reason: str | None = None  # why the step went to the Operator


class GateNote(_Note):
    """One verdict at the seam between decide and execute, and who gave it."""

    verdict: Literal["run", "reject", "handover", "abort"]
    by: str = ""
    reason: str | None = None
    edited_from: str | None = None  # the action as decided, when the gate changed it
    waited_ms: float | None = None


@dataclass
class StepContext:
    """What is gathered for one step before and around the decision; hooks fill it."""

    step: int
    tips: list[str] = field(default_factory=list)
    tip_ids: list[str] = field(default_factory=list)
    tips_why: list[TipWhy] = field(default_factory=list)
    shortcuts: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    triggers: list[TriggerNote] = field(default_factory=list)
    critic: CriticNote | None = None
    help: HelpNote | None = None
    shortcut: ShortcutUse | None = None
    summarizer_error: str | None = None
    summary_guidance: bool = False
    knowledge_error: str | None = None
    knowledge_note: str | None = None
    usage: Usage = field(default_factory=Usage)  # model calls hooks made (the critic)
    screenshot: str | None = None  # this step's screenshot, relative to the run folder
    verification: Verification | None = None  # the verifier's word on this step's stop


@dataclass
class EpisodeResult:
    """How an episode ended; ``result.json`` is this."""

    status: str  # done, step_limit, cost_limit, aborted, error, timeout, task_done
    answer: str | None
    steps: int
    usage: Usage
    elapsed: float
    run_dir: str | None = None
    error: str | None = None
    # The verifier's word on the stop (None: verification was off, or an old run).
    verification: Verification | None = None

    @property
    def done(self) -> bool:
        return self.status == "done"

    @property
    def verdict(self) -> str | None:
        """verified, unverified or refuted; None when no verifier ran."""
        return self.verification.verdict if self.verification is not None else None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "answer": self.answer,
            "steps": self.steps,
            "usage": self.usage.to_json(),
            "elapsed": round(self.elapsed, 3),
            "run_dir": self.run_dir,
            "error": self.error,
            **({"verdict": self.verification.verdict,
                "verification": self.verification.model_dump(exclude_defaults=True)}
               if self.verification is not None else {}),
        }


# -- the record ---------------------------------------------------------------------------
class Target(_Note):
    """The element an action was aimed at, as the observation named it."""

    bid: str
    role: str = ""
    name: str = ""


class StepResult(_Note):
    ok: bool = True
    error: str | None = None
    output: str | None = None
    done: bool = False
    answer: str | None = None
    info: dict[str, Any] = Field(default_factory=dict)


class StepUsage(_Note):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    calls: int = 0

    @classmethod
    def of(cls, usage: Usage) -> StepUsage:
        return cls(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                   cost=usage.cost, calls=usage.calls)

    @classmethod
    def read(cls, data: Any) -> StepUsage:
        """Usage as a file holds it; fields that are not numbers count as 0."""
        fields = {}
        for name, kind in (("prompt_tokens", int), ("completion_tokens", int),
                           ("cost", float), ("calls", int)):
            try:
                fields[name] = kind((data or {}).get(name) or 0)
            except (TypeError, ValueError, AttributeError):
                fields[name] = kind()
        return cls(**fields)

    @classmethod
    def total(cls, parts: list[StepUsage]) -> StepUsage:
        return cls(prompt_tokens=sum(p.prompt_tokens for p in parts),
                   completion_tokens=sum(p.completion_tokens for p in parts),
                   cost=sum(p.cost for p in parts), calls=sum(p.calls for p in parts))

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class TabNote(_Note):
    index: int = 0
    url: str = ""
    title: str = ""
    active: bool = False


# Fields written only when they carry something (as in version 1, where hooks added
# them to the line only when they had something to say).
_WHEN_SET = ("target", "gate", "tips_why", "critic", "help", "shortcut",
             "summarizer_error", "summary_guidance", "knowledge_error", "knowledge_note",
             "evidence", "verification", "workflow")


class Step(_Note):
    """One line of ``steps.jsonl``."""

    step: int
    time: str = ""
    actor: Actor = "agent"
    executed: bool = True  # False: the gate stopped it (rejected, handed over)
    url: str = ""
    title: str = ""
    tabs: list[TabNote] = Field(default_factory=list)
    focused: str | None = None
    last_error: str | None = None
    dialog: str | None = None
    changes: str | None = None
    observation: str = ""
    memory: str = ""
    tips: list[str] = Field(default_factory=list)
    tip_ids: list[str] = Field(default_factory=list)
    tips_why: list[TipWhy] = Field(default_factory=list)
    hints: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    thought: str = ""
    action: str | None = None
    target: Target | None = None
    reply: str | None = None
    format_errors: list[str] = Field(default_factory=list)
    result: StepResult = Field(default_factory=StepResult)
    gate: list[GateNote] = Field(default_factory=list)
    usage: StepUsage = Field(default_factory=StepUsage)
    episode_usage: StepUsage = Field(default_factory=StepUsage)
    timings: dict[str, float] = Field(default_factory=dict)
    triggers: list[TriggerNote] = Field(default_factory=list)
    critic: CriticNote | None = None
    help: HelpNote | None = None
    shortcut: ShortcutUse | None = None
    summarizer_error: str | None = None
    summary_guidance: bool = False
    knowledge_error: str | None = None
    knowledge_note: str | None = None
    screenshot: str | None = None
    som: str | None = None
    evidence: Evidence | None = None  # what the browser saw the action cause
    verification: Verification | None = None  # the verifier's word, on a stop step
    workflow: WorkflowNote | None = None  # the step came from a learned workflow

    def to_json(self) -> dict[str, Any]:
        """The line as written: what hooks add is left out when they added nothing."""
        data = self.model_dump(mode="python")
        for key in ("evidence", "verification"):  # only what was seen
            note = getattr(self, key)
            data[key] = note.model_dump(exclude_defaults=True) if note is not None else None
        for key in _WHEN_SET:
            if not data.get(key):
                data.pop(key, None)
        for key in ("critic", "help", "gate", "workflow"):  # notes keep only what was said
            if isinstance(data.get(key), dict):
                data[key] = {k: v for k, v in data[key].items() if v is not None}
            elif isinstance(data.get(key), list):
                data[key] = [{k: v for k, v in n.items() if v is not None} for n in data[key]]
        return data

    @classmethod
    def read(cls, data: Any, number: int = 0) -> Step:
        """A record from any version, however damaged: fields that do not fit are left
        at their defaults instead of failing the whole line."""
        data = dict(data) if isinstance(data, dict) else {}
        data.setdefault("step", number)
        for _ in range(len(data) + 1):
            try:
                return cls.model_validate(data)
            except ValidationError as exc:
                bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
                if not bad or not bad & set(data):
                    break
                for key in bad:
                    data.pop(key, None)
                data.setdefault("step", number)
        return cls(step=number)
