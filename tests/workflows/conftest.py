"""A Trac of the workflow tests' own (the shared built snapshot, an instance no other
test run can reset), a browser, and helpers to run one episode on it."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from colorbrowser.arena import Arena
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import AgentSettings, BrowserSettings, PathSettings, Settings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.run.factory import build_episode

from ..arena.conftest import arena_cache, free_base, own_cache  # noqa: F401 (fixture)
from .siblings_app import SiblingSites

WORKFLOW_TRAC_PORT = 18503


@pytest.fixture(scope="module")
def trac_url(arena_cache, tmp_path_factory, monkeypatch_module):  # noqa: F811
    cache = own_cache(arena_cache, tmp_path_factory.mktemp("workflow-trac"))
    arena = Arena(0, cache=cache, ports={"trac": free_base(WORKFLOW_TRAC_PORT)})
    try:
        arena.up(["trac"])
        url = f"http://127.0.0.1:{arena.port('trac')}"
        monkeypatch_module.setenv("WA_TRAC", url)  # __TRAC__ in workflow steps
        yield url
    finally:
        arena.down()


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture
def env():
    """A browser of each test's own: page scripts that change Trac stay in it."""
    env = BrowserEnv(BrowserSettings(action_timeout_ms=3000))
    yield env
    env.close()


@pytest.fixture
def sites():
    """The loopback store and Trac-like site of the sibling tests (siblings_app.py)."""
    both = SiblingSites()
    yield both
    both.close()


def change_pages(env: BrowserEnv, script: str) -> None:
    """Run ``script`` on every page once its DOM is there (a changed app)."""
    _ = env.page
    env.session.context.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => {" + script + "});")


def settings(tmp_path: Path, kb: Path | None = None, **agent) -> Settings:
    agent = {"memory": "none", "max_steps": 15, "send_screenshot": False,
             "knowledge": "on" if kb else "off", "tips_embeddings": False, **agent}
    return Settings(agent=AgentSettings(**agent),
                    paths=PathSettings(runs=tmp_path / "runs", knowledge=kb,
                                       cache=tmp_path / "cache"))


def run(goal: str, url: str, settings_: Settings, model: ScriptedModel, env: BrowserEnv,
        run_dir: Path, **build):
    with contextlib.ExitStack() as stack:
        episode = build_episode(goal, url, settings_, stack, run_dir=run_dir, model=model,
                                env=env, **build)
        result = episode.run()
    return episode, result


def no_model() -> ScriptedModel:
    """A scripted model that fails the test if anything calls it."""
    return ScriptedModel([AssertionError("the model was called")])
