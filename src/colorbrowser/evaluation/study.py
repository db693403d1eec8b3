"""A study folder: its variants (the ablation matrix), what is already done, and the
episodes still to run. Re-running the same command continues where it stopped.

A variant is one agent configuration. Its hash covers what changes results (model,
agent, browser, triggers, which agent kind) and leaves out where files go and
secrets, so a re-run with another output path or key still matches.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from colorbrowser.agent.trajectory import Redactor, slugify, write_json_atomic
from colorbrowser.config import Settings
from colorbrowser.datafile import DataFileError, parse_json
from colorbrowser.errors import ConfigError, UserError, writing_where_told
from colorbrowser.evaluation.records import RESULTS, STUDY, EpisodeRecord, latest, read_records
from colorbrowser.utf8 import json_text

MATRIX_SECTIONS = ("agent", "hitl", "browser", "model")
# allow_hosts: a limit on where the browser goes, which follows the task file's hosts
# (configured.with_task_hosts), not a setting of the agent.
_HASH_LEFT_OUT = {"paths": None, "browser": ("executable", "headless", "allow_hosts"),
                  "model": ("api_key", "timeout", "max_retries"),
                  "summarizer_model": ("api_key", "timeout", "max_retries")}


@dataclass
class Variant:
    name: str  # "default", or the matrix cell: "memory=full knowledge=off"
    settings: Settings
    agent: str = "llm"  # "llm" or "replay:<digest of the script>"
    overrides: dict[str, str] = field(default_factory=dict)
    known_hash: str | None = None  # the study's id for these settings, from an older release

    @property
    def config_hash(self) -> str:
        return self.known_hash or config_hash(self.settings, self.agent)

    @property
    def slug(self) -> str:
        return slugify(self.name.replace("=", "-").replace(" ", "_"), limit=80)


def config_hash(settings: Settings, agent: str = "llm") -> str:
    data = settings.model_dump(mode="json")
    for section, keys in _HASH_LEFT_OUT.items():
        if keys is None:
            data.pop(section, None)
        elif isinstance(data.get(section), dict):
            for key in keys:
                data[section].pop(key, None)
    blob = json.dumps({"settings": data, "agent": agent}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


# -- the matrix ---------------------------------------------------------------------
def _field_path(key: str) -> tuple[str, str]:
    """``memory`` -> (agent, memory); ``browser.stall_steps`` as written."""
    if "." in key:
        section, name = key.split(".", 1)
        model = Settings.model_fields.get(section)
        if model is None or name not in getattr(model.annotation, "model_fields", {}):
            raise UserError(f"--matrix: unknown setting {key!r}")
        return section, name
    hits = [s for s in MATRIX_SECTIONS
            if key in Settings.model_fields[s].annotation.model_fields]  # type: ignore[union-attr]
    if not hits:
        raise UserError(f"--matrix: unknown setting {key!r} (try agent.{key} or hitl.{key})")
    if len(hits) > 1:
        raise UserError(f"--matrix: {key!r} is ambiguous, write one of "
                        + ", ".join(f"{s}.{key}" for s in hits))
    return hits[0], key


def parse_matrix(items: Sequence[str]) -> list[tuple[str, tuple[str, str], list[str]]]:
    """``["memory=full,summary", "knowledge=off,on"]`` -> [(key, path, values), ...]."""
    axes = []
    seen: set[tuple[str, str]] = set()
    for item in items:
        for part in item.split():
            key, sep, values = part.partition("=")
            choices = [v.strip() for v in values.split(",") if v.strip()]
            if not sep or not key.strip() or not choices:
                raise UserError(f"--matrix: expected KEY=V1,V2,..., got {part!r}")
            path = _field_path(key.strip())
            if path in seen:
                raise UserError(f"--matrix: {key} is given twice")
            seen.add(path)
            axes.append((key.strip(), path, list(dict.fromkeys(choices))))
    return axes


def build_variants(base: Settings, matrix: Sequence[str] = (), agent: str = "llm",
                   ) -> list[Variant]:
    """The base settings alone, or one variant per cell of the matrix."""
    axes = parse_matrix(matrix)
    if not axes:
        return [Variant("default", base, agent)]
    variants = []
    for cell in itertools.product(*(values for _, _, values in axes)):
        data = base.model_dump()
        overrides = {}
        for (key, (section, name), _), value in zip(axes, cell, strict=True):
            data.setdefault(section, None)
            if data[section] is None:
                data[section] = {}
            data[section][name] = value
            overrides[key] = value
        try:
            settings = Settings.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise UserError(f"--matrix: {where}: {err['msg']}") from None
        name = " ".join(f"{k}={v}" for k, v in overrides.items())
        variants.append(Variant(name, settings, agent, overrides))
    return variants


def parse_seeds(text: str | None) -> list[int]:
    """``0,1,2`` or ``0-4`` or a mix; duplicates dropped, order kept."""
    if not text:
        return [0]
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", part)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo or hi - lo > 10_000:
                raise UserError(f"--seeds: bad range {part!r}")
            seeds.extend(range(lo, hi + 1))
        elif part.isdigit():
            seeds.append(int(part))
        else:
            raise UserError(f"--seeds: expected numbers like 0,1,2 or 0-4, got {part!r}")
    return list(dict.fromkeys(seeds))


# -- the folder -----------------------------------------------------------------------
class StudyDir:
    """``study.json`` + ``results.jsonl`` + ``runs/``; safe to reopen after a kill.

    What it writes passes through ``redactor``: the workers mask what their episodes
    knew, and the study masks again what it knows (the variants' keys) whatever the
    backend delivered."""

    def __init__(self, path: Path, redactor: Redactor | None = None) -> None:
        self.path = Path(path)
        self.redactor = redactor or Redactor()
        if self.path.exists() and not self.path.is_dir():
            raise UserError(f"{self.path} is a file, not a study folder")
        self.results_path = self.path / RESULTS

    def meta(self) -> dict[str, Any]:
        path = self.path / STUDY
        if not path.exists():
            return {}
        try:
            data = parse_json(path.read_bytes(), str(path))
        except OSError as exc:
            raise UserError(f"{path} is unreadable ({exc.strerror or exc}); move the study "
                            "aside") from None
        except DataFileError as exc:
            raise UserError(f"{path} is unreadable ({exc.problem}); move the study aside"
                            ) from None
        if not isinstance(data, dict):
            raise UserError(f"{path} is not a study description")
        return data

    def register(self, suite: str, variants: list[Variant], command: list[str]) -> None:
        """Record the variants; a variant name that now means other settings is refused,
        since its old and new episodes would be mixed in one row of the report."""
        meta = self.meta()
        known: dict[str, Any] = meta.setdefault("variants", {})
        by_name = {v["name"]: h for h, v in known.items()}
        for variant in variants:
            old = by_name.get(variant.name)
            if old is not None and old != variant.config_hash:
                if not _same_now(known[old], variant):
                    raise ConfigError(
                        f"{self.path} already holds variant {variant.name!r} with other "
                        f"settings (config {old}, now {variant.config_hash}); use another --out")
                variant.known_hash = old
            known[variant.config_hash] = {
                "name": variant.name, "agent": variant.agent, "overrides": variant.overrides,
                "settings": variant.settings.model_dump(mode="json"),
            }
        meta.setdefault("created", _now())
        meta["updated"] = _now()
        suites = meta.setdefault("suites", [])
        if suite not in suites:
            suites.append(suite)
        meta.setdefault("commands", []).append(command)
        with writing_where_told("the study folder", self.path):
            write_json_atomic(self.path / STUDY, self.redactor.obj(meta))

    def records(self) -> list[EpisodeRecord]:
        return read_records(self.results_path)

    def append(self, record: EpisodeRecord) -> None:
        """One line per attempt, flushed to disk before the next episode is reported."""
        self.path.mkdir(parents=True, exist_ok=True)
        line = json_text(self.redactor.obj(record.model_dump())) + "\n"
        with open(self.results_path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def run_dir(self, variant: Variant, task: str, seed: int | None, attempt: int) -> Path:
        name = slugify(task.replace(":", "-"), limit=70)
        if seed is not None:
            name += f"-s{seed}"
        if attempt > 1:
            name += f"-a{attempt}"
        return self.path / "runs" / variant.slug / name


@dataclass
class EpisodeJob:
    """One episode to run; plain data, so it crosses process (and Ray) boundaries."""

    id: int
    task: str
    site: str
    seed: int | None
    variant: str
    config_hash: str
    settings: Settings
    run_dir: Path
    rel_dir: str
    attempt: int
    timeout: float  # the episode ends itself between steps past this (seconds)
    replay: list[str] | None = None
    kill_grace: float = 15.0  # then the worker kills its browser to unblock a stuck call
    hard_grace: float = 45.0  # then the coordinator kills the worker

    @property
    def hard_limit(self) -> float:
        return self.timeout + self.kill_grace + self.hard_grace


def plan_jobs(study: StudyDir, variants: list[Variant], tasks: list[tuple[str, str]],
              seeds: list[int | None], *, timeout: float, retry_errors: bool = False,
              replay=None, kill_grace: float = 15.0, hard_grace: float = 45.0,
              ) -> tuple[list[EpisodeJob], int]:
    """Episodes still to run, and how many are already done. A finished episode is
    skipped; an errored one too unless ``retry_errors``. A run folder left behind by
    an attempt that never reported (the study was killed) is cleared and rerun."""
    records = study.records()
    newest = {r.key: r for r in latest(records)}
    attempts: dict[tuple[str, str, int | None], int] = {}
    for record in records:
        attempts[record.key] = attempts.get(record.key, 0) + 1
    jobs: list[EpisodeJob] = []
    done = 0
    for variant in variants:
        h = variant.config_hash
        for task, site in tasks:
            for seed in seeds:
                key = (h, task, seed)
                old = newest.get(key)
                if old is not None and not (old.errored and retry_errors):
                    done += 1
                    continue
                attempt = attempts.get(key, 0) + 1
                run_dir = study.run_dir(variant, task, seed, attempt)
                if run_dir.exists():
                    shutil.rmtree(run_dir)
                jobs.append(EpisodeJob(
                    id=len(jobs), task=task, site=site, seed=seed, variant=variant.name,
                    config_hash=h, settings=variant.settings, run_dir=run_dir,
                    rel_dir=str(run_dir.relative_to(study.path)), attempt=attempt,
                    timeout=timeout, kill_grace=kill_grace, hard_grace=hard_grace,
                    replay=replay.require(task, seed) if replay is not None else None,
                ))
    return jobs, done


def _same_now(stored: dict[str, Any], variant: Variant) -> bool:
    """Settings saved before a release added a setting read back with its default: when
    they then hash as the variant does, it is the same variant and the study resumes."""
    try:
        settings = Settings.model_validate(stored.get("settings") or {})
    except ValidationError:
        return False
    return (stored.get("agent", "llm") == variant.agent
            and config_hash(settings, variant.agent) == variant.config_hash)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
