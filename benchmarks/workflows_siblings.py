"""Held-out siblings: each family's first instance teaches (the oracle's run recorded,
learned from, proved), every other instance runs with workflows and, on a sample, with
the offline Operator alone."""

from __future__ import annotations

from collections import defaultdict

from workflows_bare import bare_timing
from workflows_bench import (
    Bench,
    Family,
    Outcome,
    family_key,
    fill_from_runner,
    fresh_kb,
    pct,
    per_task,
    run_episode,
    runner_of,
)
from workflows_timing import EpisodeClock


def record_teachers(bench: Bench, suite, env, fams: list[Family], progress) -> None:
    """The oracle's run of each family's first instance, recorded, then learned from."""
    from colorbrowser.arena.plans import load_plans
    from colorbrowser.arena.suite import plan_files
    from colorbrowser.evaluation.replay import ReplayOperator
    from colorbrowser.workflows.learn import learn

    plans = load_plans(plan_files())
    settings = bench.settings(workflows="off", knowledge="off")
    job = progress.add_task("record + learn", total=len(fams))
    for family in fams:
        key = family_key(family)
        run_dir = bench.out / "recorded" / family.teacher
        run, _ = run_episode(bench, suite, env, settings, "arena:" + family.teacher, model=None,
                             decider=ReplayOperator(plans[family.teacher].encode()),
                             run_dir=run_dir)
        if not run.success:
            bench.not_learned[key] = f"the oracle's run failed ({run.error or run.status})"
        else:
            try:
                bench.learned[key] = learn(run_dir, learned_by="oracle")
            except Exception as exc:  # a refusal is a figure, not a crash
                bench.not_learned[key] = f"{type(exc).__name__}: {exc}"
        progress.advance(job)


def store_and_prove(bench: Bench, suite, env, fams: list[Family], progress) -> None:
    """Every learned workflow stored, then kept only if it proves itself: run with its own
    values from the start on a fresh reset, without a model, it passes the evaluator."""
    from colorbrowser.evaluation.replay import NoModel
    from colorbrowser.knowledge.store import KnowledgeBase

    pristine = bench.out / "kb-learned.sqlite"
    kb = KnowledgeBase.open(pristine, embeddings=False)
    try:
        for key, flow in list(bench.learned.items()):
            bench.learned[key] = kb.add_workflow(flow)
    finally:
        kb.close()
    job = progress.add_task("prove", total=len(bench.learned))
    on = bench.settings(workflows="on")
    unproved = []
    for family in fams:
        key = family_key(family)
        if key not in bench.learned:
            continue
        with fresh_kb(bench) as kb:
            run, _ = run_episode(bench, suite, env, on, "arena:" + family.teacher, model=NoModel(),
                                 kb=kb, run_dir=bench.out / "proof" / family.teacher)
        if not (run.success and runner_of(run) is not None):
            why = "did not run" if runner_of(run) is None else (run.error or "failed")
            bench.not_learned[key] = f"not proved: replayed on {family.teacher}: {why}"
            unproved.append(bench.learned.pop(key))
        progress.advance(job)
    if unproved:
        kb = KnowledgeBase.open(pristine, embeddings=False)
        try:
            for flow in unproved:
                kb.remove_workflow(flow.id)
        finally:
            kb.close()


def heldout(bench: Bench, suite, env, model, fams: list[Family], progress) -> None:
    jobs = [(f, t) for f in fams if family_key(f) in bench.learned for t in f.heldout]
    sample = {t for f in fams for t in f.heldout[:bench.args.operator_sample]
              if family_key(f) in bench.learned}
    job = progress.add_task("held-out siblings", total=len(jobs) + (
        0 if bench.args.no_model else len(sample)))
    on = bench.settings(workflows="on")
    off = bench.settings(workflows="off", knowledge="off", max_steps=bench.args.max_steps)
    for family, task in jobs:
        clock = EpisodeClock()
        with fresh_kb(bench) as kb:
            run, seconds = run_episode(bench, suite, env, on, "arena:" + task, model=model, kb=kb,
                                       run_dir=bench.out / "workflow" / task, clock=clock)
        out = Outcome(task, family_key(family), "workflow", run.success, run.usage.calls,
                      run.usage.prompt_tokens, seconds)
        fill_from_runner(out, run)
        bench.outcomes.append(out)
        progress.advance(job)
        if out.success and out.workflow_ran and out.handed == 0:
            bare_timing(bench, suite, env, family, task, clock, run.answer)
        if task in sample and not bench.args.no_model:
            run, seconds = run_episode(bench, suite, env, off, "arena:" + task, model=model,
                                       run_dir=bench.out / "operator" / task)
            bench.outcomes.append(Outcome(task, family_key(family), "operator",
                                          run.success, run.usage.calls,
                                          run.usage.prompt_tokens, seconds))
            progress.advance(job)


def siblings_report(bench: Bench, fams: list[Family], say) -> tuple[int, int, float | None]:
    """What was learned and the held-out table; returns the successes, the held-out
    tasks and the share of model calls saved (None when the Operator arm did not run)."""
    outcomes = bench.outcomes
    heldout_tasks = sum(len(f.heldout) for f in fams)
    say(f"families: {len(fams)} ({sum(len(f.tasks) for f in fams)} tasks, {heldout_tasks} "
        f"held out); workflows learned: {len(bench.learned)}")
    for key, why in sorted(bench.not_learned.items()):
        say(f"  not learned {key}: {why}")
    wf = [o for o in outcomes if o.arm == "workflow"]
    op = [o for o in outcomes if o.arm == "operator"]
    op_tasks = {o.task for o in op}
    wf_same = [o for o in wf if o.task in op_tasks]
    say("")
    say("held-out siblings, per task (mean):")
    say(f"{'arm':<34} {'tasks':>5} {'success':>8} {'calls':>6} {'prompt tok':>10} "
        f"{'seconds':>8}")
    for name, rows in (("offline Operator alone", op),
                       ("workflows + Operator (same tasks)", wf_same),
                       ("workflows + Operator (all held out)", wf)):
        s = per_task(rows)
        say(f"{name:<34} {s['n']:>5} {pct(s['success'], s['n']):>8} {s['calls']:>6.1f} "
            f"{s['tokens']:>10.0f} {s['seconds']:>8.1f}")
    ran = [o for o in wf if o.workflow_ran]
    alone = [o for o in ran if o.handed == 0]
    say(f"workflow ran on {len(ran)}/{len(wf)} held-out tasks; without the Operator on "
        f"{len(alone)}; solved {sum(o.success for o in ran)}")
    success = sum(o.success for o in wf)
    say(f"held-out success over all {heldout_tasks} held-out tasks: {success} "
        f"({pct(success, heldout_tasks)}; a family that taught nothing counts as failed)")
    by_group: dict[str, list[Outcome]] = defaultdict(list)
    for o in wf:
        by_group[o.family.split(":")[0]].append(o)
    say("by site: " + ", ".join(f"{g} {sum(o.success for o in rows)}/{len(rows)}"
                                for g, rows in sorted(by_group.items())))
    op_calls = sum(o.calls for o in op)
    wf_calls = sum(o.calls for o in wf_same)
    saved = (1 - wf_calls / op_calls) if op_calls else None
    say(f"model calls on the tasks both arms ran: Operator {op_calls}, workflows {wf_calls}")
    return success, heldout_tasks, saved
