"""Learning a workflow from a run folder, without a model.

Only a run that proved itself may teach: the verifier's verdict ``verified``, the
task's own evaluator (``validation.json`` of an evaluation or oracle run), a person's
approval (``approval.json``, written by the copilot panel with ``approve``), or a proof
the caller holds (the explorer's proved tasks). From that run it keeps the steps that
took effect (element steps name their target by role and name, with the label,
section heading and row it sat in), turns the goal's values that the steps used into
parameters and the goal into a pattern over them, and records where the answer was
read, so that a sibling task reads its own value there. The stop itself is not a step:
the runner ends with ``stop(read_answer(...))``.

A run folder is data someone may send: every file is read through the capped readers,
and the workflow built from it goes through the same checks as an imported one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from colorbrowser.actions import ACTIONS, parse_action
from colorbrowser.agent.trajectory import (
    MASK,
    check_own_files,
    load_steps,
    write_json_atomic,
)
from colorbrowser.datafile import load_json
from colorbrowser.errors import ActionParseError, UserError
from colorbrowser.knowledge.patterns import hide_userinfo, host_matches_site, url_host
from colorbrowser.knowledge.workflow import (
    AnswerSource,
    LearnedBy,
    Provenance,
    Spelling,
    Surroundings,
    Workflow,
    WorkflowStep,
)
from colorbrowser.knowledge.workflow_store import check
from colorbrowser.steps import Step
from colorbrowser.workflows import (
    addresses,
    dates,
    edits,
    forms,
    names,
    page,
    reads,
    sites,
    spelling,
    totals,
    values,
)
from colorbrowser.workflows.instantiate import answer_candidates, fill_text

APPROVAL_FILE = "approval.json"
NO_EFFECT = {"scroll", "take_note", "calculate", "stop"}
_JSON_LIMIT = 4 * 1024 * 1024


def approve(run_dir: str | Path, author: str | None = None) -> None:
    """A person's word that this run did what they wanted (the copilot panel's "keep
    as workflow"): it may teach a workflow."""
    write_json_atomic(Path(run_dir) / APPROVAL_FILE, {"approved": True, "author": author})


def _read(run_dir: Path, name: str) -> dict[str, Any]:
    path = run_dir / name
    if not path.is_file():
        return {}
    data = load_json(path, name, limit=_JSON_LIMIT)
    return data if isinstance(data, dict) else {}


def _evidence(run_dir: Path, result: dict, proof: str | None) -> str:
    """Why this run may teach, or UserError."""
    if proof:
        return proof
    if result.get("verdict") == "verified":
        return "verified"
    validation = _read(run_dir, "validation.json")
    if validation.get("success") is True:
        return "evaluator"
    if _read(run_dir, APPROVAL_FILE).get("approved") is True:
        return "person"
    verdict = result.get("verdict") or "no verdict"
    raise UserError(f"run {run_dir} is not proved ({verdict}): only a verified run, one its "
                    "task's evaluator passed, or one a person approved may teach a workflow")


def _learned_by(meta: dict, steps: list[Step], evidence: str) -> LearnedBy:
    if evidence == "person":
        return "person"
    if meta.get("model") == "replay":
        return "replay"
    acting = [s.actor for s in steps if s.action]
    if acting and acting.count("person") * 2 >= len(acting):
        return "person"
    return "agent"


def learn(run_dir: str | Path, *, learned_by: LearnedBy | None = None,
          author: str | None = None, goal: str | None = None,
          proof: str | None = None) -> Workflow:
    """A workflow from a finished, proved run folder (not stored: ``kb.add_workflow``).

    ``goal`` overrides the recorded goal; ``proof`` is the caller's own reason to trust
    an otherwise unproved run (e.g. "explorer": the explorer proved this task), and
    ``learned_by`` says who did the run (inferred when None). Raises UserError."""
    run_dir = Path(run_dir)
    if not (run_dir / "steps.jsonl").is_file():
        raise UserError(f"{run_dir} is not a run folder (no steps.jsonl)")
    check_own_files(run_dir)
    meta, result = _read(run_dir, "meta.json"), _read(run_dir, "result.json")
    if not result:
        raise UserError(f"run {run_dir} has not finished (no result.json)")
    if result.get("status") != "done":
        raise UserError(f"run {run_dir} did not finish its task (status "
                        f"{result.get('status')!r})")
    evidence = _evidence(run_dir, result, proof)
    steps = load_steps(run_dir)
    goal = goal if goal is not None else meta.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        raise UserError(f"run {run_dir} records no goal (give one with --goal)")
    goal = " ".join(goal.split())
    start = str(meta.get("start_url") or "")
    if not _web(start):  # started on about:blank: the first web page the run saw
        start = next((s.url for s in steps if _web(s.url)), start)
    site = url_host(start)
    if not _web(start):
        raise UserError(f"run {run_dir} never reached a web page "
                        f"({hide_userinfo(start)[:80]!r})")
    answer = result.get("answer")
    answer = answer if isinstance(answer, str) else ""
    kept = [s for s in steps if took_effect(s)]
    for s in kept:
        _on_site(s, site, run_dir)
        action = parse_action(s.action or "")
        if action.name == "fill" and len(action.args) == 2:
            edits.refuse_rewrites(s.step, s.observation, str(action.args[0]),
                                  str(action.args[1]), run_dir)
    last = page.parse(_last_page(steps))
    months = _counted_months(goal, answer, last)
    used = _used_texts(kept, answer, start) | forms.main_headings(steps) | \
        totals.countable(answer, last) | months
    found = spelling.open_quotes(goal, values.goal_values(goal, used), used)
    spelled_values = _apart(goal, found, _spelled(goal, kept, start,
                                                  [s.url for s in steps], found))
    found += [sp.value for sp in spelled_values if all(sp.value is not v for v in found)]
    taken: set[str] = set()
    named = {(values.unique_name("month", taken) if v.text in months else
              values.name_for(goal, v, found, taken)): v for v in found}
    spelled, of = _spellings(spelled_values, named)
    params = {n: v.text for n, v in named.items()}
    builder = _Builder(steps, params, site, spelled)
    flow_steps = [builder.step(s) for s in kept]
    flow_steps = reads.learn_reads(kept, flow_steps, builder.params, _source_at)
    flow_steps = forms.by_row(flow_steps)
    first = flow_steps[0].step if flow_steps else None
    reads_start = bool(flow_steps and flow_steps[0].reads)  # on the start page
    if reads_start:
        flow_steps.insert(0, WorkflowStep(step={"goto": builder.url(start)},
                                          expect_url=builder.expect(start)))
    elif not (isinstance(first, dict) and "goto" in first):
        begin = addresses.start_step(builder.url(start), builder.expect(start))
        flow_steps[:0] = [begin] if begin else []
    try:
        source = forms.led_answer(_answer_source(answer, steps, params, run_dir), last,
                                  answer, params, answer_candidates)
        source = forms.counted_from_end(source, last, answer, params, answer_candidates)
        source = totals.explained(source, last, answer, params, answer_candidates)
    except UserError:  # not on the last page as it is written
        found = _not_written(answer, steps, kept, flow_steps, params)
        if found is None:
            raise
        flow_steps, source = found
    text = str([s.model_dump() for s in flow_steps] + [source])
    used_spellings = {n: of[n] for n in spelled if f"{{{{{n}}}}}" in text}
    used_names = {n for n in params if f"{{{{{n}}}}}" in text} | \
        {s.of for s in used_spellings.values()}
    if not isinstance(flow_steps[0].step, dict) or "goto" not in flow_steps[0].step:
        # It starts where its episode starts: the page the goal names, by its heading.
        used_names |= forms.named_page(params, steps[:1])
    pattern = goal
    for name, value in sorted(named.items(), key=lambda kv: -kv[1].start):
        if name in used_names:
            pattern = pattern[:value.start] + f"{{{{{name}}}}}" + pattern[value.end:]
    task_id = meta.get("task_id") or _task_of(run_dir)
    return check({
        "site": site,
        "goal_pattern": pattern,
        "params": {n: v for n, v in params.items() if n in used_names},
        "steps": [s.model_dump(exclude_defaults=True) for s in flow_steps],
        "answer": source.model_dump(exclude_defaults=True) if source else None,
        "spellings": {n: s.model_dump() for n, s in used_spellings.items()},
        "provenance": Provenance(run=str(run_dir), task_id=task_id,
                                 learned_by=learned_by or _learned_by(meta, steps, evidence),
                                 author=author or _read(run_dir, APPROVAL_FILE).get("author")),
    }, f"workflow learned from {run_dir}")


def _not_written(answer: str, steps: list[Step], kept: list[Step],
                 flow_steps: list[WorkflowStep], params: dict[str, str]
                 ) -> tuple[list[WorkflowStep], AnswerSource] | None:
    """An answer no element of the last page holds whole, strongest proof first: the
    texts of the last page's places joined; read on an earlier page where the run saw
    it; a column of the last page added up; places of the last page counted
    (``totals.py``)."""
    last = page.parse(_last_page(steps))
    joined = totals.joined(answer, last, params, answer_candidates)
    if joined is not None:
        return flow_steps, joined
    earlier = reads.answer_read(answer, kept, flow_steps, params, _source_at)
    if earlier is not None:
        return earlier
    gathered = totals.column_total(answer, last, params, answer_candidates) or \
        totals.counted(answer, last, params, answer_candidates)
    return (flow_steps, gathered) if gathered is not None else None


def _counted_months(goal: str, answer: str, last: list[page.Line]) -> set[str]:
    """The months the goal names ("March 2024") when the answer is a number and the
    last page writes dates: values of the goal a count of its dated places may use
    (``dates.py``), though no step typed them."""
    if not re.fullmatch(r"\d{1,12}", answer.strip()) or \
            not any(dates.dates_in(line.shown) for line in last):
        return set()
    return set(dates.goal_months(goal))


def _last_page(steps: list[Step]) -> str:
    """The page the run answered on."""
    stops = [s for s in steps if s.action and s.result.done]
    return stops[-1].observation if stops else ""


def _web(url: str) -> bool:
    """An http(s) address with a host and no user name or password before it."""
    return urlsplit(url).scheme in ("http", "https") and bool(url_host(url)) and \
        "@" not in url_host(url)


def recorded_answer(run_dir: str | Path) -> str:
    """The answer the run gave (empty when it gave none)."""
    answer = _read(Path(run_dir), "result.json").get("answer")
    return answer if isinstance(answer, str) else ""


def _task_of(run_dir: Path) -> str | None:
    validation = _read(run_dir, "validation.json")
    task = validation.get("task")
    return task if isinstance(task, str) and len(task) <= 200 else None


def took_effect(step: Step) -> bool:
    if not step.action or not step.executed or not step.result.ok:
        return False
    try:
        action = parse_action(step.action)
    except ActionParseError:
        return False
    return action.name not in NO_EFFECT


def _on_site(step: Step, site: str, run_dir: Path) -> None:
    action = parse_action(step.action or "")
    if any(isinstance(a, str) and MASK in a for a in action.args):
        raise UserError(f"run {run_dir} step {step.step} typed a value the run masked (a "
                        "password or key): a workflow cannot hold it; let the run type it "
                        "as {{secret:NAME}}")
    for url in (action.args[:1] if action.name in ("goto", "new_tab") else []):
        if not isinstance(url, str) or not (host_matches_site(url_host(url), site) or
                                            sites.as_placeholder(url, site) is not None):
            raise UserError(f"run {run_dir} step {step.step} leaves the site {site} "
                            f"({hide_userinfo(str(url))[:80]!r}): a workflow stays on one site")


def _used_texts(steps: list[Step], answer: str, start: str) -> set[str]:
    """Every text the run used whole: field values, options and the answer; and, when
    they are not one lower-case word ("ticket" in /ticket/18 is no value), address
    fields and target names."""
    used = {answer} if answer else set()
    named: set[str] = set(values.url_parts(start))
    for step in steps:
        action = parse_action(step.action or "")
        spec = ACTIONS[action.name]
        args = action.args[1:] if spec.params and spec.params[0].kind == "bid" else action.args
        for arg in args:
            if isinstance(arg, str):
                if action.name in ("goto", "new_tab"):
                    named.update(values.url_parts(arg))
                else:
                    used.add(arg)
            elif isinstance(arg, list):
                used.update(a for a in arg if isinstance(a, str))
        if step.target and step.target.name:
            named.add(" ".join(step.target.name.split()))
    return used | {t for t in named if not (t.isalpha() and t.islower())}


def _spelled(goal: str, kept: list[Step], start: str, seen: list[str],
             found: list[values.Value]) -> list[spelling.Spelled]:
    """Goal values, and runs of the goal's words, that the run used spelled as the site
    spells them (``workflows/spelling.py``)."""
    actions = []
    for step in kept:
        action = parse_action(step.action or "")
        spec = ACTIONS[action.name]
        args = action.args[1:] if spec.params and spec.params[0].kind == "bid" else action.args
        actions.append((action.name, list(args), step.target.name if step.target else None))
    texts, fields = spelling.run_texts(actions, start)
    for url in seen:  # the addresses it reached: a step expects them again
        fields.update(spelling.address_fields(url or ""))
    return spelling.find_spelled(goal, found, texts, fields)


def _apart(goal: str, found: list[values.Value], spelled: list[spelling.Spelled]
           ) -> list[spelling.Spelled]:
    """The spelled values, less the runs of the goal's words that only a spelling made
    values and that stand right beside another value ("assigned to" in
    ``sort=assigned_to``, before the person's name): two parameters with nothing but a
    space between them split a sibling's goal in more than one way, so it would fit
    the pattern nowhere."""
    new = [sp.value for sp in spelled if all(sp.value is not v for v in found)]

    def beside(value: values.Value) -> bool:
        return any(other is not value and not goal[min(value.end, other.end):
                                                   max(value.start, other.start)].strip()
                   for other in [*found, *new])

    return [sp for sp in spelled if sp.value not in new or not beside(sp.value)]


def _spellings(found: list[spelling.Spelled], named: dict[str, values.Value]
               ) -> tuple[dict[str, str], dict[str, Spelling]]:
    """The spelled parameters' values (``title_slug``: "black-peak") and what each one
    spells."""
    name_of = {id(v): n for n, v in named.items()}
    spelled: dict[str, str] = {}
    of: dict[str, Spelling] = {}
    for found_one in found:
        base = name_of[id(found_one.value)]
        name = f"{base}_{found_one.how}"[:40]
        spelled[name] = found_one.text
        of[name] = Spelling(of=base, how=found_one.how)
    return spelled, of


class _Builder:
    """Turns recorded steps into workflow steps (targets, values, surroundings)."""

    def __init__(self, steps: list[Step], params: dict[str, str], site: str,
                 spelled: dict[str, str] | None = None) -> None:
        self.steps, self.site = steps, site
        self.spelled = spelled or {}  # parameters as the site spells them
        self.params = params | self.spelled

    def url(self, url: str) -> str:
        """An address a step opens (``addresses.opened``), a named site's by its
        placeholder."""
        done = addresses.opened(url, self.params, self.spelled)
        return sites.as_placeholder(done, self.site) or done

    def expect(self, url: str) -> str:
        done = addresses.expected(url, self.params, self.spelled)
        return sites.as_placeholder(done, self.site) or done

    def _after(self, step: Step) -> str | None:
        later = [s for s in self.steps if s.step > step.step]
        return later[0].url if later and later[0].url else None

    def step(self, step: Step) -> WorkflowStep:
        action = parse_action(step.action or "")
        spec = ACTIONS[action.name]
        after = self._after(step)
        expect = self.expect(after) if after and url_host(after) else None
        if not (spec.params and spec.params[0].kind == "bid"):
            if action.name in ("goto", "new_tab") and action.args:
                value: Any = self.url(str(action.args[0]))
            else:
                value = [self._value(a) for a in action.args]
                value = value[0] if len(value) == 1 else value or None
            return WorkflowStep(step={action.name: value}, expect_url=expect)
        lines = page.parse(step.observation)
        bid = str(action.args[0])
        index = page.index_of(lines, bid)
        role, name = self._named(step, lines, index, bid)
        target = forms.control_target(role, self._value(name)) or \
            names.without_count(_target(role, self._value(name)))
        if "contains" in target:
            same = page.same_targets(lines, role,
                                     contains=fill_text(target["contains"], self.params),
                                     ends=target.get("ends", False))
        else:
            same = page.same_targets(lines, role, name=name)
        if index in same and same.index(index):
            target["nth"] = same.index(index)
        data: dict[str, Any] = {action.name: target}
        for param, arg in zip(spec.params[1:], action.args[1:], strict=False):
            if arg == param.default:  # click's button='left'
                break
            data[param.name] = ([self._value(a) for a in arg] if isinstance(arg, list)
                                else self._value(arg))
        return WorkflowStep(step=data, surroundings=forms.around_option(
                                role, forms.item_row_dropped(self._around(lines, index))),
                            expect_url=expect, matches=len(same) if index in same else None)

    def _named(self, step: Step, lines: list[page.Line], index: int | None, bid: str
               ) -> tuple[str, str]:
        if step.target is not None and step.target.bid == bid and step.target.role:
            return step.target.role, step.target.name
        if index is not None:
            return lines[index].role, lines[index].name
        raise UserError(f"step {step.step} acts on element {bid}, which its recorded page "
                        "does not show: it cannot be named by role and name")

    def _value(self, value: Any) -> Any:
        return values.substitute(spelling.mark_shared(value, self.params), self.params) \
            if isinstance(value, str) else value

    def _around(self, lines: list[page.Line], index: int | None) -> Surroundings | None:
        if index is None:
            return None
        found = page.surroundings(lines, index)
        row = ""
        row_at = page.row_of(lines, index)
        if row_at is not None:
            for i in [row_at, *range(row_at + 1, len(lines))]:
                if i > row_at and lines[i].depth <= lines[row_at].depth:
                    break
                text = self._value(lines[i].text)
                if i != index and "{{" in text and len(text) <= 200:
                    row = text
                    break
        out = Surroundings(label=self._value(found.label), heading=self._value(found.heading),
                           row=row, no_heading=found.no_heading,
                           before=self._value(found.before),
                           after=self._value(found.after))
        return out if out != Surroundings() else None


def _target(role: str, name: str) -> dict[str, Any]:
    """A target by its whole name; by the words that hold a goal value when the rest
    of a long name would differ from one sibling to the next ("[1329514]: Support
    resumable imports (refs #{{ticket}})" -> contains "#{{ticket}})"). Words that end
    the name end a sibling's too: "Bug #30 (New): {{subject}}" is an issue's link, and a
    commit's "{{subject}} (refs #77)" that only mentions the value is no look-alike."""
    literal = values.PARAM_MARK.sub("", name)
    if "{{" not in name or len(literal.strip()) <= 12:
        return {"role": role, "name": name}
    words = name.split()
    marked = [i for i, word in enumerate(words) if values.PARAM_MARK.search(word)]
    target: dict[str, Any] = {"role": role,
                              "contains": " ".join(words[marked[0]:marked[-1] + 1])}
    if marked[-1] == len(words) - 1:
        target["ends"] = True
    return target


def _answer_source(answer: str, steps: list[Step], params: dict[str, str], run_dir: Path
                   ) -> AnswerSource | None:
    if not answer.strip():
        return None
    template = values.substitute(answer, params, whole=True)
    if "{{" in template:
        return AnswerSource(template=template)
    stops = [s for s in steps if s.action and s.result.done]
    source = reads.best_place(page.parse(stops[-1].observation if stops else ""), answer,
                              params, _source_at)
    if source is None:
        raise UserError(f"run {run_dir}: its answer {answer[:60]!r} is not on its last page, "
                        "so a sibling task could not read its own there")
    return source


def _source_at(lines: list[page.Line], index: int, answer: str, params: dict[str, str]
               ) -> tuple[int, AnswerSource] | None:
    """The answer source at this line and how well it should carry over to a sibling's
    page: a label beats none, the whole text beats a part, a "Label: value" text beats
    other surrounding text, and counting elements (``nth``) is the last resort."""
    line = lines[index]
    if line.role == "text":  # a text run has no element to find again
        return None
    data: dict[str, Any] = {"target": {"role": line.role, "contains": ""}}
    score = 0
    shown = line.shown
    if page.norm(shown) == page.norm(answer):
        score += 2
    else:
        at = values.find(answer, shown)
        if at < 0:
            return None
        before, after = shown[:at], shown[at + len(answer):]
        shape = values.shape_of(answer)
        if shape and len(values.shape_pattern(shape).findall(shown)) == 1:
            # a date among other words: read by its shape, the words may differ
            data["shape"], before, after = shape, "", ""
        after = after[:len(after) - len(after.lstrip(" ([{:;,.-/]})#→"))] or after[:0]
        # A number in the words before it differs from one sibling to the next ("over 2
        # years late (" here, "about 3 years late (" there): only what follows it stays.
        before = re.split(r"\S*\d\S*", before)[-1]
        before = values.substitute(before, params)
        if not data.get("shape"):
            data["around"] = f"{before}*{values.substitute(after, params)}"
        literal = re.sub(r"\{\{[a-z_]+\}\}", "", before)
        if before.strip() and not re.search(r"\d", literal):
            data["target"]["contains"] = before.strip()
        score += 2 if before.rstrip().endswith(":") else 0
        score -= bool(re.search(r"\d", literal)) + (len(literal) > 30)
    label = page.label_of(lines, index)
    section = values.substitute(page.section_heading(lines, index), params)
    if label:
        data["label"] = values.substitute(label, params)
    elif (spot := page.column_of(lines, index)) and (header := page.header_of(lines, *spot)):
        data |= {"label": values.substitute(header, params), "label_kind": "column"}
    elif values.PARAM_MARK.fullmatch(section.strip()):
        # the section titled by the goal's value (version 1.3 of a roadmap)
        data |= {"label": section, "label_kind": "heading"}
    score += 3 if data.get("label") else 0
    source = AnswerSource.model_validate(data)
    found = answer_candidates(source, lines, params)
    where = [i for i, _ in found]
    if index not in where or page.norm(found[where.index(index)][1]) != page.norm(answer):
        return None
    if where.index(index):
        target = dict(data["target"], nth=where.index(index))
        source = AnswerSource.model_validate(data | {"target": target})
        score -= 3
    return score, source
