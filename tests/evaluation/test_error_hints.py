"""What eval says about errored episodes: --retry-errors for those another run may
score, and how to give a judge for those left unscored for want of one."""

from __future__ import annotations

from colorbrowser.evaluation.cli import error_hints
from colorbrowser.evaluation.records import EpisodeRecord


def record(task: str, error_class: str | None = None, error: str | None = None
           ) -> EpisodeRecord:
    return EpisodeRecord(task=task, config_hash="c", error_class=error_class, error=error)


UNJUDGED = record("a", "eval", "string_match: fuzzy_match: needs a judge model")
TIMED_OUT = record("b", "timeout", "episode past its time limit")


def test_an_episode_without_a_judge_is_not_sent_to_retry_errors():
    assert error_hints([UNJUDGED, record("c")]) == [
        "1 episode(s) could not be scored: fuzzy_match needs a judge model, which is the "
        "study's model: run them again with --base-url URL --model NAME (or [model] in the "
        "config file) and a new --out"]


def test_other_errors_still_point_to_retry_errors():
    assert error_hints([TIMED_OUT]) == ["errored episodes can be run again with --retry-errors"]
    assert len(error_hints([UNJUDGED, TIMED_OUT])) == 2
    assert error_hints([record("c")]) == []
