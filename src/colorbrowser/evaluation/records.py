"""What a study writes: one ``EpisodeRecord`` per line of ``results.jsonl``.

Layout of a study folder::

    STUDY_DIR/study.json       suite, command, and each variant's settings by config hash
    STUDY_DIR/results.jsonl    one EpisodeRecord per finished attempt, appended as they end
    STUDY_DIR/runs/<variant>/<task>-s<seed>/   the episode's run folder (trajectory)

Records are plain JSON, never pickles, so a study stays readable by any later
version and by other tools. When an episode is retried, its newer line wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colorbrowser.agent.trajectory import read_jsonl
from colorbrowser.datafile import DataFileError, parse_json

RESULTS = "results.jsonl"
STUDY = "study.json"

# Why an episode has no trustworthy score. None means it ran and was scored, whatever
# the reward; a step limit is a failure, not an error.
ERROR_CLASSES = (
    "timeout",  # past the hard episode timeout; the worker killed its browser
    "setup",  # the task page could not be prepared
    "browser",  # the browser died and could not be revived
    "model",  # the model endpoint failed after its retries
    "eval",  # the episode ran but could not be scored (judge failed, helper missing)
    "crash",  # the worker process died
    "internal",  # an unexpected exception in our code
)


class EpisodeRecord(BaseModel):
    """One attempt at one (variant, task, seed)."""

    model_config = ConfigDict(extra="allow")

    task: str
    site: str = ""
    seed: int | None = None
    variant: str = "default"  # e.g. "memory=full knowledge=off"
    config_hash: str
    reward: float = 0.0
    success: bool = False
    status: str = ""  # the episode's end: done, step_limit, cost_limit, task_done, error, ...
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens: int = 0
    cost: float = 0.0
    wall_time: float = 0.0  # seconds, setup and scoring included
    error_class: str | None = None
    error: str | None = None
    trajectory: str | None = None  # run folder, relative to the study folder
    goal: str = ""
    answer: str | None = None
    # The verifier's word on the stop: verified, unverified, refuted (None: it was off,
    # or the record is older than the verifier), and why.
    verdict: str | None = None
    verdict_reasons: list[str] = Field(default_factory=list)
    started: str = ""
    finished: str = ""
    worker: str = ""
    attempt: int = 1
    instance: int | None = None  # the arena instance the episode ran on (arena suites)
    info: dict[str, Any] = Field(default_factory=dict)  # the validation's details

    @property
    def key(self) -> tuple[str, str, int | None]:
        return (self.config_hash, self.task, self.seed)

    @property
    def errored(self) -> bool:
        return self.error_class is not None


def episode_key(config_hash: str, task: str, seed: int | None) -> tuple[str, str, int | None]:
    return (config_hash, task, seed)


def read_records(path: Path) -> list[EpisodeRecord]:
    """Every readable line, in file order. A torn last line (killed mid-write) and
    lines that are not records are skipped: a study must stay readable."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS
    records = []
    for item in read_jsonl(path):
        try:
            records.append(EpisodeRecord.model_validate(item))
        except ValidationError:
            continue
    return records


def latest(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """The newest attempt of each (variant, task, seed), in first-seen order."""
    newest: dict[tuple[str, str, int | None], EpisodeRecord] = {}
    for record in records:
        newest[record.key] = record
    return list(newest.values())


def load_study(study_dir: Path) -> dict[str, Any]:
    """``study.json`` as a dict; {} when the folder has none (a bare results file)."""
    path = Path(study_dir) / STUDY
    if not path.exists():
        return {}
    try:
        data = parse_json(path.read_bytes(), str(path))
    except (OSError, DataFileError):
        return {}
    return data if isinstance(data, dict) else {}
