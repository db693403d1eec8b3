"""Evaluation: task formats, evaluators, runner, reports.

The runner calls ``open_suite(SUITE)`` (or builds a suite directly), picks
entries with ``SuiteChoice.select``, and for each runnable one does
``task = suite.task(id, seed=...)``, ``spec = task.setup(page)``, runs the agent,
then ``task.validate(page, answer)`` and ``task.teardown()``.
"""

from colorbrowser.evaluation.configured import ConfigSuite, ConfiguredTask, TaskDefinition
from colorbrowser.evaluation.miniwob import MiniWobSuite, MiniWobTask
from colorbrowser.evaluation.suites import SuiteChoice, open_suite
from colorbrowser.evaluation.task import (
    Suite,
    Task,
    TaskEntry,
    TaskSetupError,
    TaskSpec,
    Validation,
)
from colorbrowser.static_server import StaticServer

__all__ = [
    "ConfigSuite",
    "ConfiguredTask",
    "MiniWobSuite",
    "MiniWobTask",
    "StaticServer",
    "Suite",
    "SuiteChoice",
    "Task",
    "TaskDefinition",
    "TaskEntry",
    "TaskSetupError",
    "TaskSpec",
    "Validation",
    "open_suite",
]
