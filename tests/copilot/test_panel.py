"""``colorbrowser copilot`` end to end: the command runs in a child process with
scripted model replies (ScriptedEndpoint); the test drives the panel page itself in
Chromium, and a scripted person attaches to the agent's browser over CDP and acts
with real mouse and keyboard input."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from colorbrowser.testing import act

from .cli_helpers import (
    bid_of,
    copilot_running,
    free_port,
    prompts,
    scripted,
    sign_in_as,
)


def sign_in(login, tmp_path, who: str, *args: str, **kwargs):
    """The copilot asked to sign in as ada, with a scripted model that signs in as ``who``."""
    return copilot_running(scripted(sign_in_as(who)), "Sign in as ada", login,
                           tmp_path / "run", *args, **kwargs)


@pytest.fixture
def login(pages_url):
    return f"{pages_url}/agent/login.html"


def open_panel(context, copilot):
    panel = context.new_page()
    panel.goto(copilot.panel_url)
    return panel


def test_every_request_without_the_token_is_refused(login, tmp_path):
    with sign_in(login, tmp_path, "ada", "--countdown", "0") as (_endpoint, copilot):
        for path in ("/", "/events", "/state"):
            assert httpx.get(copilot.base + path).status_code == 403
            assert httpx.get(f"{copilot.base}{path}?token=wrong").status_code == 403
        assert httpx.post(copilot.base + "/command/stop").status_code == 403
        assert httpx.get(copilot.panel_url).status_code == 200
        stopped = httpx.post(f"{copilot.base}/command/stop",
                             headers={"X-Token": copilot.token})
        assert stopped.json()["ok"]
        assert copilot.wait() == 1 and copilot.result()["status"] == "aborted"


def test_the_proposal_runs_when_the_panels_countdown_ends(login, tmp_path, context):
    with sign_in(login, tmp_path, "ada", "--countdown", "1.5") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#goal")).to_have_text("Sign in as ada")
        expect(panel.locator("#action")).to_contain_text("fill(")
        expect(panel.locator("#countdown")).to_contain_text("runs in")
        expect(panel.locator("#thought")).to_have_text("type the name")
        expect(panel.locator("#screen")).to_have_attribute("src", re.compile("^data:image/"))
        assert copilot.wait() == 0
        first = copilot.steps()[0]
        assert first["gate"][0]["by"] == "countdown" and first["gate"][0]["waited_ms"] >= 1400
        expect(panel.locator("#metrics")).to_contain_text("agent_steps")


def test_run_now_and_reject_with_a_reason_from_the_panel(login, tmp_path, context):
    with sign_in(login, tmp_path, "eve", "--countdown", "60") as (endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("'eve'")
        panel.fill("#reason", "the user is ada, not eve")
        panel.click("#reject")
        expect(panel.locator("#action")).to_contain_text("'ada'")
        panel.click("#run")
        expect(panel.locator("#action")).to_contain_text("stop(", timeout=15000)
        panel.click("#run")
        assert copilot.wait() == 0
    steps = copilot.steps()
    assert [(s["executed"], s["gate"][0]["verdict"], s["gate"][0]["by"]) for s in steps] == [
        (False, "reject", "person"), (True, "run", "person"), (True, "run", "person")]
    assert "rejected by person: the user is ada, not eve" in prompts(endpoint)[1]
    assert copilot.result()["copilot"]["rejections"] == 1


def test_an_edit_from_the_panel_runs_without_asking_the_model(login, tmp_path, context):
    with sign_in(login, tmp_path, "eve", "--countdown", "60") as (endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("'eve'")
        asked = len(prompts(endpoint))
        edited = panel.locator("#edit-input").input_value().replace("'eve'", "'ada'")
        panel.fill("#edit-input", edited)
        panel.click("#edit")
        expect(panel.locator("#action")).to_contain_text("stop(")
        assert len(prompts(endpoint)) == asked + 1  # only the next step was asked
        panel.click("#run")
        assert copilot.wait() == 0
    first = copilot.steps()[0]
    assert first["action"] == edited and first["gate"][0]["edited_from"].endswith("'eve')")


def test_pause_a_person_acts_in_the_agents_browser_then_resume(login, tmp_path, context,
                                                               browser):
    port = free_port()
    with sign_in(login, tmp_path, "eve", "--countdown", "60", cdp_port=port) as (endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("'eve'")
        panel.click("#pause")
        expect(panel.locator("#state")).to_have_text("paused")
        # the person: another program attached to the same browser, real input
        person = browser.browser_type.connect_over_cdp(f"http://127.0.0.1:{port}")
        try:
            page = next(p for ctx in person.contexts for p in ctx.pages
                        if p.url.endswith("login.html"))
            page.click("#u")
            page.keyboard.type("adx")
            page.keyboard.press("Backspace")
            page.keyboard.type("a")
            page.wait_for_timeout(200)
        finally:
            person.close()
        panel.click("#resume")
        expect(panel.locator("#steps")).to_contain_text("[person] fill(")
        expect(panel.locator("#action")).to_contain_text("stop(", timeout=15000)
        panel.click("#run")
        assert copilot.wait() == 0
    steps = copilot.steps()
    assert [(s["actor"], s["executed"]) for s in steps] == [
        ("agent", False), ("person", True), ("agent", True)]
    user = steps[1]["target"]["bid"]
    line = f"step 2 (by the person): fill('{user}', 'ada') -> ok"
    assert line in prompts(endpoint)[-1]
    assert line in prompts(endpoint, "summarizer")[-1]
    metrics = copilot.result()["copilot"]
    assert (metrics["human_steps"], metrics["agent_steps"], metrics["interventions"],
            metrics["agent_driven"]) == (1, 1, 1, True)


def test_stop_in_the_panel_ends_the_run_without_running_the_proposal(login, tmp_path,
                                                                      context):
    with sign_in(login, tmp_path, "eve", "--countdown", "60") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("'eve'")
        panel.click("#stop")
        assert copilot.wait() == 1
    assert copilot.result()["status"] == "aborted" and copilot.steps() == []


def test_a_risky_action_waits_past_the_countdown_until_approved(pages_url, tmp_path, context):
    def send_money(text):
        if "money sent" in text:
            return act("sent", "stop('sent')")
        return act("send it", f"click('{bid_of(text, 'button', 'Send money')}')")

    with copilot_running(scripted(send_money), "Send the money", f"{pages_url}/copilot/post.html",
                         tmp_path / "run", "--countdown", "0.3") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#risky")).to_contain_text("POST")
        expect(panel.locator("#countdown")).to_have_text("risky: waiting for your approval")
        panel.wait_for_timeout(1500)  # five countdowns long
        state = httpx.get(f"{copilot.base}/state?token={copilot.token}").json()
        assert not state["proposal"].get("done") and "step" not in state
        ran = httpx.post(f"{copilot.base}/command/run?token={copilot.token}")
        assert ran.json()["ok"]
        assert copilot.wait() == 0
    first = copilot.steps()[0]
    assert first["gate"][0]["by"] == "person" and first["gate"][0]["waited_ms"] >= 1500


def test_a_trigger_question_is_answered_in_the_panel_and_the_hint_reaches_the_operator(
        pages_url, tmp_path, context):
    hint = "Open Checkout instead: the account page is not needed."

    def operator(text):
        if hint in text:
            return act("the person says so", "stop('understood')")
        return act("look", "scroll(0, 100)")

    with copilot_running(scripted(operator), "Buy tea", f"{pages_url}/hitl/denied.html",
                         tmp_path / "run", "--countdown", "0.2") as (endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#question")).to_be_visible(timeout=15000)
        expect(panel.locator("#question-text")).to_contain_text("denied")
        panel.fill("#answer-text", hint)
        panel.click("#answer-hint")
        expect(panel.locator("#question")).to_be_hidden()
        assert copilot.wait() == 0
    assert hint in prompts(endpoint)[-1]


def test_a_tip_from_the_panel_is_stored_and_the_outcome_is_set_after_the_end(
        login, tmp_path, context):
    from colorbrowser.knowledge.store import KnowledgeBase

    config = tmp_path / "config.toml"
    config.write_text("[agent]\ntips_embeddings = false\n")
    kb = tmp_path / "kb.db"
    with sign_in(login, tmp_path, "ada", "--countdown", "60", "--knowledge", "on", "--kb", str(kb),
                 "--config", str(config), "--linger", "30") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("fill(")
        expect(panel.locator("#tip-site")).to_have_value(re.compile(r"^127\.0\.0\.1:\d+$"))
        site = panel.locator("#tip-site").input_value()
        panel.fill("#tip-text", "On the login page, the user name field is called User.")
        panel.click("#tip-save")
        expect(panel.locator("#notice")).to_contain_text(f"stored for {site}")
        panel.click("#run")
        expect(panel.locator("#action")).to_contain_text("stop(")
        panel.click("#run")
        expect(panel.locator("#end")).to_be_visible()
        panel.select_option("#outcome", "failure")
        panel.click("#outcome-save")
        expect(panel.locator("#notice")).to_contain_text("outcome set: failure")
        panel.click("#stop")  # closes the lingering panel
        assert copilot.wait() == 0
    metrics = copilot.result()["copilot"]
    assert (metrics["outcome"], metrics["outcome_by"]) == ("failure", "person")
    with KnowledgeBase.open(kb, embeddings=False) as store:
        [tip] = store.list()
    assert tip.site == site and "called User" in tip.text


def test_clicking_and_typing_on_the_panels_live_view_acts_in_the_page(login, tmp_path,
                                                                      context):
    with sign_in(login, tmp_path, "eve", "--countdown", "60") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("'eve'")
        expect(panel.locator("#target-box")).to_be_visible()
        box = panel.locator("#target-box").bounding_box()
        panel.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(panel.locator("#state")).to_have_text("paused")  # the person took over
        panel.fill("#type-text", "ada")
        panel.click("#type-send")
        expect(panel.locator("#notice")).to_have_text("type sent")
        panel.click("#resume")
        expect(panel.locator("#action")).to_contain_text("stop(", timeout=15000)
        panel.click("#run")
        assert copilot.wait() == 0
    steps = copilot.steps()
    assert [(s["actor"], s["action"].split("(")[0]) for s in steps] == [
        ("agent", "fill"), ("person", "fill"), ("agent", "stop")]
    assert steps[1]["action"].endswith("'ada')") and steps[1]["target"]["name"] == "User"


def test_user_mistakes_are_one_line_errors(capsys):
    from colorbrowser.testing import run_cli

    assert run_cli("copilot", " ", "--url", "http://127.0.0.1:9/") == 2
    assert capsys.readouterr().err.strip() == \
        "error: the goal is empty; say what the agent should do"
    assert run_cli("copilot", "Do it", "--url", "http://127.0.0.1:9/", "--countdown", "-1") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "--countdown" in err and len(err.splitlines()) == 1
    assert run_cli("copilot", "Do it", "--url", "file:///etc/passwd") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --url") and len(err.splitlines()) == 1
    # copilot has no --allow-file-url, so the error says what does work instead.
    assert "--allow-file-url" not in err and "http://" in err
    assert run_cli("copilot", "Do it", "--url", "file:///tmp/x.html", "--allow-file-url") == 2


def test_a_corrected_run_is_kept_as_a_workflow_from_the_panel_at_the_end(
        login, tmp_path, context):
    from colorbrowser.knowledge.store import KnowledgeBase

    config = tmp_path / "config.toml"
    config.write_text("[agent]\ntips_embeddings = false\n")
    kb = tmp_path / "kb.db"
    def types_eve(text: str) -> str:  # stops with no answer: signing in asks for none
        reply = sign_in_as("eve")(text)
        return reply.replace("stop('ada is typed')", "stop()")

    with copilot_running(scripted(types_eve), "Sign in as ada", login, tmp_path / "run",
                         "--countdown", "60", "--knowledge", "on", "--kb", str(kb),
                         "--config", str(config), "--linger", "30") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("'eve'", timeout=20000)
        expect(panel.locator("#keep")).to_be_hidden()  # nothing to keep while it runs
        panel.fill("#edit-input", panel.locator("#edit-input").input_value().replace(
            "'eve'", "'ada'"))
        panel.click("#edit")  # the person's correction
        expect(panel.locator("#action")).to_contain_text("stop(")
        panel.click("#run")
        expect(panel.locator("#end")).to_be_visible()
        panel.click("#keep")
        expect(panel.locator("#notice")).to_contain_text("learned from your corrected run")
        panel.click("#keep")
        expect(panel.locator("#notice")).to_contain_text("already kept as workflow")
        panel.click("#stop")
        assert copilot.wait() == 0
    with KnowledgeBase.open(kb, embeddings=False) as store:
        [flow] = store.list_workflows()
    assert flow.provenance.learned_by == "person"
    assert flow.provenance.run == str(tmp_path / "run")
    assert flow.params == {next(iter(flow.params)): "ada"}
    name = next(iter(flow.params))
    assert flow.goal_pattern == f"Sign in as {{{{{name}}}}}"
    fills = [s.step for s in flow.steps if isinstance(s.step, dict) and "fill" in s.step]
    # the person's value, as the goal's parameter; the rejected 'eve' is nowhere
    assert fills == [{"fill": {"role": "textbox", "name": "User"}, "value": f"{{{{{name}}}}}"}]
    assert "eve" not in flow.model_dump_json()
    # Next time, the same model would type eve again; the kept workflow proposes ada.
    with copilot_running(scripted(types_eve), "Sign in as ada", login, tmp_path / "again",
                         "--countdown", "60", "--knowledge", "on", "--kb", str(kb),
                         "--config", str(config)) as (endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("goto(", timeout=20000)
        panel.click("#run")  # the workflow starts where the kept run started
        expect(panel.locator("#action")).to_contain_text("'ada'")
        panel.click("#run")
        expect(panel.locator("#action")).to_contain_text("stop(")
        panel.click("#run")
        assert copilot.wait() == 0
        assert prompts(endpoint) == []  # no model call: the workflow ran every step
    assert copilot.result()["copilot"]["rejections"] == 0
    assert any(s.get("workflow") for s in copilot.steps())


def test_the_keep_button_is_not_offered_when_knowledge_is_off(login, tmp_path, context):
    with sign_in(login, tmp_path, "ada", "--countdown", "60", "--linger", "30") as (
            _endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("fill(", timeout=20000)
        panel.click("#run")
        expect(panel.locator("#action")).to_contain_text("stop(")
        panel.click("#run")
        expect(panel.locator("#end")).to_be_visible()
        expect(panel.locator("#keep")).to_be_hidden()
        refused = httpx.post(f"{copilot.base}/command/keep", headers={"X-Token": copilot.token})
        assert refused.json()["ok"]  # queued; the panel says why nothing was kept
        expect(panel.locator("#notice")).to_contain_text("workflow not kept: knowledge is off")
        panel.click("#stop")
        assert copilot.wait() == 0


def test_with_learn_workflows_on_success_set_in_the_panel_keeps_the_run(
        login, tmp_path, context):
    from colorbrowser.knowledge.store import KnowledgeBase

    config = tmp_path / "config.toml"
    config.write_text("[agent]\ntips_embeddings = false\nlearn_workflows = true\n")
    kb = tmp_path / "kb.db"

    def types_ada(text: str) -> str:
        return sign_in_as("ada")(text).replace("stop('ada is typed')", "stop()")

    with copilot_running(scripted(types_ada), "Sign in as ada", login, tmp_path / "run",
                         "--countdown", "60", "--knowledge", "on", "--kb", str(kb),
                         "--config", str(config), "--linger", "30") as (_endpoint, copilot):
        panel = open_panel(context, copilot)
        expect(panel.locator("#action")).to_contain_text("fill(", timeout=20000)
        panel.click("#run")
        expect(panel.locator("#action")).to_contain_text("stop(")
        panel.click("#run")
        expect(panel.locator("#end")).to_be_visible()
        panel.select_option("#outcome", "success")
        panel.click("#outcome-save")
        expect(panel.locator("#notice")).to_contain_text("learned from this run")
        panel.click("#stop")
        assert copilot.wait() == 0
    with KnowledgeBase.open(kb, embeddings=False) as store:
        [flow] = store.list_workflows()
    assert flow.provenance.learned_by == "agent"  # the person approved, corrected nothing
    assert (tmp_path / "run" / "approval.json").is_file()
