"""The Summarizer: a bounded belief state m_t = f(m_{t-1}, o_t, a_{t-1}, goal, tips).

It is the memory of the default agent. The model proposes an update; this module
decides what is kept: facts are carried forward verbatim whatever the model says,
old progress collapses as it ages, guidance is shown only when the agent is off
track or broke a tip, and the result never exceeds its token budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError, field_validator

from colorbrowser.llm.jsonreply import json_object
from colorbrowser.llm.prompts import clip_page
from colorbrowser.llm.role import Role
from colorbrowser.protocols import EpisodeView, Model
from colorbrowser.steps import StepContext
from colorbrowser.types import Constraint, Message, Observation, Usage

TEMPLATE_DIR = Path(__file__).parent / "templates"
KEEP_DETAILED = 3  # newest progress items kept word for word
EARLIER_MAX = 3  # collapsed older items kept as short phrases; beyond that, a count
ITEM_CHARS = 200


def approx_tokens(text: str) -> int:
    return (len(text) + 3) // 4


class SummaryReply(BaseModel):
    """What the model is asked to return; anything missing gets a neutral default."""

    progress: list[str] = []
    facts: list[str] = []
    state: str = ""
    on_track: bool = True
    tip_violations: list[str] = []
    guidance: str = ""

    @field_validator("progress", "facts", "tip_violations", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        if isinstance(value, str):
            return [value] if value.strip() else []
        return value


@dataclass
class Belief:
    """The kept state; ``render`` is what the Operator reads."""

    progress: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)  # collapsed old progress
    earlier_count: int = 0  # even older items, kept only as a number
    facts: list[str] = field(default_factory=list)
    state: str = ""
    on_track: bool = True
    violations: list[str] = field(default_factory=list)
    guidance: str = ""
    dropped_facts: int = 0

    def render(self) -> str:
        lines = ["Progress:"]
        if self.earlier or self.earlier_count:
            more = f" (and {self.earlier_count} sub-goals before)" if self.earlier_count else ""
            lines.append(f"- Earlier: {'; '.join(self.earlier)}{more}")
        lines += [f"- {p}" for p in self.progress] or (["- No progress yet"] if not self.earlier
                                                          else [])
        if self.facts or self.dropped_facts:
            lines.append("Facts found:")
            if self.dropped_facts:
                lines.append(f"- ({self.dropped_facts} older facts left out for space)")
            lines += [f"- {f}" for f in self.facts]
        if self.state:
            lines.append(f"Current state: {self.state}")
        lines.append(f"On track: {'yes' if self.on_track else 'NO'}")
        if self.violations:
            lines.append("Tip check: the last action went against: " + "; ".join(self.violations))
        if self.guidance:
            lines.append(f"Guidance: {self.guidance}")
        return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def parse_reply(text: str) -> SummaryReply:
    """Read the model's JSON, tolerating prose or code fences around it."""
    data = json_object(text, "the summary")
    try:
        return SummaryReply.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"summary field {'.'.join(map(str, err['loc']))}: {err['msg']}") from None


class Summarizer:
    """Memory plugged into the episode loop (``protocols.Memory``)."""

    title = "Progress summary (kept by the summarizer)"
    shows_history = False

    def __init__(
        self,
        model: Model,
        *,
        budget: int = 500,
        every: int = 1,
        page_chars: int = 6000,
        recent: int = 3,
        count_tokens: Callable[[str], int] = approx_tokens,
        template_dir: Path | None = None,
    ):
        self.model = model
        self.budget = budget
        self.every = max(1, every)
        self.page_chars = page_chars
        self.recent = recent
        self.count = count_tokens
        self.role: Role[SummaryReply] = Role(
            model, system="summarizer_system.j2", user="summarizer_user.j2", parse=parse_reply,
            templates=[template_dir, TEMPLATE_DIR],
            constraint=Constraint(grammar=summary_grammar()), max_tokens=max(256, budget * 2))
        self.belief = Belief()
        self.text = ""  # the rendered belief, within the budget: what the Operator reads
        self.last_error: str | None = None
        self.suppressed_guidance: str | None = None

    # -- the Memory protocol ---------------------------------------------------
    def update(self, episode: EpisodeView, obs: Observation, ctx: StepContext) -> Usage:
        if episode.step % self.every and self.text:
            return Usage()
        reply = self.role.ask(**self.context(episode, obs, ctx))
        self.last_error = None
        if reply.value is None:
            # Keep the previous belief: a bad reply must not erase what was known.
            self.last_error = (f"summarizer {reply.error}" if reply.failure is not None
                               else reply.error)
            ctx.summarizer_error = self.last_error
            return reply.usage
        deviation = self.deviation(reply.value, ctx)
        self.belief = self.compact(self.merge(reply.value, deviation, ctx))
        self.text = self.fit(self.belief.render())
        ctx.summary_guidance = bool(self.belief.guidance)
        return reply.usage

    def render(self, episode: EpisodeView) -> str:
        return self.text

    def snapshot(self) -> dict:
        return asdict(self.belief)

    def restore(self, data: dict | None) -> None:
        self.belief = Belief(**data) if data else Belief()
        self.text = self.fit(self.belief.render()) if data else ""

    # -- pieces -----------------------------------------------------------------
    def context(self, episode: EpisodeView, obs: Observation,
                ctx: StepContext) -> dict[str, object]:
        return {"goal": episode.goal, "tips": ctx.tips, "previous": self.text,
                "notes": list(episode.notes), "obs": obs,
                "recent": [h.line() for h in episode.recent(self.recent)],
                "page": clip_page(obs.axtree, self.page_chars)}

    def messages(self, episode: EpisodeView, obs: Observation,
                 ctx: StepContext) -> list[Message]:
        return self.role.messages(**self.context(episode, obs, ctx))

    @staticmethod
    def deviation(reply: SummaryReply, ctx: StepContext) -> list[str]:
        """Reasons to guide: the model's own verdict, a broken tip, or a rule trigger."""
        reasons = []
        if not reply.on_track:
            reasons.append("the summarizer judged the agent off track")
        if reply.tip_violations:
            reasons.append("a site tip was not followed")
        reasons += [t.reason for t in ctx.triggers if t.reason]
        return reasons

    def merge(self, reply: SummaryReply, deviation: list[str], ctx: StepContext) -> Belief:
        old = self.belief
        progress = [_clip(p, ITEM_CHARS) for p in reply.progress if p.strip()]
        progress = [p for p in progress if p.lower() not in {"no progress yet", "none"}]
        if not progress:
            progress = list(old.progress)
        earlier, earlier_count = list(old.earlier), old.earlier_count
        # The model resends the whole list; what it already had collapsed stays collapsed.
        known = {e.rstrip("…") for e in earlier}
        progress = [p for p in progress if _clip(p, 60).rstrip("…") not in known]
        while len(progress) > KEEP_DETAILED:  # details fold away as they age
            earlier.append(_clip(progress.pop(0), 60))
        while len(earlier) > EARLIER_MAX:
            earlier.pop(0)
            earlier_count += 1
        facts = list(old.facts)  # verbatim, whatever the model returned
        for fact in reply.facts:
            fact = " ".join(fact.split())
            if fact and fact not in facts:
                facts.append(fact[:ITEM_CHARS])
        guidance = _clip(reply.guidance, 400) if reply.guidance.strip() else ""
        if deviation and not guidance:
            guidance = f"Change approach: {deviation[0]}."
        if not deviation:
            self.suppressed_guidance = guidance or None
            guidance = ""
        return Belief(
            progress=progress, earlier=earlier, earlier_count=earlier_count, facts=facts,
            state=_clip(reply.state, 400), on_track=reply.on_track and not deviation,
            violations=[_clip(v, 200) for v in reply.tip_violations if v.strip()],
            guidance=guidance, dropped_facts=old.dropped_facts,
        )

    def fit(self, text: str) -> str:
        """Last guard of the budget: cut the text itself if compaction was not enough."""
        if self.count(text) <= self.budget:
            return text
        lo, hi = 0, len(text)
        while lo < hi:  # longest prefix that fits, with room for the marker
            mid = (lo + hi + 1) // 2
            if self.count(text[:mid] + " …") <= self.budget:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo].rstrip() + " …"

    def compact(self, belief: Belief) -> Belief:
        """Shrink until the rendered text fits the budget, dropping the least useful first."""
        def fits() -> bool:
            return self.count(belief.render()) <= self.budget

        for limit in (200, 100):
            if fits():
                return belief
            belief.state = _clip(belief.state, limit)
            belief.guidance = _clip(belief.guidance, limit)
            belief.earlier = [_clip(e, limit // 4) for e in belief.earlier]
        while belief.earlier and not fits():
            belief.earlier.pop(0)
            belief.earlier_count += 1
        while len(belief.progress) > 1 and not fits():
            belief.progress.pop(0)
            belief.earlier_count += 1
        while belief.facts and not fits():
            belief.facts.pop(0)
            belief.dropped_facts += 1
        if not fits():  # a tiny budget: keep the newest item and the verdict only
            belief.state = ""
            belief.guidance = _clip(belief.guidance, 60)
            belief.violations = [_clip(v, 60) for v in belief.violations[:1]]
            belief.progress = [_clip(p, 60) for p in belief.progress[-1:]]
            belief.earlier = []
            belief.earlier_count = 0
        return belief


_GRAMMAR_FILE = TEMPLATE_DIR / "summary.gbnf"


def summary_grammar() -> str:
    """GBNF for the summary JSON: no raw newlines in strings, bounded lengths."""
    return _GRAMMAR_FILE.read_text(encoding="utf-8")

