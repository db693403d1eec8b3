"""What an exploration of the demo shop leaves behind: findings proposed as tips for
review (source exploration), graph.html a person can open, a chat-format training set,
and synthesised WebArena tasks that passed their proof and pass it again later."""

from __future__ import annotations

import json

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.explore.sandbox import BrowserStorageSandbox
from colorbrowser.explore.synth import propose
from colorbrowser.explore.validate import Prover, fresh_start, load_tasks, reprove
from colorbrowser.hitl.asking import HelpAnswer
from colorbrowser.hitl.review import review
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.llm.prompts import outside_fences

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


def test_dataset_has_one_chat_line_per_step_with_outcome_and_screenshot(shop_run):
    out, _, _ = shop_run
    lines = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
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
