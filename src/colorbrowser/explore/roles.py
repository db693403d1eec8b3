"""The explorer's model roles, both optional: a Predictor for the actions the rules
abstain on, and a writer that turns a synthesised task's template intent into a
sentence a person would say.

Neither is needed for correctness. A reply that fails its checks (not the fields
asked for, a name changed, an answer given away) leaves the rules' abstention or the
template's intent as it was, so a small model can only cost calls, never corrupt the
graph or a task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.predict import Prediction
from colorbrowser.explore.synth import CELL, MULTI, PAIR, SINGLE, SynthTask
from colorbrowser.llm.jsonreply import json_object
from colorbrowser.llm.prompts import clip_page
from colorbrowser.llm.role import Role
from colorbrowser.protocols import Model
from colorbrowser.types import Constraint, Observation, Usage

TEMPLATES = Path(__file__).parent / "templates"
PAGE_CHARS = 3000

PREDICT_SCHEMA: dict[str, Any] = {
    "title": "prediction", "type": "object", "additionalProperties": False,
    "properties": {"navigates": {"type": "boolean"},
                   "method": {"enum": ["GET", "POST", None]},
                   "appear": {"type": "boolean"}, "disappear": {"type": "boolean"},
                   "kind_changes": {"type": "boolean"}},
    "required": ["navigates", "method", "appear", "disappear", "kind_changes"],
}
INTENT_SCHEMA: dict[str, Any] = {
    "title": "intent", "type": "object", "additionalProperties": False,
    "properties": {"intent": {"type": "string", "minLength": 8, "maxLength": 240}},
    "required": ["intent"],
}


def _grammar(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def parse_prediction(text: str) -> Prediction:
    data = json_object(text, "the prediction")
    flags = {}
    for key in ("navigates", "appear", "disappear", "kind_changes"):
        if not isinstance(data.get(key), bool):
            raise ValueError(f"the prediction's {key} must be true or false")
        flags[key] = data[key]
    method = data.get("method")
    if isinstance(method, str):
        method = method.upper()
    if method not in ("GET", "POST", None):
        raise ValueError("the prediction's method must be GET, POST or null")
    if flags["navigates"] and (flags["appear"] or flags["disappear"]):
        flags["appear"] = flags["disappear"] = False  # nothing stays to change on
    return Prediction(source="model", method=method if flags["navigates"] else None,
                      note="model", **flags)


class PredictorRole:
    """Answers where the rules abstain; None when the model fails or says nonsense."""

    def __init__(self, model: Model, page_chars: int = PAGE_CHARS) -> None:
        self.page_chars = page_chars
        self.usage = Usage()
        self.role: Role[Prediction] = Role(
            model, system="predict_system.j2", user="predict_user.j2",
            parse=parse_prediction, templates=[TEMPLATES], retries=1, max_tokens=80,
            temperature=0.0,
            constraint=Constraint(grammar=_grammar("predict.gbnf"), json_schema=PREDICT_SCHEMA))

    def predict(self, cand: Candidate, obs: Observation) -> Prediction | None:
        reply = self.role.ask(url=obs.url, title=obs.title, kind=cand.kind,
                              page=clip_page(obs.axtree, self.page_chars),
                              action=cand.action, role=cand.target.role,
                              name=cand.target.name)
        self.usage.add(reply.usage)
        return reply.value


def parse_intent(text: str) -> str:
    data = json_object(text, "the instruction")
    intent = data.get("intent")
    if not isinstance(intent, str):
        raise ValueError("the instruction must be a string under \"intent\"")
    intent = " ".join(intent.split())
    if not 8 <= len(intent) <= 240:
        raise ValueError("the instruction must be one sentence of 8 to 240 characters")
    return intent


def must_keep(task: SynthTask) -> list[str]:
    """The names a rewritten intent must still hold word for word: what the task's
    proof and a person both depend on."""
    keys = {SINGLE: ["label"], MULTI: ["label"], PAIR: ["label", "page"],
            CELL: ["page", "column", "row"]}.get(task.template, [])
    return [task.values[k] for k in keys if task.values.get(k)]


def faithful(task: SynthTask, intent: str) -> str:
    """Why ``intent`` may not replace the template's, or ''."""
    low = intent.lower()
    for name in must_keep(task):
        if name.lower() not in low:
            return f"it drops {name!r}"
    if task.answer and task.answer.lower() in low and task.answer.lower() not in \
            task.intent.lower():
        return "it gives the answer away"
    if task.kind == "question" and not intent.rstrip().endswith("?"):
        return "a question became a statement"
    return ""


class IntentWriter:
    """Rewrites kept tasks' intents; the template's intent stands unless the model's
    keeps every name, answers nothing and asks what was asked."""

    def __init__(self, model: Model) -> None:
        self.usage = Usage()
        self.rejected: list[str] = []
        self.role: Role[str] = Role(
            model, system="intent_system.j2", user="intent_user.j2", parse=parse_intent,
            templates=[TEMPLATES], retries=1, max_tokens=120, temperature=0.0,
            constraint=Constraint(grammar=_grammar("intent.gbnf"), json_schema=INTENT_SCHEMA))

    def __call__(self, task: SynthTask) -> str | None:
        reply = self.role.ask(kind=task.kind, draft=task.intent, names=must_keep(task))
        self.usage.add(reply.usage)
        if reply.value is None:
            self.rejected.append(reply.error or "no reply")
            return None
        why = faithful(task, reply.value)
        if why:
            self.rejected.append(why)
            return None
        return reply.value
