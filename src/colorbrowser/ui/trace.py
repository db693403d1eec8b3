"""One episode's run folder as one self-contained HTML page (``trace.html``).

The page must open from a mail attachment or a CI artifact, so screenshots are
data URIs and the CSS is inline; it needs no server and no JavaScript. Everything
in a trajectory came from a web page or a model, so all of it is escaped by the
template. Only JSON is read, never pickles; a run killed mid-step (torn last line,
missing result or screenshots) still renders, with a note saying what is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from pydantic import BaseModel, ValidationError

from colorbrowser.datafile import DataFileError, parse_json
from colorbrowser.errors import writing_where_told
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evidence import Verification
from colorbrowser.steps import Step, StepUsage, WorkflowNote
from colorbrowser.ui.images import data_uri, inside

TRACE = "trace.html"


@dataclass
class Shot:
    """A screenshot to show: its data URI, or None and the name it should have had."""

    uri: str | None
    name: str | None

    @classmethod
    def load(cls, run_dir: Path, relative: Any) -> Shot:
        name = relative if isinstance(relative, str) else None
        return cls(data_uri(inside(run_dir, name)), name)


@dataclass
class StepView:
    number: int
    actor: str
    url: str
    title: str
    thought: str
    action: str
    ok: bool
    error: str
    output: str
    answer: str | None
    summary: str  # the memory as the Operator saw it: belief state or history
    tips: list[str]
    hints: list[str]
    notes: list[str]
    triggers: list[str]
    notices: list[tuple[str, str]]  # (label, text): critic, format errors, page errors
    observation: str
    usage: StepUsage
    evidence: list[str]  # what the browser saw the action cause (requests, cookies...)
    som: Shot
    screenshot: Shot


@dataclass
class TraceView:
    run_dir: Path
    title: str
    goal: str
    start_url: str
    model: str
    started: str
    status: str
    answer: str | None
    error: str | None
    error_class: str | None
    reward: float | None
    success: bool | None
    elapsed: float | None
    usage: StepUsage
    verdict: str | None = None
    verdict_reasons: list[str] = field(default_factory=list)
    steps: list[StepView] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def read_json(path: Path, notices: list[str]) -> dict[str, Any]:
    """A JSON object, or {} (with a notice when the file exists but is unreadable)."""
    if not path.exists():
        return {}
    if not path.is_file():  # a folder, or a pipe that would be read forever
        notices.append(f"{path.name} could not be read (not a file)")
        return {}
    try:
        data = parse_json(path.read_bytes(), path.name)
    except OSError as exc:
        notices.append(f"{path.name} could not be read ({exc.strerror or exc})")
        return {}
    except DataFileError as exc:
        notices.append(f"{path.name} could not be read ({exc.problem})")
        return {}
    return data if isinstance(data, dict) else {}


def read_step_lines(path: Path, notices: list[str]) -> list[Step]:
    """Steps up to the first unreadable line; a crash mid-write tears only the last."""
    if not path.exists():
        notices.append("steps.jsonl is missing: no step was recorded")
        return []
    if not path.is_file():  # a folder, or a pipe that would be read forever
        notices.append("steps.jsonl could not be read (not a file)")
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        notices.append(f"steps.jsonl could not be read ({exc.strerror})")
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    steps: list[Step] = []
    for number, line in enumerate(lines, 1):
        try:
            data = parse_json(line, "steps.jsonl")
        except DataFileError:
            left = len(lines) - number + 1
            notices.append(f"steps.jsonl line {number} is torn (the run was killed while "
                           f"writing it?); {left} line(s) from there are not shown")
            break
        if isinstance(data, dict):
            steps.append(Step.read(data, number))
    return steps


def step_view(run_dir: Path, step: Step) -> StepView:
    result = step.result
    notices = [("format error", e) for e in step.format_errors]
    if step.reply:
        notices.append(("model reply", step.reply))
    if not step.executed:
        notices.append(("not run", result.error or "the gate stopped it"))
    if step.verification is not None:
        v = step.verification
        notices.append(("verifier", v.verdict + (f": {v.reason_text()}" if v.reasons else "")))
    for gate in step.gate:
        if gate.verdict != "run" or gate.edited_from:
            what = f"{gate.verdict} by {gate.by}" + (f": {gate.reason}" if gate.reason else "")
            if gate.edited_from:
                what += f" (decided: {gate.edited_from})"
            notices.append(("gate", what))
    if step.workflow is not None:
        notices.append(("workflow", workflow_line(step.workflow)))
    for label, value in (("page error", step.last_error), ("dialog", step.dialog),
                         ("summarizer error", step.summarizer_error),
                         ("critic", _note(step.critic)), ("shortcut", _note(step.shortcut))):
        if value:
            notices.append((label, value))
    return StepView(
        number=step.step,
        actor=step.actor,
        url=step.url,
        title=step.title,
        thought=step.thought,
        action=step.action or "(no valid action)",
        ok=result.ok,
        error=result.error or "",
        output=result.output or "",
        answer=result.answer,
        summary=step.memory,
        tips=list(step.tips),
        hints=list(step.hints),
        notes=list(step.notes),
        triggers=[f"{t.kind}: {t.reason}" for t in step.triggers],
        notices=notices,
        observation=step.observation,
        usage=step.usage,
        evidence=step.evidence.lines() if step.evidence is not None else [],
        som=Shot.load(run_dir, step.som),
        screenshot=Shot.load(run_dir, step.screenshot),
    )


def workflow_line(note: WorkflowNote) -> str:
    """Which workflow step this was, and whether the Operator healed it."""
    where = f"step {note.step}" if note.step else "answer"
    text = f"{note.id} v{note.version}, {where}"
    if note.healed:
        text += ", healed by the Operator" + (f" ({note.reason})" if note.reason else "")
    return text


def load_trace(run_dir: Path, record: EpisodeRecord | None = None) -> TraceView:
    """Everything the page shows; ``record`` (from a study) adds the error class."""
    run_dir = Path(run_dir)
    notices: list[str] = []
    meta = read_json(run_dir / "meta.json", notices)
    result = read_json(run_dir / "result.json", notices)
    validation = read_json(run_dir / "validation.json", notices)
    steps = [step_view(run_dir, step) for step in read_step_lines(run_dir / "steps.jsonl",
                                                                  notices)]
    if not result:
        notices.append("result.json is missing: the episode did not finish")
    usage = StepUsage.read(result.get("usage")) if result.get("usage") else StepUsage.total(
        [step.usage for step in steps])
    reward = validation.get("reward", record.reward if record else None)
    verification = _verification(result.get("verification"))
    success = validation.get("success", record.success if record else None)
    return TraceView(
        run_dir=run_dir,
        title=record.task if record else _text(validation.get("task")) or run_dir.name,
        goal=_text(meta.get("goal")) or (record.goal if record else ""),
        start_url=_text(meta.get("start_url")),
        model=_text(meta.get("model")),
        started=_text(meta.get("started")),
        status=_text(result.get("status")) or (record.status if record else "") or "unfinished",
        answer=_text(result["answer"]) if result.get("answer") is not None else None,
        error=_text(result.get("error")) or (record.error if record else None) or None,
        error_class=record.error_class if record else None,
        reward=_float(reward) if reward is not None else None,
        success=bool(success) if success is not None else None,
        elapsed=_float(result["elapsed"]) if "elapsed" in result else None,
        usage=usage,
        verdict=verification.verdict if verification else None,
        verdict_reasons=list(verification.reasons) if verification else [],
        steps=steps,
        notices=notices,
    )


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("colorbrowser.ui", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=True,  # page text and model output are untrusted
    )


def render_trace(trace: TraceView) -> str:
    return _templates().get_template("trace.html.j2").render(trace=trace)


def write_trace(run_dir: Path, out: Path | None = None,
                record: EpisodeRecord | None = None) -> Path:
    """Write the page (default ``RUN_DIR/trace.html``) and return where it went."""
    out = Path(out) if out is not None else Path(run_dir) / TRACE
    page = render_trace(load_trace(run_dir, record))
    with writing_where_told("the page", out):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
    return out


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _verification(data: Any) -> Verification | None:
    """The verdict result.json holds; none in runs from before the verifier or damaged."""
    if not isinstance(data, dict):
        return None
    try:
        return Verification.model_validate(data)
    except ValidationError:
        return None


def _note(value: BaseModel | None) -> str:
    """A typed note as one line of JSON, the way the page shows details."""
    return "" if value is None else _text(value.model_dump(exclude_none=True))


def _float(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0
