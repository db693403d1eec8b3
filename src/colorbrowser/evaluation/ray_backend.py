"""The Ray backend: the same workers as Ray actors, for studies that outgrow a machine.

Each actor owns one browser, as a local worker process does; the coordinator
still writes every record, so ``results.jsonl`` looks the same. An actor that
overruns its episode's limit is killed and replaced; one that dies is replaced.

Paths in jobs are absolute, and site addresses travel in the plan, because Ray
workers start in their own folder with the environment of ``ray start``. The
offline model server listens on this machine's loopback, so a cluster of other
machines needs a model endpoint (``--base-url``) they can all reach.

Ray itself opens some ports on every interface even when started with
``--node-ip-address 127.0.0.1``. Start the cluster with ``RAY_AUTH_MODE=token`` (and
``RAY_AUTH_TOKEN`` in the environment of ``ray start`` and of this command), and keep
a single-machine cluster off the network: the tests run it in a network namespace
that has only loopback (``unshare -n``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from colorbrowser.errors import UserError
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evaluation.runner import OnRecord, OnStart, lost_record
from colorbrowser.evaluation.study import EpisodeJob
from colorbrowser.evaluation.worker import EpisodeWorker, WorkerPlan


class EpisodeActor:
    """Wrapped with ``ray.remote`` at run time, so importing this module needs no Ray."""

    def __init__(self, plan: WorkerPlan, name: str) -> None:
        self.worker = EpisodeWorker(plan, name)

    def run(self, job: EpisodeJob) -> dict[str, Any]:
        return self.worker.run(job)

    def close(self) -> None:
        self.worker.close()


def _ray():
    try:
        import ray
    except ImportError:
        raise UserError("--backend ray needs Ray: pip install 'colorbrowser[ray]'") from None
    return ray


class RayBackend:
    def __init__(self, plan: WorkerPlan, workers: int = 1, address: str | None = None) -> None:
        self.plan = plan
        self.workers = max(1, workers)
        self.address = address or os.environ.get("RAY_ADDRESS") or None

    def _connect(self):
        ray = _ray()
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            try:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                         configure_logging=False, **({} if self.address else {
                             "num_cpus": max(self.workers, os.cpu_count() or 1),
                             "_node_ip_address": "127.0.0.1"}))
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "a new local cluster"
                raise UserError(f"cannot connect to Ray at {where}: "
                                f"{str(exc).splitlines()[0]}") from None
        return ray

    def run(self, jobs: list[EpisodeJob], on_record: OnRecord, on_start: OnStart) -> None:
        ray = self._connect()
        actor_class = ray.remote(num_cpus=1, max_restarts=0)(EpisodeActor)
        names = [f"ray-{i + 1}" for i in range(min(self.workers, len(jobs)))]
        actors: dict[str, Any] = {}
        running: dict[Any, tuple[str, EpisodeJob, float]] = {}
        pending = list(jobs)
        try:
            while pending or running:
                busy = {name for name, _, _ in running.values()}
                for name in names:
                    if name in busy or not pending:
                        continue
                    if name not in actors:
                        actors[name] = actor_class.remote(self.plan, name)
                    job = pending.pop(0)
                    running[actors[name].run.remote(job)] = (name, job, time.monotonic())
                    on_start(job, name)
                ready, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
                for ref in ready:
                    name, job, started = running.pop(ref)
                    try:
                        on_record(EpisodeRecord.model_validate(ray.get(ref)))
                    except ray.exceptions.RayError as exc:
                        actors.pop(name, None)
                        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                        on_record(lost_record(job, name, started, "crash",
                                              f"Ray actor failed: {type(exc).__name__} {detail}"))
                now = time.monotonic()
                for ref, (name, job, started) in list(running.items()):
                    if now - started > job.hard_limit:
                        running.pop(ref)
                        ray.kill(actors.pop(name))
                        on_record(lost_record(job, name, started, "timeout",
                                              f"actor did not answer within "
                                              f"{job.hard_limit:.0f} s; killed"))
        finally:
            closing = [a.close.remote() for a in actors.values()]
            if closing:
                ray.wait(closing, num_returns=len(closing), timeout=30)
            for actor in actors.values():
                ray.kill(actor)
