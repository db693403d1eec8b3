"""The arena's test fixtures (a Trac built once per session into a fresh cache), for the
copilot study's smoke test."""

from tests.arena.conftest import arena_cache  # noqa: F401 - a fixture, used by name
