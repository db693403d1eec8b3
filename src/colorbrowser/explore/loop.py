"""The explorer's own loop. Not an ``Episode``: exploration has no goal to stop on.

Each turn it looks at the page (candidates, the Predictor's predictions, the
Selector's scores), asks the strategy for a move, makes it through the same
``BrowserEnv`` and action table as the agent, judges what happened, grows the graph,
and writes the step to ``steps.jsonl`` and the whole state to ``explore.json``.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from playwright.sync_api import BrowserContext
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.observe import observation_text
from colorbrowser.browser.policy import ERROR_PAGE
from colorbrowser.errors import BrowserError, UserError
from colorbrowser.explore.backtrack import Backtracker, Hop
from colorbrowser.explore.baselines import make_strategy
from colorbrowser.explore.candidates import Candidate, candidates
from colorbrowser.explore.choice import Here, Option, Strategy
from colorbrowser.explore.graph import Edge, Finding, Node
from colorbrowser.explore.judger import Verdict, judge
from colorbrowser.explore.learned import Outcomes
from colorbrowser.explore.outcome import DbProbe, NetworkLog, Outcome, element_diff
from colorbrowser.explore.pagefacts import PageFacts, read_facts
from colorbrowser.explore.plans import PlanStep, better_path, goto_step, step_of
from colorbrowser.explore.predict import Prediction, Uncertainty, rule_predict
from colorbrowser.explore.sandbox import RequestGuard, Sandbox, timed_reset
from colorbrowser.explore.selector import PREDICTABLE, Picker, ScaleHop
from colorbrowser.explore.state import ExploreState, load_state, rng_from_json, rng_to_json
from colorbrowser.explore.statekey import state_key
from colorbrowser.explore.urls import same_page, url_template
from colorbrowser.steps import SCHEMA_VERSION, Step, StepResult, Target
from colorbrowser.types import ActionResult, Observation

UNSEEN_DEST = 0.3  # how much of the rules' confidence survives a page kind never seen
MAX_PATH = 12
MAX_PAGES = 600  # addresses whose page facts are kept for page questions


@dataclass
class ExploreConfig:
    start_url: str
    budget: int
    out: Path
    seed: int = 0
    strategy: str = "ours"
    screenshots: str = "all"  # all, nodes, none
    backtrack: str = "auto"  # auto, url, replay, snapshot


class OutOfBudget(Exception):
    """The next browser action would exceed the budget."""


class ModelPredictor(Protocol):
    """Answers where the rules abstain (roles.PredictorRole); None: no answer."""

    def predict(self, cand: Candidate, obs: Observation) -> Prediction | None: ...


@dataclass
class _Page:
    obs: Observation
    facts: PageFacts
    key: str
    here: Here
    cands: dict[str, Candidate] = field(default_factory=dict)
    kind: str = ""  # its URL template, what learned outcomes are counted on


class Explorer:
    def __init__(self, env: BrowserEnv, config: ExploreConfig, *,
                 sandbox: Sandbox | None = None, predictor: ModelPredictor | None = None,
                 picker: Picker | None = None, cookies: list[dict[str, Any]] | None = None,
                 on_step: Callable[[ExploreState], None] | None = None) -> None:
        self.env, self.config, self.sandbox = env, config, sandbox
        self.predictor, self.on_step, self.cookies = predictor, on_step, cookies
        self.out = Path(config.out)
        self.trajectory = Trajectory(self.out)
        self.state = self._open_state()
        self.rng = random.Random(config.seed)
        if self.state.rng:
            self.rng.setstate(rng_from_json(self.state.rng))
        self.strategy: Strategy = make_strategy(config.strategy, self.rng)
        if isinstance(self.strategy, ScaleHop):
            self.strategy.picker = picker
        self.strategy.load(self.state.strategy_state)
        self.uncertainty = Uncertainty.from_json(self.state.uncertainty)
        self.outcomes = Outcomes.from_json(self.state.learned)
        self.guard: RequestGuard | None = None
        self.probe = DbProbe(sandbox.db_paths() if sandbox else [])
        self._context: BrowserContext | None = None
        self.network: NetworkLog | None = None
        self.page: _Page | None = None
        self.backtracker = Backtracker(config.start_url, self._plain_act,
                                       self._restore if sandbox else None)

    # ----- state on disk --------------------------------------------------------------

    def _open_state(self) -> ExploreState:
        state = load_state(self.out)
        c = self.config
        if state is None:
            state = ExploreState(start_url=c.start_url, strategy=c.strategy, seed=c.seed)
            state.graph.start_url = c.start_url
            self.trajectory.write_meta({
                "goal": f"explore {c.start_url}", "start_url": c.start_url, "kind": "explore",
                "strategy": c.strategy, "seed": c.seed, "schema_version": SCHEMA_VERSION})
        elif state.start_url != c.start_url or state.strategy != c.strategy:
            raise UserError(f"{self.out} holds an exploration of {state.start_url} "
                            f"({state.strategy}); explore into another --out")
        state.budget = max(state.budget, c.budget)
        return state

    def _save(self) -> None:
        s = self.state
        s.rng = rng_to_json(self.rng.getstate())
        s.strategy_state = self.strategy.to_json()
        s.uncertainty = self.uncertainty.to_json()
        s.learned = self.outcomes.to_json()
        with contextlib.suppress(PlaywrightError, BrowserError):
            s.browser = self.env.snapshot()
        if self.guard:
            s.blocked = self.guard.blocked[-200:]
            s.off_list = self.guard.off_list[-200:]
        s.save(self.out)

    # ----- the browser ----------------------------------------------------------------

    def _hooks(self) -> None:
        """Listen to the current browser context (a revived browser has a new one)."""
        context = self.env.session.context
        if context is self._context:
            return
        self._context = context
        self.network = NetworkLog(context)
        if self.guard is None:
            self.guard = RequestGuard(self.env.session.policy, writes=self.sandbox is not None)
            self.guard.blocked = list(self.state.blocked)
            self.guard.off_list = list(self.state.off_list)
        self.guard.install(context)
        if self.cookies:
            context.add_cookies(self.cookies)  # type: ignore[arg-type]

    def _start_browser(self) -> None:
        s = self.state
        try:
            self.env.reset(None)
            self._hooks()
            if s.browser and s.used:
                self.env.restore(s.browser)
                self._hooks()
            else:
                self.env.reset(s.here_url or self.config.start_url)
        except BrowserError as exc:
            raise UserError(str(exc)) from None

    def _execute(self, text: str) -> ActionResult:
        if self.state.used >= self.state.budget:
            raise OutOfBudget
        self._hooks()
        assert self.network is not None
        self.network.start()
        result = self.env.step(text)
        session = self.env.session
        with contextlib.suppress(PlaywrightError, BrowserError):
            pages = session.pages
            if len(pages) > 1:  # keep one tab: the one the action left active
                result.info["new_tab"] = True
                for page in pages:
                    if page is not session.page:
                        page.close()
        self.state.used += 1
        return result

    def _observe(self) -> tuple[Observation, PageFacts, str]:
        obs = self.env.observe()
        if obs.url.startswith(ERROR_PAGE) and not _site_answers(self.config.start_url):
            # a site gone is no page of it: stop before the graph learns otherwise
            # (every hop would fail, close its node, and the run would call itself done)
            raise UserError(f"{self.config.start_url} stopped answering; what was explored "
                            "is saved: run the same command again once it answers")
        facts = read_facts(self.env.page)
        key = str(state_key(obs))
        if obs.url and obs.url not in self.state.urls and obs.url.startswith("http"):
            self.state.urls.append(obs.url)
        return obs, facts, key

    def _plain_act(self, text: str, path: list[PlanStep]) -> tuple[Observation, str]:
        """One backtracking action: run, observe, record; no prediction. ``path`` is the
        way from the start page that this action completes."""
        before = self.page.obs if self.page else None
        result = self._execute(text)
        obs, facts, key = self._observe()
        self._record(text, before, result, actor="script",
                     info={"move": "backtrack"}, obs_after=obs)
        self.page = self._look(obs, facts, key, path)
        return obs, key

    def _restore(self) -> None:
        assert self.sandbox is not None
        seconds = timed_reset(self.sandbox)
        self.probe.rebase()
        self.state.dirty = False
        self.state.tally.restores += 1
        self.state.tally.restore_seconds += seconds

    # ----- looking --------------------------------------------------------------------

    def _keep_page(self, obs: Observation, facts: PageFacts) -> None:
        """The page's facts, the first time its address is reached with no write in effect."""
        pages = self.state.graph.pages
        url = obs.url.split("#", 1)[0]
        if (self.state.after_write or not url.startswith("http") or url in pages
                or len(pages) >= MAX_PAGES):
            return
        pages[url] = {"h1": facts.h1, "title": obs.title,
                      "pairs": [p.__dict__ for p in facts.pairs], "tables": facts.tables}

    def _node(self, obs: Observation, facts: PageFacts, key: str, path: list[PlanStep]) -> Node:
        graph = self.state.graph
        self._keep_page(obs, facts)
        node = graph.node(key)
        if node is None:
            node = graph.add_node(Node(
                key=key, template=url_template(obs.url), url=obs.url, title=obs.title,
                h1=facts.h1, path=list(path), first_step=self.state.used,
                after_write=self.state.after_write,
                pairs=[p.__dict__ for p in facts.pairs], tables=facts.tables))
            self.state.new_state_at.append(self.state.used)
            if self.config.screenshots != "none":
                node.screenshot = self._shot(f"node-{len(graph.nodes):04d}.png")
        elif better_path(path, node.path) and not self.state.after_write:
            node.path = list(path)
        graph.templates[node.template] = graph.templates.get(node.template, 0) + 1
        return node

    def _look(self, obs: Observation, facts: PageFacts, key: str, path: list[PlanStep]) -> _Page:
        node = self._node(obs, facts, key, path)
        node.visits += 1
        graph = self.state.graph
        opts: list[Option] = []
        cands: dict[str, Candidate] = {}
        seen: set[str] = set()
        policy = self.env.session.policy
        page_kind = url_template(obs.url)
        for cand in candidates(obs, facts, pick=node.visits,
                               allowed=lambda url: policy.refuse_target(url) is None):
            if cand.signature in seen:
                continue
            seen.add(cand.signature)
            cands[cand.signature] = cand
            rule = rule_predict(cand, obs.url)
            learn_key = Outcomes.key(cand, rule, page_kind)
            pred = self.outcomes.adjust(learn_key, rule, page_kind)
            u = self.uncertainty.of(node.key, cand, pred)
            if pred.navigates and (pred.template is None or pred.template not in graph.templates):
                u = 1 - (1 - u) * UNSEEN_DEST
            tries = self.state.tries.get(f"{node.key}|{cand.signature}", 0)
            opts.append(Option(cand, pred, u, self._yield(cand, pred) / (1 + tries), learn_key))
        allowed = [o for o in opts if not o.cand.writes or self.sandbox is not None]
        node.candidates = len(opts)
        node.skipped = sorted({o.cand.signature for o in opts if o not in allowed})
        tried = set(node.tried)
        checkable = [o for o in allowed
                     if o.uncertainty < PREDICTABLE and o.cand.signature not in tried]
        node.predictable = sorted({o.cand.signature for o in checkable})
        closed = tried | set(node.predictable)
        open_opts = [o for o in allowed if o.cand.signature not in closed]
        node.open = [o.cand.signature for o in open_opts]
        node.best = max((o.score for o in open_opts), default=0.0)
        links = [c.facts["href"].split("#", 1)[0] for c in cands.values() if c.kind == "link"
                 and not c.writes]
        here = Here(url=obs.url, key=key, node=node, options=open_opts, all_options=allowed,
                    checkable=checkable, links=links)
        return _Page(obs, facts, key, here, cands, page_kind)

    def _yield(self, cand: Candidate, pred: Prediction) -> float:
        """How often this action, from any page, reached a state not seen before (with
        one imagined success, so an untried action counts as promising): a header's
        "View cart" or a script toggle that changes nothing stops being tried on every
        kind of page, however unsure the Predictor stays about it. Links and forms are
        also counted by where they point, so fifty members' links that all end on the
        login form stop looking like fifty unseen pages."""
        rates = [(found + 1) / (tried + 1) for tried, found in
                 (self.state.yields.get(k, (0, 0)) for k in _yield_keys(cand, pred))]
        return min(rates)

    def _shot(self, name: str) -> str | None:
        with contextlib.suppress(PlaywrightError, BrowserError):
            return self.trajectory.save_image(name, self.env.session.screenshot(self.env.page))
        return None

    # ----- moving ---------------------------------------------------------------------

    def run(self) -> ExploreState:
        self._start_browser()
        s = self.state
        obs, facts, key = self._observe()
        self.page = self._look(obs, facts, key, s.path)
        if self.on_step:
            self.on_step(s)
        while s.used < s.budget:
            assert self.page is not None
            move = self.strategy.choose(self.page.here, s.graph, s.used)
            if move.kind == "done":
                s.finished = True
                break
            try:
                if move.kind == "act" and move.option is not None:
                    self._act(move.option)
                elif move.kind == "hop" and move.node:
                    if not self._hop(move.node):
                        break
                elif move.kind == "goto" and move.url:
                    self._goto(move.url, [goto_step(move.url)])
                else:
                    self._goto(self.config.start_url, [])
            except OutOfBudget:
                break
            self._save()
            if self.on_step:
                self.on_step(s)
        if s.dirty and self.sandbox is not None:  # writes are undone when the run ends
            self._restore()
        s.finished = s.finished or s.used >= s.budget
        self._save()
        return s

    def _goto(self, url: str, path: list[PlanStep]) -> None:
        self.state.path, self.state.after_write = path, False if not path else \
            self.state.after_write
        if self.state.dirty and self.sandbox is not None and not path:
            self._restore()
        before = self.page.obs if self.page else None
        result = self._execute(goto_step(url))
        obs, facts, key = self._observe()
        self._record(goto_step(url), before, result, actor="agent",
                     info={"move": "goto" if path else "restart"}, obs_after=obs)
        self.page = self._look(obs, facts, key, path)
        self.state.here_url = obs.url

    def _hop(self, key: str) -> bool:
        """Backtrack to a node; False when the budget left cannot pay for it."""
        s = self.state
        node = s.graph.nodes[key]
        method = self.config.backtrack
        if method == "auto":
            method = self.backtracker.method_for(node, s.dirty)
        cost = 1 if method == "url" else len(node.path) + 1
        if s.used + cost > s.budget:
            return False
        hop: Hop = self.backtracker.go(node, self.config.backtrack, dirty=s.dirty)
        hop.at = s.used
        s.hops.append(hop.to_json())
        if hop.ok:
            s.path, s.after_write = list(node.path), node.after_write
        else:  # the node cannot be reached this way now: close it rather than loop on it
            node.open, node.predictable = [], []
            node.best = 0.0
        assert self.page is not None
        s.here_url = self.page.obs.url
        return True

    def _act(self, option: Option) -> None:
        s = self.state
        assert self.page is not None
        page, cand = self.page, option.cand
        node = page.here.node
        pred = option.pred
        if pred.abstained and self.predictor is not None:
            answered = self.predictor.predict(cand, page.obs)
            if answered is not None:
                pred = answered
                s.tally.model_predictions += 1
        plan = step_of(cand, page.obs)
        written_before = s.after_write
        result = self._execute(cand.action)
        obs, facts, key = self._observe()
        for k in _yield_keys(cand, option.pred):
            tally = s.yields.setdefault(k, [0, 0])
            tally[0] += 1
            tally[1] += s.graph.node(key) is None
        out = self._outcome(page, cand, obs, key, result)
        verdict = judge(cand, pred, out)
        self.outcomes.observe(option.learn_key, out, page.kind)
        self._learn(node, cand, pred, verdict)
        if cand.writes:
            s.tally.writes_tried += 1
            s.dirty = s.dirty or bool(self.sandbox)
        # past the longest path kept, the address stands in for the way here
        path = [*s.path, plan] if len(s.path) < MAX_PATH else [goto_step(obs.url)]
        # a write that changed no row of the app's databases (a filter form that POSTs,
        # say) leaves the data as it was: what follows does not need it
        s.after_write = s.after_write or (cand.writes and (not self.probe.paths or bool(out.db)))
        s.path = path
        shot = self._record(cand.action, page.obs, result, actor="agent", obs_after=obs,
                            target=cand.target, info={
                                "move": "act", "kind": cand.kind, "writes": cand.writes,
                                "prediction": pred.to_json(), "outcome": out.to_json(),
                                "verdict": verdict.to_json()})
        self.page = self._look(obs, facts, key, path)
        s.here_url = obs.url
        s.graph.edges.append(Edge(
            step=s.step, source=node.key, dest=key, action=cand.action, plan=plan,
            kind=cand.kind, signature=cand.signature, writes=cand.writes,
            prediction=pred.to_json(), outcome=out.to_json(), verdict=verdict.to_json(),
            source_url=page.obs.url, after_write=written_before))
        if verdict.finding:
            s.graph.findings.append(Finding(step=s.step, node=node.key, url=page.obs.url,
                                            kind=verdict.finding, text=verdict.text,
                                            action=cand.action, screenshot=shot))

    def _outcome(self, page: _Page, cand: Candidate, obs: Observation, key: str,
                 result: ActionResult) -> Outcome:
        before = page.obs
        same_doc = getattr(before, "_colorbrowser_doc", 1) == getattr(obs, "_colorbrowser_doc", 2)
        appeared, gone = element_diff(before, obs, same_doc)
        assert self.network is not None
        requests, method = self.network.take()
        target = obs.elements.get(cand.target.bid) if same_doc else None
        return Outcome(
            url=obs.url, navigated=not same_doc or not same_page(before.url, obs.url),
            new_tab=bool(result.info.get("new_tab")), method=method, requests=requests[:20],
            appeared=appeared, disappeared=gone, states=dict(target.states) if target else {},
            key_before=page.key, key_after=key, db=self.probe.diff(),
            error=None if result.ok else result.error)

    def _learn(self, node: Node, cand: Candidate, pred: Prediction, verdict: Verdict) -> None:
        s = self.state
        k = f"{node.key}|{cand.signature}"
        s.tries[k] = s.tries.get(k, 0) + 1
        if cand.signature not in node.tried:
            node.tried.append(cand.signature)
        s.tally.predictions += 1
        if pred.abstained:
            s.tally.abstained += 1
            return
        for name, ok in verdict.checks.items():
            s.tally.check(name, ok)
        if verdict.finding != "error":
            self.uncertainty.learn(node.key, cand, verdict.missed, pred)

    # ----- the record -----------------------------------------------------------------

    def _record(self, action: str, before: Observation | None, result: ActionResult, *,
                actor: str, obs_after: Observation, target: Target | None = None,
                info: dict[str, Any] | None = None) -> str | None:
        s = self.state
        s.step += 1
        shot = None
        if self.config.screenshots == "all":
            shot = self._shot(f"{s.step:04d}.png")
        step = Step(
            step=s.step, time=time.strftime("%Y-%m-%dT%H:%M:%S"), actor=actor,  # type: ignore[arg-type]
            url=before.url if before else "", title=before.title if before else "",
            observation=observation_text(before) if before else "", action=action,
            target=target, changes=obs_after.changes,
            result=StepResult(ok=result.ok, error=result.error, output=obs_after.url,
                              info=info or {}),
            screenshot=shot)
        self.trajectory.append_step(step)
        return shot


def _yield_keys(cand: Candidate, pred: Prediction) -> list[str]:
    keys = [cand.signature]
    if pred.template:
        keys.append(f"{cand.kind} to {pred.template}")
    return keys


def _site_answers(url: str) -> bool:
    """Whether anything answers at ``url`` with HTTP, whatever the status: a browser
    error page is then one dead link, not the whole site gone."""
    try:
        httpx.get(url, timeout=5.0, trust_env=False)
    except httpx.HTTPError:
        return False
    return True
