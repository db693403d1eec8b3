"""The commands as a person runs them: real `colorbrowser` processes, a real browser, a
scripted model endpoint over HTTP, and a person scripted on stdin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.testing import act

from .fake_model import Chat, fake_model, summary_json
from .helpers import TERMS_TIP

SRC = Path(__file__).resolve().parents[2] / "src"
GOAL = "Order the box of green tea"


def checkout(chat: Chat) -> str:
    """Operator for the tea checkout; presses Place order until a tip says otherwise."""
    if chat.role == "summarizer":
        return summary_json("on the checkout page")
    if chat.role == "critic":
        return '{"verdict": "consistent", "reason": "fine"}'
    prompt = chat.user
    if "Thank you" in prompt:
        return act("The order went through.", "stop('order placed')")
    box = re.search(r"\[(\w+)\] checkbox 'I agree to the terms' (\w+)", prompt)
    if TERMS_TIP in prompt and box.group(2) == "unchecked":
        return act("The tip says to tick the terms first.", f"check('{box.group(1)}')")
    button = re.search(r"\[(\w+)\] button 'Place order'", prompt).group(1)
    return act("Place the order.", f"click('{button}')")


@pytest.fixture
def cli(tmp_path):
    config = tmp_path / "cfg" / "colorbrowser" / "config.toml"
    config.parent.mkdir(parents=True)
    # The embedding stage loads torch in every process (tens of seconds on two busy
    # cores); it is covered in-process, so these runs use URL and keyword retrieval.
    config.write_text("[agent]\ntips_embeddings = false\n")

    def run(*args: str, stdin: str = "", model=None, timeout: float = 240):
        env = {**os.environ, "PYTHONPATH": str(SRC), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
               "XDG_DATA_HOME": str(tmp_path / "data"), "COLORBROWSER_RUNS": str(tmp_path / "runs"),
               "COLORBROWSER_CACHE": str(tmp_path / "cache"), "COLUMNS": "300"}
        env.pop("COLORBROWSER_KB", None)
        flags = []
        if model is not None:
            env["FAKE_MODEL_KEY"] = model.token
            flags = ["--base-url", model.url, "--model", "fake", "--api-key-env", "FAKE_MODEL_KEY"]
        return subprocess.run(
            [sys.executable, "-c", "from colorbrowser.cli import main; main()", *args, *flags],
            input=stdin, capture_output=True, text=True, timeout=timeout, env=env)
    return run


def operator_prompts(model) -> list[str]:
    return [c.user for c in model.of("operator")]


def test_interactive_run_stores_a_tip_uses_it_next_step_and_the_next_run_starts_with_it(
        cli, hitl_url, tmp_path):
    kb = tmp_path / "kb.db"
    with fake_model(checkout) as model:
        first = cli("run", GOAL, "--url", f"{hitl_url}/order.html", "--kb", str(kb),
                    "--interactive", "--max-steps", "8", "--out", str(tmp_path / "one"),
                    "--json", model=model, stdin=f"t\n{TERMS_TIP}\n\n\n")
        assert first.returncode == 0, first.stderr
        result = json.loads(first.stdout)
        assert result["status"] == "done" and result["answer"] == "order placed"
        assert "The agent needs help" in first.stderr and "same action" in first.stderr
        ops = operator_prompts(model)
        assert TERMS_TIP not in ops[2] and TERMS_TIP in ops[3]  # injected at once
        assert model.of("summarizer")  # the default memory ran too
        with KnowledgeBase.open(kb, embeddings=False) as store:
            (tip,) = store.list()
        assert tip.text == TERMS_TIP and tip.url_patterns == [f"{hitl_url}/order.html*"]

        model.chats.clear()
        second = cli("run", GOAL, "--url", f"{hitl_url}/order.html", "--kb", str(kb),
                     "--max-steps", "8", "--out", str(tmp_path / "two"), "--json", model=model)
        assert second.returncode == 0, second.stderr
        assert TERMS_TIP in operator_prompts(model)[0]  # retrieved at step 1
        assert "The agent needs help" not in second.stderr
        assert f"tips {tip.id}" in second.stderr


def test_knowledge_off_and_frozen_from_the_command_line(cli, hitl_url, tmp_path):
    kb = tmp_path / "kb.db"
    missing = cli("run", GOAL, "--url", f"{hitl_url}/order.html", "--kb", str(kb),
                  "--knowledge", "frozen")
    assert missing.returncode == 2
    assert missing.stderr == f"error: no knowledge base at {kb}\n"
    with fake_model(checkout) as model:
        off = cli("run", GOAL, "--url", f"{hitl_url}/order.html", "--kb", str(kb),
                  "--knowledge", "off", "--max-steps", "1", model=model)
        assert off.returncode == 1, off.stderr  # step limit, cleanly
        assert not kb.exists()
        assert "Site tips" not in operator_prompts(model)[0]
    bad = cli("run", GOAL, "--url", f"{hitl_url}/order.html", "--knowledge", "sometimes")
    assert bad.returncode == 2 and "--knowledge" in bad.stderr and "Traceback" not in bad.stderr


def test_adapt_queues_failures_review_turns_them_into_tips_and_adapt_then_succeeds(
        cli, hitl_url, tmp_path):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(f"""\
tasks:
  - id: order-tea
    goal: {GOAL}
    start_url: {hitl_url}/order.html
    eval:
      reference_url: {hitl_url}/done.html?order=1042
""")
    kb = tmp_path / "kb.db"
    with fake_model(checkout) as model:
        first = cli("adapt", str(tasks), "--kb", str(kb), "--max-steps", "5",
                    "--out", str(tmp_path / "adapt1"), "--json", model=model)
        assert first.returncode == 0, first.stderr
        (outcome,) = json.loads(first.stdout)
        assert outcome["task_id"] == "order-tea" and not outcome["success"]
        with KnowledgeBase.open(kb, embeddings=False) as store:
            items = store.queue_list("open")
        assert [i.id for i in items] == outcome["queued"]
        reasons = [i.reason for i in items]
        # Each kind of trigger once, then the failure itself.
        assert "same action" in reasons[0] and reasons[-1].startswith("task failed")
        assert len(items) == len(set(reasons)) >= 2
        for item in items:
            assert item.goal == GOAL and item.url.startswith(f"{hitl_url}/order.html")
            assert Path(item.screenshot_path).is_file() and Path(item.run_dir).is_dir()
            assert item.last_actions and item.summary

        listed = cli("review", "--kb", str(kb), "--list")
        assert listed.returncode == 0 and len(listed.stdout.splitlines()) == len(items)

        # The person writes a tip for the first item (scope as proposed), skips the others.
        review = cli("review", "--kb", str(kb),
                     stdin=f"t\n{TERMS_TIP}\n\n\n" + "s\n" * (len(items) - 1))
        assert review.returncode == 0, review.stderr
        assert (f"1 resolved with a tip, {len(items) - 1} skipped, 0 still open"
                in review.stderr)
        assert "same action" in review.stderr and items[0].screenshot_path in review.stderr
        with KnowledgeBase.open(kb, embeddings=False) as store:
            resolved = store.queue_get(items[0].id)
            assert resolved.status == "resolved"
            assert store.get(resolved.tip_id).text == TERMS_TIP
            assert all(store.queue_get(i.id).status == "skipped" for i in items[1:])
            assert store.queue_list("open") == []

        second = cli("adapt", str(tasks), "--kb", str(kb), "--max-steps", "5",
                     "--out", str(tmp_path / "adapt2"), "--json", model=model)
        (outcome,) = json.loads(second.stdout)
        assert outcome["success"] and outcome["queued"] == []
        with KnowledgeBase.open(kb, embeddings=False) as store:
            assert store.get(resolved.tip_id).stats.successes == 1
        assert (tmp_path / "adapt2" / "order-tea" / "validation.json").is_file()


def test_review_quits_and_leaves_the_rest_open_and_an_empty_queue_says_so(cli, tmp_path):
    from colorbrowser.knowledge import QueueItem

    kb = tmp_path / "kb.db"
    with KnowledgeBase.open(kb, embeddings=False) as store:
        for n in range(2):
            store.queue_add(QueueItem(site="shop.local", url=f"http://shop.local/p/{n}",
                                      goal="buy", reason=f"reason {n}"))
    out = cli("review", "--kb", str(kb), stdin="q\n")
    assert out.returncode == 0 and "0 resolved with a tip, 0 skipped, 2 still open" in out.stderr
    eof = cli("review", "--kb", str(kb), stdin="t\n")  # input ends mid-answer: nothing lost
    assert "2 still open" in eof.stderr
    bad = cli("review", "--kb", str(kb), stdin="t\n\nThe cart needs a login.\n\nre:(\n\n\ns\n")
    assert "error: the tip is empty" in bad.stderr and "error: invalid regex" in bad.stderr
    assert "1 resolved with a tip, 1 skipped, 0 still open" in bad.stderr
    assert "the review queue is empty" in cli("review", "--kb", str(kb)).stderr
    none = cli("review", "--kb", str(tmp_path / "nope.db"))
    assert none.returncode == 2 and none.stderr.startswith("error: no knowledge base at")


def test_a_secret_pasted_into_a_review_tip_is_stored_as_its_placeholder(cli, tmp_path,
                                                                        monkeypatch):
    from colorbrowser.knowledge import QueueItem

    password = "hunter2-long"
    config = tmp_path / "cfg" / "colorbrowser" / "config.toml"  # the person's own config
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[secrets.shop_password]\nenv = "SHOP_PASSWORD"\n'
                      'hosts = ["shop.local"]\n')
    monkeypatch.setenv("SHOP_PASSWORD", password)
    kb = tmp_path / "kb.db"
    with KnowledgeBase.open(kb, embeddings=False) as store:
        store.queue_add(QueueItem(site="shop.local", url="http://shop.local/login",
                                  goal="sign in", reason="task failed"))
    out = cli("review", "--kb", str(kb), stdin=f"t\nSign in as ann, password {password}.\n\n\n")
    assert out.returncode == 0 and "1 resolved with a tip" in out.stderr, out.stderr
    with KnowledgeBase.open(kb, embeddings=False) as store:
        (tip,) = store.list()
        assert tip.text == "Sign in as ann, password {{secret:shop_password}}."
    assert not any(password.encode() in f.read_bytes() for f in tmp_path.glob("kb.db*"))


def test_demo_loads_the_shop_tips_at_the_served_address_and_uses_them(cli, tmp_path):
    def shopper(chat: Chat) -> str:
        if chat.role != "operator":
            return summary_json("browsing the shop")
        prompt = chat.user
        if "Title: Wool hiking socks" in prompt:
            return act("The price is on the page.", "stop('$14.50')")
        if "Search results" in prompt:
            link = re.search(r"\[(\w+)\] link 'Wool hiking socks'", prompt).group(1)
            return act("Open it.", f"click('{link}')")
        template = re.search(r"demo-search: (\S+)\{query\}", prompt).group(1)
        return act("Use the search shortcut.", f"goto('{template}wool hiking')")

    with fake_model(shopper) as model:
        done = cli("demo", "--max-steps", "5", "--out", str(tmp_path / "demo"), model=model)
        assert done.returncode == 0, done.stderr
        ops = operator_prompts(model)
    served = re.search(r"demo shop (http://127\.0\.0\.1:\d+/\S+)/index\.html", done.stderr)
    assert served, done.stderr
    # Tip scopes and the shortcut template now point at the served shop (port and token).
    assert f"demo-search: {served.group(1)}/search.html?q={{query}}" in ops[0]
    assert "choose a size in the Size box" not in ops[0]
    assert "choose a size in the Size box" in ops[-1]  # on the product page
    assert "shop tips 2 loaded" in done.stderr and "shortcut used demo-search" in done.stderr
    assert "$14.50" in done.stderr


MINIWOB_TIP = "On the click-test page the task is done by clicking the Click Me! button."


def test_a_tip_written_in_review_for_miniwob_is_found_again_at_the_next_runs_new_address(
        cli, tmp_path):
    """MiniWoB is served at a new port and token path every run; tips name it miniwob.local."""
    def operator(chat: Chat) -> str:
        if chat.role != "operator":
            return summary_json("on the task page")
        if MINIWOB_TIP not in chat.user:
            return act("I do not know what is wanted.", "stop('unsure')")
        button = re.search(r"\[(\w+)\] button 'Click Me!'", chat.user).group(1)
        return act("The tip says to click it.", f"click('{button}')")

    kb = tmp_path / "kb.db"
    with fake_model(operator) as model:
        first = cli("adapt", "miniwob", "--tasks", "click-test", "--kb", str(kb),
                    "--max-steps", "3", "--out", str(tmp_path / "adapt1"), "--json", model=model)
        assert first.returncode == 0, first.stderr
        (outcome,) = json.loads(first.stdout)
        assert not outcome["success"] and outcome["queued"]
        with KnowledgeBase.open(kb, embeddings=False) as store:
            (item,) = store.queue_list("open")
        assert item.site == "miniwob.local"
        assert item.url == "http://miniwob.local/miniwob/click-test.html"
        served_first = re.search(r"http://127\.0\.0\.1:\d+/[^/\s']+/miniwob/",
                                 operator_prompts(model)[0]).group(0)

        review = cli("review", "--kb", str(kb), stdin=f"t\n{MINIWOB_TIP}\n\n\n")
        assert review.returncode == 0 and "1 resolved with a tip" in review.stderr, review.stderr
        with KnowledgeBase.open(kb, embeddings=False) as store:
            tip = store.get(store.queue_get(item.id).tip_id)
        assert tip.site == "miniwob.local"
        assert tip.url_patterns == ["http://miniwob.local/miniwob/click-test.html*"]

        second = cli("adapt", "miniwob", "--tasks", "click-test", "--kb", str(kb),
                     "--max-steps", "3", "--out", str(tmp_path / "adapt2"), "--json", model=model)
        (outcome,) = json.loads(second.stdout)
        assert outcome["success"] and outcome["queued"] == [], second.stderr
        assert served_first not in operator_prompts(model)[-1]  # a new port and token

        # The evaluation harness finds it too, from a frozen store in a worker process.
        frozen = cli("eval", "miniwob", "--tasks", "click-test", "--knowledge", "frozen",
                     "--kb", str(kb), "--max-steps", "3", "--workers", "1",
                     "--out", str(tmp_path / "study"), model=model)
        assert frozen.returncode == 0, frozen.stderr
    (record,) = [json.loads(line) for line in
                 (tmp_path / "study" / "results.jsonl").read_text().splitlines()]
    assert record["success"], record
    with KnowledgeBase.open(kb, embeddings=False) as store:
        assert store.get(tip.id).stats.successes == 1  # from the adapt run; frozen wrote nothing
