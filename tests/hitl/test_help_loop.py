"""Triggers and asking a person inside real episodes (real browser, scripted model replies)."""

from __future__ import annotations

import contextlib
import io
import json
import re

from rich.console import Console

from colorbrowser.agent.trajectory import read_steps
from colorbrowser.hitl.hook import TriggerHook
from colorbrowser.hitl.terminal import TerminalAsker
from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.run.console import KnowledgeConsole
from colorbrowser.run.factory import build_episode

from .helpers import TERMS_TIP, checkout_operator, prompts, scripted, settings, summary

GOAL = "Order the box of green tea"


def person(lines: str) -> tuple[TerminalAsker, io.StringIO]:
    out = io.StringIO()
    return TerminalAsker(Console(file=out, width=120), stream=io.StringIO(lines)), out


def run(settings_, model, env, url, run_dir, **build):
    with contextlib.ExitStack() as stack:
        episode = build_episode(GOAL, url, settings_, stack, run_dir=run_dir, model=model,
                                env=env, **build)
        result = episode.run()
    return episode, result


def test_a_stuck_agent_raises_triggers_that_reach_the_record_and_the_summarizer(
        browser_env, hitl_url, kb_path, tmp_path):
    model = scripted(checkout_operator(tip="(never given)"),
                     summarizer=lambda p: summary("pressed Place order", on_track=True))
    _, result = run(settings(tmp_path, kb_path, memory="summary", max_steps=5), model,
                    browser_env, f"{hitl_url}/order.html", tmp_path / "run")
    assert result.status == "step_limit"
    steps = read_steps(tmp_path / "run")
    kinds = [[t["kind"] for t in s["triggers"]] for s in steps]
    assert kinds[:3] == [[], [], []]
    assert "repeated_action" in kinds[3]
    assert "repeated_action" not in kinds[4]  # cool-down
    # The Summarizer turned the trigger into guidance although the model said on track.
    fourth = prompts(model)[3]
    assert "On track: NO" in fourth and "Guidance: Change approach: the same action" in fourth


def test_a_persons_tip_is_stored_used_at_once_and_found_by_the_next_episode(
        browser_env, hitl_url, kb_path, tmp_path):
    asker, shown = person(f"t\n{TERMS_TIP}\n\n\n")
    model = scripted(checkout_operator())
    cfg = settings(tmp_path, kb_path)
    _, result = run(cfg, model, browser_env, f"{hitl_url}/order.html", tmp_path / "one",
                    asker=asker)
    assert result.status == "done" and result.answer == "order placed"
    steps = read_steps(tmp_path / "one")
    # Asked before step 4, after three presses of the same button.
    assert "repeated_action" in {t["kind"] for t in steps[3]["triggers"]}
    assert TERMS_TIP not in prompts(model)[2]
    assert TERMS_TIP in prompts(model)[3]  # the very next Operator prompt
    assert steps[3]["action"].startswith("check(")
    help_ = steps[3]["help"]
    assert help_["answer"] == "tip" and help_["stored"] is True
    screenshot = str(tmp_path / "one" / "screenshots" / "0004.png")
    assert screenshot in shown.getvalue().replace("\n", "")
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        tip = kb.get(help_["tip_id"])
        assert tip.text == TERMS_TIP and tip.source == "person"
        assert tip.site == hitl_url.split("//")[1].split("/")[0]
        assert tip.url_patterns == [f"{hitl_url}/order.html*"]
        assert (tip.stats.retrieved, tip.stats.successes) == (1, 1)

    # A new episode on the same site has it from step 1 and needs nobody.
    again = scripted(checkout_operator())
    _, second = run(cfg, again, browser_env, f"{hitl_url}/order.html", tmp_path / "two")
    assert second.status == "done"
    assert TERMS_TIP in prompts(again)[0]
    assert read_steps(tmp_path / "two")[0]["tip_ids"] == [help_["tip_id"]]
    assert all(not s["triggers"] for s in read_steps(tmp_path / "two"))


DOOR_CODE = "door-code-8812"


def door_vault():
    from colorbrowser.agent.secrets import Secret, Vault

    return Vault({"door": Secret(DOOR_CODE, hosts=("127.0.0.1",))})


def nowhere_in(*paths) -> bool:
    """No file under these folders or files holds the door code, in any letter case."""
    files = [f for p in paths for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()]
    return not any(DOOR_CODE.encode() in f.read_bytes().lower() for f in files)


def test_a_secret_pasted_into_a_tip_is_masked_before_it_is_stored_or_shown(
        browser_env, hitl_url, kb_path, tmp_path):
    asker, _ = person(f"t\n{TERMS_TIP} The door code is {DOOR_CODE}.\n\n\n")
    model = scripted(checkout_operator())
    _, result = run(settings(tmp_path, kb_path), model, browser_env,
                    f"{hitl_url}/order.html", tmp_path / "run", asker=asker, vault=door_vault())
    assert result.status == "done"
    ops = prompts(model)
    assert "The door code is {{secret:door}}." in ops[3]  # the model reads the name
    assert all(DOOR_CODE not in p for p in ops)
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        (tip,) = kb.list()
        assert tip.text == f"{TERMS_TIP} The door code is {{{{secret:door}}}}."
    assert nowhere_in(tmp_path / "run", kb_path.parent)


def test_a_secret_pasted_into_a_hint_is_masked_before_the_model_or_the_trajectory_sees_it(
        browser_env, hitl_url, kb_path, tmp_path):
    hint = f"The terms box must be ticked first; the code is {DOOR_CODE.upper()}"
    asker, _ = person(f"h\n{hint}\n")
    model = scripted(checkout_operator(tip="The terms box must be ticked first"))
    _, result = run(settings(tmp_path, kb_path, max_steps=6), model, browser_env,
                    f"{hitl_url}/order.html", tmp_path / "run", asker=asker, vault=door_vault())
    assert result.status == "done"
    ops = prompts(model)
    assert "ticked first; the code is {{secret:door}}" in ops[3]
    assert all(DOOR_CODE not in p.lower() for p in ops)
    steps = read_steps(tmp_path / "run")
    assert steps[3]["hints"] == ["The terms box must be ticked first; the code is "
                                 "{{secret:door}}"]
    assert nowhere_in(tmp_path / "run")


def test_a_hint_is_shown_once_and_never_stored(browser_env, hitl_url, kb_path, tmp_path):
    hint = "The terms box must be ticked first."
    asker, _ = person(f"h\n{hint}\n")
    model = scripted(checkout_operator(tip=hint))
    _, result = run(settings(tmp_path, kb_path, max_steps=6), model, browser_env,
                    f"{hitl_url}/order.html", tmp_path / "run", asker=asker)
    ops = prompts(model)
    assert "Hint from the person watching" in ops[3] and hint in ops[3]
    assert hint not in ops[4]
    assert result.status == "done"
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        assert kb.list() == []


def test_abort_ends_the_run_as_aborted_with_the_reason(browser_env, hitl_url, kb_path,
                                                       tmp_path):
    asker, _ = person("a\n")
    model = scripted(checkout_operator())
    _, result = run(settings(tmp_path, kb_path), model, browser_env,
                    f"{hitl_url}/order.html", tmp_path / "run", asker=asker)
    assert result.status == "aborted" and result.steps == 3
    assert "stopped by the person at step 4" in result.error
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["status"] == "aborted"


def test_end_of_input_skips_and_the_person_is_not_asked_again(browser_env, hitl_url, kb_path,
                                                               tmp_path):
    asker, shown = person("")
    model = scripted(checkout_operator())
    _, result = run(settings(tmp_path, kb_path, max_steps=9, cooldown=1), model, browser_env,
                    f"{hitl_url}/order.html", tmp_path / "run", asker=asker)
    fired = [s for s in read_steps(tmp_path / "run") if s["triggers"]]
    assert result.status == "step_limit" and len(fired) >= 2
    assert shown.getvalue().count("The agent needs help") == 1


def test_with_frozen_knowledge_a_tip_helps_this_run_but_is_not_stored(
        browser_env, hitl_url, kb_path, tmp_path):
    KnowledgeBase.open(kb_path, embeddings=False).close()
    before = (kb_path.read_bytes(), kb_path.stat().st_mtime_ns)
    asker, shown = person(f"t\n{TERMS_TIP}\n\n\n")
    model = scripted(checkout_operator())
    _, result = run(settings(tmp_path, kb_path, knowledge="frozen"), model, browser_env,
                    f"{hitl_url}/order.html", tmp_path / "run", asker=asker)
    assert result.status == "done" and TERMS_TIP in prompts(model)[3]
    assert read_steps(tmp_path / "run")[3]["help"]["stored"] is False
    assert "used in this run only" in shown.getvalue()
    assert (kb_path.read_bytes(), kb_path.stat().st_mtime_ns) == before


def test_an_error_page_triggers_at_the_first_step(browser_env, hitl_url, kb_path, tmp_path):
    model = scripted(lambda p: '<think>nothing here</think><action>stop("denied")</action>')
    run(settings(tmp_path, kb_path, knowledge="off"), model, browser_env,
        f"{hitl_url}/denied.html", tmp_path / "run")
    (step,) = read_steps(tmp_path / "run")
    assert step["triggers"][0]["kind"] == "error_text"
    assert "Access denied" in step["triggers"][0]["reason"]


def test_the_critic_adds_a_trigger_and_a_broken_critic_is_only_recorded(
        browser_env, hitl_url, kb_path, tmp_path):
    verdicts = iter(['{"verdict": "inconsistent", "reason": "the order was not placed"}',
                     "no idea, sorry"])
    model = scripted(checkout_operator(tip="(never given)"), critic=lambda p: next(verdicts))
    episode, result = run(settings(tmp_path, kb_path, knowledge="off", max_steps=3,
                                   critic_every=1, triggers=False),
                          model, browser_env, f"{hitl_url}/order.html", tmp_path / "run")
    assert result.status == "step_limit"  # a bad critic reply did not end the run
    steps = read_steps(tmp_path / "run")
    assert "critic" not in steps[0]  # nothing to judge before the first action
    assert steps[1]["critic"] == {"verdict": "inconsistent",
                                  "reason": "the order was not placed"}
    assert steps[1]["triggers"] == [{"kind": "critic", "step": 2,
                                     "reason": "critic: the order was not placed"}]
    assert "not a JSON object" in steps[2]["critic"]["error"] and not steps[2]["triggers"]
    critic_prompt = prompts(model, "critic")[0]
    assert "Place the order." in critic_prompt and "click(" in critic_prompt
    hook = next(h for h in episode.hooks if isinstance(h, TriggerHook))
    assert hook.detector is None and hook.critic is not None


def test_the_console_shows_the_tips_in_use(browser_env, hitl_url, kb_path, tmp_path):
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        from colorbrowser.hitl.asking import HelpAnswer

        kb.add(HelpAnswer("tip", text=TERMS_TIP, site=hitl_url.split("/")[2],
                          patterns=[f"{hitl_url}/*"]).tip(id="terms-first"))
    out = io.StringIO()
    model = scripted(checkout_operator())
    run(settings(tmp_path, kb_path), model, browser_env, f"{hitl_url}/order.html",
        tmp_path / "run", hooks=[KnowledgeConsole(Console(file=out, width=120))])
    assert "tips terms-first" in out.getvalue()


def test_on_a_site_served_under_a_stable_name_the_person_scopes_the_tip_to_that_name(
        browser_env, hitl_url, kb_path, tmp_path):
    from colorbrowser.knowledge.aliases import SiteAliases

    aliases = SiteAliases.of({hitl_url: "http://checkout.local/"})
    asker, shown = person(f"t\n{TERMS_TIP}\n\n\n")
    model = scripted(checkout_operator())
    cfg = settings(tmp_path, kb_path)
    _, result = run(cfg, model, browser_env, f"{hitl_url}/order.html", tmp_path / "one",
                    asker=asker, site_aliases=aliases)
    assert result.status == "done"
    assert "http://checkout.local/order.html*" in shown.getvalue()  # the proposed scope
    assert re.search(rf"served at +{re.escape(hitl_url)}/order.html", shown.getvalue())
    assert TERMS_TIP in prompts(model)[3]  # the person's tip applies on the live page at once
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        (tip,) = kb.list()
    assert (tip.site, tip.url_patterns) == ("checkout.local", ["http://checkout.local/order.html*"])
    # Without the alias the stored tip does not match the live address; with it, it does.
    again = scripted(checkout_operator())
    run(cfg, again, browser_env, f"{hitl_url}/order.html", tmp_path / "two",
        site_aliases=aliases)
    assert TERMS_TIP in prompts(again)[0]
    plain = scripted(checkout_operator())
    run(settings(tmp_path, kb_path, max_steps=1), plain, browser_env, f"{hitl_url}/order.html",
        tmp_path / "three")
    assert TERMS_TIP not in prompts(plain)[0]
