"""Evaluation: task formats, evaluators, runner, reports."""
