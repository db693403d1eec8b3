"""What an exploration of the demo shop leaves behind: findings proposed as tips for
review (source exploration), graph.html a person can open, a chat-format training set,
and synthesised WebArena tasks that passed their proof and pass it again later."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from colorbrowser.agent.operator import Operator, split_reply
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.explore.sandbox import BrowserStorageSandbox
from colorbrowser.explore.synth import propose
from colorbrowser.explore.validate import Prover, fresh_start, load_tasks, reprove
from colorbrowser.hitl.asking import HelpAnswer
from colorbrowser.hitl.review import review
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.llm.prompts import outside_fences
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.plan.format import parse_plan
from colorbrowser.steps import DecisionView
from colorbrowser.types import Observation

from .conftest import run_explore


@pytest.fixture(scope="module")
def shop_run(shop_url, tmp_path_factory):
    out = tmp_path_factory.mktemp("shop-explore")
    kb = out / "kb.db"
    summary = run_explore(f"{shop_url}/index.html", out / "run", budget=60, tasks=True,
                          sandbox="browser", kb_path=kb, screenshots="all")
    return out / "run", kb, summary


def test_findings_are_queued_and_reviewed_into_tips_with_source_exploration(shop_run):
    out, kb_path, summary = shop_run
    graph = json.loads((out / "graph.json").read_text())
    assert any("Place order" in f["text"] and f["kind"] == "mismatch" for f in graph["findings"])

    class Writes:
        def ask(self, request):
            return HelpAnswer(kind="tip", text="Place order runs a script; wait for it.",
                              site=request.site or "127.0.0.1", patterns=[])

    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        queued = kb.queue_list("open")
        assert queued and all(i.reason.startswith("exploration:") for i in queued)
        assert "findings queued" in summary
        review(kb, Writes())
        tips = kb.list()
        assert tips and {t.source for t in tips} == {"exploration"}


def test_graph_html_shows_nodes_edges_findings_and_screenshots(shop_run, page):
    out, _, _ = shop_run
    graph = json.loads((out / "graph.json").read_text())
    page.goto((out / "graph.html").as_uri())
    text = page.inner_text("body")
    assert f"States ({len(graph['nodes'])})" in text and f"Edges ({len(graph['edges'])})" in text
    assert f"Findings ({len(graph['findings'])})" in text and "Place order" in text
    shots = page.locator("img[src^='data:image/jpeg;base64,']")
    assert shots.count() == len(graph["nodes"])
    assert page.evaluate("Array.from(document.images).every(i => i.naturalWidth > 0)")
    # page text is escaped: the one script is the page's own, allowed by its hash
    assert page.locator("script").count() == 1
    assert "script-src 'sha256-" in page.locator(
        "meta[http-equiv='Content-Security-Policy']").get_attribute("content")


def test_pages_dataset_has_one_chat_line_per_exploration_step_with_outcome_and_screenshot(
        shop_run):
    out, _, _ = shop_run
    lines = [json.loads(line) for line in (out / "dataset.pages.jsonl").read_text().splitlines()]
    steps = (out / "steps.jsonl").read_text().splitlines()
    assert len(lines) == len(steps)
    first = lines[0]
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    page = first["messages"][1]["content"]
    assert "[" in page  # the axtree text with bids
    assert "URL:" not in outside_fences(page)  # the page is fenced as untrusted data
    assert first["messages"][2]["content"] == first["action"]
    assert {"ok", "url"} <= set(first["outcome"])
    assert all((out / line["screenshot"]).is_file() for line in lines if line["screenshot"])
    assert any(line["outcome"]["verdict"] for line in lines)


def test_dataset_holds_each_proved_path_step_by_step_in_the_operators_own_prompt(shop_run):
    out, _, _ = shop_run
    tasks, plans = load_tasks(out)
    lines = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    by_task: dict[str, list[dict]] = {}
    for line in lines:
        by_task.setdefault(line["task_id"], []).append(line)
    assert set(by_task) == {t["task_id"] for t in tasks}
    system = Operator(ScriptedModel([])).messages(DecisionView(
        "g", Observation("http://x/", "x", ""), 1, 30))[0].content
    for task in tasks:
        rows = by_task[task["task_id"]]
        plan = parse_plan(plans[task["task_id"]])
        moves = [s for s in plan.steps if s.action != "stop"]
        assert len(rows) == len(moves) + 1  # every step of the path, then the stop
        assert [r["step"] for r in rows] == list(range(1, len(rows) + 1))
        for row, step in zip(rows, [*moves, None], strict=True):
            prompt_system, user, reply = (m["content"] for m in row["messages"])
            assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant"]
            assert prompt_system == system  # the Operator's own system prompt
            assert user.startswith(f"# Goal\n{task['intent']}\n")  # the goal comes first
            assert "What is your next action?" in user
            assert "URL:" not in outside_fences(user)  # the page is fenced as untrusted data
            _, action = split_reply(reply)  # the reply parses as the Operator's would
            assert str(action) == row["action"]
            if step is None:
                assert action.name == "stop"
                answer = (task["eval"]["reference_answers"] or {}).get("must_include")
                assert (action.args or [""])[0] == (answer[0] if answer else "")
                continue
            assert action.name == step.action
            # the element acted on is on the page the prompt shows, by the plan's name
            bid = action.args[0]
            shown = next(ln for ln in user.splitlines() if ln.strip().startswith(f"[{bid}]"))
            assert step.target.role in shown and (step.target.name or "") in shown
        # each step after the first lists the earlier actions as the agent's own
        for earlier, later in pairwise(rows):
            assert f"step {earlier['step']}: {earlier['action']} -> ok" in later["messages"][1][
                "content"]


def test_each_kept_task_leaves_its_proof_as_a_run_folder(shop_run):
    out, _, _ = shop_run
    tasks, _ = load_tasks(out)
    for task in tasks:
        run = out / "proved" / task["task_id"]
        meta = json.loads((run / "meta.json").read_text())
        result = json.loads((run / "result.json").read_text())
        assert meta["goal"] == task["intent"] and meta["start_url"] == task["start_url"]
        assert result["status"] == "done" and result["proved"]["path"] == 1
        assert result["proved"]["nothing"] == 0 and result["proved"]["start"] == 0
        steps = [json.loads(ln) for ln in (run / "steps.jsonl").read_text().splitlines()]
        assert steps[-1]["action"].startswith("stop(") and steps[-1]["result"]["done"]
        assert all(s["result"]["ok"] for s in steps)
    assert tasks and {p.name for p in (out / "proved").iterdir()} == {
        t["task_id"] for t in tasks}


def test_kept_tasks_are_webarena_json_and_prove_again_in_a_separate_run(shop_run):
    out, _, _ = shop_run
    tasks, _ = load_tasks(out)
    kinds = {t["synthesised"]["kind"] for t in tasks}
    assert {"single", "multi", "question"} <= kinds
    assert all(t["eval"]["eval_types"] in (["url_match"], ["string_match"]) for t in tasks)
    question = next(t for t in tasks if t["synthesised"]["kind"] == "question")
    assert question["eval"]["reference_answers"]["must_include"][0] in json.dumps(
        json.loads((out / "graph.json").read_text())["nodes"])  # word for word from a page
    assert len({t["intent"] for t in tasks}) == len(tasks)
    with BrowserEnv(BrowserSettings(allow_hosts=["127.0.0.1"])) as env:
        env.reset(None)
        proofs = reprove(out, env, BrowserStorageSandbox(lambda: env.session.context))
    assert proofs and all(p.ok for p in proofs), [p for p in proofs if not p.ok]
    assert all(p.path == 1 and p.nothing == 0 and p.start == 0 for p in proofs)


def test_a_task_whose_path_leads_elsewhere_fails_its_proof(shop_run, shop_url):
    out, _, _ = shop_run
    tasks, plans = load_tasks(out)
    task = next(t for t in tasks if t["eval"]["reference_url"])
    wrong = dict(task, eval={**task["eval"], "reference_url": f"{shop_url}/cart.html"})
    with BrowserEnv(BrowserSettings(allow_hosts=["127.0.0.1"])) as env:
        env.reset(None)
        proof = Prover(env, fresh_start(env, None)).prove(wrong, plans[task["task_id"]])
    assert proof.path == 0 and not proof.ok


def test_a_graph_that_saw_every_edge_twice_proposes_no_more_tasks(shop_run):
    out, _, _ = shop_run
    from colorbrowser.explore.state import load_state

    graph = load_state(out).graph
    once, proposed, _ = propose(graph)
    graph.edges = graph.edges + graph.edges  # every edge seen twice
    twice, proposed_twice, _ = propose(graph)
    assert [t.intent for t in twice] == [t.intent for t in once] and proposed_twice == proposed
    assert len({t.intent for t in once}) == len(once)
