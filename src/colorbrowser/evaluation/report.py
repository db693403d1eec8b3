"""The numbers of a study: success rates with Wilson intervals, costs, errors, and the
per-task differences between two studies.

An errored episode (timeout, crash, ...) is not a success, so every rate counts it
in its denominator; errors are also counted apart, since a rate that moved because
the browser crashed more often says nothing about the agent. Only the newest attempt
of each (variant, task, seed) counts.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from colorbrowser.datafile import DataFileError, parse_json
from colorbrowser.errors import UserError
from colorbrowser.evaluation.records import RESULTS, STUDY, EpisodeRecord, latest, load_study

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson(successes: int, total: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a success rate. Unlike p ± z·se it stays inside [0, 1]
    and is not zero-width at 0/n or n/n, which small studies hit all the time."""
    if total <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= total:
        raise ValueError(f"{successes} successes out of {total}")
    p = successes / total
    z2 = z * z
    denominator = 1 + z2 / total
    centre = (p + z2 / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Rate:
    successes: int
    total: int

    @property
    def value(self) -> float:
        return self.successes / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.successes, self.total)


@dataclass(frozen=True)
class Spread:
    mean: float
    median: float
    total: float


@dataclass
class Group:
    """Episodes sharing a site, a variant, or all of them."""

    name: str
    rate: Rate  # over every episode; an error is not a success
    scored: Rate  # over the episodes that ran and were scored
    errors: dict[str, int]  # error class -> episodes
    spreads: dict[str, Spread]  # steps, tokens, cost, wall_time

    @property
    def episodes(self) -> int:
        return self.rate.total

    @property
    def failures(self) -> int:
        return self.scored.total - self.scored.successes

    @property
    def errored(self) -> int:
        return sum(self.errors.values())


@dataclass
class TaskRow:
    task: str
    site: str
    variant: str
    rate: Rate
    episodes: list[EpisodeRecord]  # by seed

    @property
    def errored(self) -> int:
        return sum(r.errored for r in self.episodes)


@dataclass
class TaskDelta:
    task: str
    a: Rate
    b: Rate

    @property
    def delta(self) -> float:
        return self.b.value - self.a.value


@dataclass
class Flip:
    task: str
    seed: int | None
    fixed: bool  # failed in A, succeeded in B; else the other way round
    error: str | None = None  # the failing side errored (e.g. timeout): likely not the agent


@dataclass
class Comparison:
    a_name: str  # the baseline (``--compare``)
    b_name: str  # the study reported on; delta = b - a
    a: Rate  # over the matched episodes only
    b: Rate
    tasks: list[TaskDelta]
    flips: list[Flip]
    only_a: list[str]  # tasks that the other study does not have
    only_b: list[str]
    unmatched_seeds: int = 0  # episodes left out: their seed ran in one study only

    @property
    def delta(self) -> float:
        return self.b.value - self.a.value

    @property
    def fixed(self) -> list[Flip]:
        return [f for f in self.flips if f.fixed]

    @property
    def broken(self) -> list[Flip]:
        return [f for f in self.flips if not f.fixed]


@dataclass(frozen=True)
class Verdicts:
    """The verifier's verdicts over episodes, and where they disagree with the score:
    ``verified_failed`` are false "done"s it let through, ``refuted_succeeded`` are
    successes it refused (false alarms)."""

    counts: dict[str, int]  # verified, unverified, refuted, "none" (no verifier ran)
    verified_failed: int
    refuted_succeeded: int

    @classmethod
    def of(cls, records: Iterable[EpisodeRecord]) -> Verdicts:
        scored = [r for r in records if not r.errored]
        counts = Counter(r.verdict or "none" for r in scored)
        return cls(
            counts={k: counts.get(k, 0) for k in ("verified", "unverified", "refuted", "none")},
            verified_failed=sum(r.verdict == "verified" and not r.success for r in scored),
            refuted_succeeded=sum(r.verdict == "refuted" and r.success for r in scored))

    @property
    def judged(self) -> int:
        return sum(n for k, n in self.counts.items() if k != "none")

    def line(self) -> str:
        c = self.counts
        return (f"{c['verified']} verified, {c['unverified']} unverified, {c['refuted']} refuted"
                + (f", {c['none']} without a verdict" if c["none"] else "")
                + f"; {self.verified_failed} verified but failed, "
                  f"{self.refuted_succeeded} refuted but succeeded")


@dataclass
class Report:
    study: Path
    meta: dict
    records: list[EpisodeRecord]
    overall: Group
    variants: list[Group]
    sites: list[Group]
    tasks: list[TaskRow]
    comparison: Comparison | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def errored(self) -> list[EpisodeRecord]:
        return [r for r in self.records if r.errored]

    @property
    def verdicts(self) -> Verdicts:
        return Verdicts.of(self.records)

    @property
    def suites(self) -> list[str]:
        suites = self.meta.get("suites")
        return [str(s) for s in suites] if isinstance(suites, list) else []


# -- reading ------------------------------------------------------------------------
def load_results(study: Path) -> tuple[list[EpisodeRecord], list[str]]:
    """The newest attempt per episode, strictly: a damaged line in the middle of
    ``results.jsonl`` is an error (a report quietly missing rows is worse), while a
    torn last line, left by a study killed mid-write, is skipped with a warning."""
    study = Path(study)
    if not study.exists():
        raise UserError(f"no such study folder: {study}")
    if not study.is_dir():
        raise UserError(f"{study} is a file, not a study folder")
    path = study / RESULTS
    if not path.is_file():
        if (study / STUDY).is_file():
            raise UserError(f"{study} has no results yet ({RESULTS} is missing)")
        raise UserError(f"{study} is not a study folder (no {RESULTS} or {STUDY})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    records, warnings = [], []
    for i, (number, line) in enumerate(lines):
        try:
            records.append(EpisodeRecord.model_validate(parse_json(line, str(path))))
        except DataFileError as exc:
            if i == len(lines) - 1 and not text.endswith("\n"):
                warnings.append(f"{path}: skipped the torn last line {number}")
                continue
            raise UserError(f"{path}: line {number} is not JSON ({exc.problem}); "
                            "fix or remove that line") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "record"
            raise UserError(f"{path}: line {number} is not an episode record "
                            f"({where}: {err['msg']})") from None
    if not records:
        raise UserError(f"{study} has no finished episodes yet")
    return latest(records), warnings


# -- numbers ------------------------------------------------------------------------
def spread(values: list[float]) -> Spread:
    if not values:
        return Spread(0.0, 0.0, 0.0)
    return Spread(statistics.fmean(values), statistics.median(values), math.fsum(values))


def group(name: str, records: list[EpisodeRecord]) -> Group:
    scored = [r for r in records if not r.errored]
    errors = Counter(r.error_class or "" for r in records if r.errored)
    return Group(
        name=name,
        rate=_rate(records),
        scored=Rate(sum(r.success for r in scored), len(scored)),
        errors=dict(errors.most_common()),
        spreads={
            "steps": spread([float(r.steps) for r in records]),
            "tokens": spread([float(r.tokens or r.prompt_tokens + r.completion_tokens)
                              for r in records]),
            "cost": spread([r.cost for r in records]),
            "wall_time": spread([r.wall_time for r in records]),
        },
    )


def groups_by(records: Iterable[EpisodeRecord],
              key: Callable[[EpisodeRecord], str]) -> list[Group]:
    buckets: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for record in records:
        buckets[key(record)].append(record)
    return [group(name, rows) for name, rows in sorted(buckets.items())]


def task_rows(records: list[EpisodeRecord]) -> list[TaskRow]:
    buckets: dict[tuple[str, str], list[EpisodeRecord]] = defaultdict(list)
    for record in records:
        buckets[(record.task, record.variant)].append(record)
    rows = []
    for (task, variant), episodes in sorted(buckets.items()):
        episodes.sort(key=lambda r: (r.seed is None, r.seed or 0))
        rows.append(TaskRow(task, episodes[0].site, variant, _rate(episodes), episodes))
    return rows


def compare(a: list[EpisodeRecord], b: list[EpisodeRecord], a_name: str = "A",
            b_name: str = "B") -> Comparison:
    """Per-task rates over the episodes both studies ran: the same task and, when both
    give seeds for it, the same seed. Episodes of several variants are pooled."""
    by_a: dict[str, list[EpisodeRecord]] = defaultdict(list)
    by_b: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for record in a:
        by_a[record.task].append(record)
    for record in b:
        by_b[record.task].append(record)
    deltas, flips, unmatched = [], [], 0
    total_a = [0, 0]
    total_b = [0, 0]
    for task in sorted(set(by_a) & set(by_b)):
        seeds_a = {r.seed for r in by_a[task]}
        seeds_b = {r.seed for r in by_b[task]}
        seeded = None not in seeds_a and None not in seeds_b
        keep = seeds_a & seeds_b if seeded else seeds_a | seeds_b
        rows_a = [r for r in by_a[task] if r.seed in keep]
        rows_b = [r for r in by_b[task] if r.seed in keep]
        unmatched += len(by_a[task]) - len(rows_a) + len(by_b[task]) - len(rows_b)
        if not rows_a or not rows_b:
            continue
        rate_a, rate_b = _rate(rows_a), _rate(rows_b)
        deltas.append(TaskDelta(task, rate_a, rate_b))
        for totals, rate in ((total_a, rate_a), (total_b, rate_b)):
            totals[0] += rate.successes
            totals[1] += rate.total
        # A flip: every matched episode of a seed succeeded on one side and none on the
        # other. Unseeded tasks are one "seed" each.
        for seed in sorted(keep) if seeded else [None]:
            seed_a = [r for r in rows_a if not seeded or r.seed == seed]
            seed_b = [r for r in rows_b if not seeded or r.seed == seed]
            if {_rate(seed_a).value, _rate(seed_b).value} == {0.0, 1.0}:
                fixed = _rate(seed_b).value == 1.0
                failed = seed_a if fixed else seed_b
                error = failed[0].error_class if all(r.errored for r in failed) else None
                flips.append(Flip(task, seed, fixed, error))
    return Comparison(
        a_name=a_name, b_name=b_name, a=Rate(*total_a), b=Rate(*total_b), tasks=deltas,
        flips=flips, only_a=sorted(set(by_a) - set(by_b)),
        only_b=sorted(set(by_b) - set(by_a)), unmatched_seeds=unmatched)


def build_report(study: Path, compare_with: Path | None = None) -> Report:
    study = Path(study)
    records, warnings = load_results(study)
    comparison = None
    if compare_with is not None:
        other, more = load_results(Path(compare_with))
        warnings += more
        # The other study is the baseline: a positive delta means this one does better.
        comparison = compare(other, records, str(compare_with), str(study))
    return Report(
        study=study, meta=load_study(study), records=records,
        overall=group("all", records),
        variants=groups_by(records, lambda r: r.variant),
        sites=groups_by(records, lambda r: r.site or "(no site)"),
        tasks=task_rows(records), comparison=comparison, warnings=warnings,
    )


def _rate(records: list[EpisodeRecord]) -> Rate:
    return Rate(sum(r.success and not r.errored for r in records), len(records))
