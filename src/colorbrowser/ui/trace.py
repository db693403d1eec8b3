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

from colorbrowser.errors import writing_where_told
from colorbrowser.evaluation.records import EpisodeRecord
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
class Tokens:
    prompt: int = 0
    completion: int = 0
    cost: float = 0.0
    calls: int = 0

    @classmethod
    def of(cls, data: Any) -> Tokens:
        if not isinstance(data, dict):
            return cls()
        return cls(_int(data.get("prompt_tokens")), _int(data.get("completion_tokens")),
                   _float(data.get("cost")), _int(data.get("calls")))

    @property
    def total(self) -> int:
        return self.prompt + self.completion


@dataclass
class StepView:
    number: int
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
    usage: Tokens
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
    usage: Tokens
    steps: list[StepView] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def read_json(path: Path, notices: list[str]) -> dict[str, Any]:
    """A JSON object, or {} (with a notice when the file exists but is unreadable)."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        notices.append(f"{path.name} could not be read ({exc})")
        return {}
    return data if isinstance(data, dict) else {}


def read_step_lines(path: Path, notices: list[str]) -> list[dict[str, Any]]:
    """Steps up to the first unreadable line; a crash mid-write tears only the last."""
    if not path.exists():
        notices.append("steps.jsonl is missing: no step was recorded")
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        notices.append(f"steps.jsonl could not be read ({exc.strerror})")
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    steps: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            left = len(lines) - number + 1
            notices.append(f"steps.jsonl line {number} is torn (the run was killed while "
                           f"writing it?); {left} line(s) from there are not shown")
            break
        if isinstance(data, dict):
            steps.append(data)
    return steps


def step_view(run_dir: Path, data: dict[str, Any], index: int) -> StepView:
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    notices = [("format error", _text(e)) for e in _list(data.get("format_errors"))]
    if data.get("reply"):
        notices.append(("model reply", _text(data["reply"])))
    for key, label in (("last_error", "page error"), ("dialog", "dialog"),
                       ("summarizer_error", "summarizer error"), ("critic", "critic"),
                       ("shortcut", "shortcut")):
        if data.get(key):
            notices.append((label, _text(data[key])))
    return StepView(
        number=_int(data.get("step")) or index,
        url=_text(data.get("url")),
        title=_text(data.get("title")),
        thought=_text(data.get("thought")),
        action=_text(data.get("action")) or "(no valid action)",
        ok=bool(result.get("ok", True)),
        error=_text(result.get("error")),
        output=_text(result.get("output")),
        answer=_text(result["answer"]) if result.get("answer") is not None else None,
        summary=_text(data.get("memory")),
        tips=[_text(t) for t in _list(data.get("tips"))],
        hints=[_text(h) for h in _list(data.get("hints"))],
        notes=[_text(n) for n in _list(data.get("notes"))],
        triggers=[_trigger(t) for t in _list(data.get("triggers"))],
        notices=notices,
        observation=_text(data.get("observation")),
        usage=Tokens.of(data.get("usage")),
        som=Shot.load(run_dir, data.get("som")),
        screenshot=Shot.load(run_dir, data.get("screenshot")),
    )


def load_trace(run_dir: Path, record: EpisodeRecord | None = None) -> TraceView:
    """Everything the page shows; ``record`` (from a study) adds the error class."""
    run_dir = Path(run_dir)
    notices: list[str] = []
    meta = read_json(run_dir / "meta.json", notices)
    result = read_json(run_dir / "result.json", notices)
    validation = read_json(run_dir / "validation.json", notices)
    steps = [step_view(run_dir, data, i)
             for i, data in enumerate(read_step_lines(run_dir / "steps.jsonl", notices), 1)]
    if not result:
        notices.append("result.json is missing: the episode did not finish")
    if result.get("usage"):
        usage = Tokens.of(result["usage"])
    else:
        usage = Tokens()
        for step in steps:
            for name in ("prompt", "completion", "cost", "calls"):
                setattr(usage, name, getattr(usage, name) + getattr(step.usage, name))
    reward = validation.get("reward", record.reward if record else None)
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


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _trigger(value: Any) -> str:
    if isinstance(value, dict):
        kind, reason = _text(value.get("kind")), _text(value.get("reason"))
        return f"{kind}: {reason}" if kind and reason else kind or reason or _text(value)
    return _text(value)


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0
