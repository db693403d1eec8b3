"""Parameterising a learned workflow: the goal's values that the run's steps used
become parameters (some also as the site spells them), and the goal becomes a pattern
over the ones the workflow's steps and answer use."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from colorbrowser.actions import ACTIONS, parse_action
from colorbrowser.knowledge.workflow import Spelling
from colorbrowser.steps import Step
from colorbrowser.types import Action
from colorbrowser.workflows import dates, forms, page, spelling, totals, values
from colorbrowser.workflows.run_folder import last_page


@dataclass
class Parameters:
    """The goal's values by parameter name, and the spelled parameters beside them."""

    named: dict[str, values.Value]
    params: dict[str, str]  # the named values' texts
    spelled: dict[str, str]  # a spelled parameter's value as the site spells it
    of: dict[str, Spelling]  # what each spelled parameter spells

    def used_in(self, text: str, steps: list[Step], starts_at_goto: bool
                ) -> tuple[dict[str, Spelling], set[str]]:
        """The spelled parameters and the names the workflow's text uses; one that
        does not open its own start page starts where its episode starts: the page the
        goal names, by its heading."""
        params = self.params
        used_spellings = {n: self.of[n] for n in self.spelled if f"{{{{{n}}}}}" in text}
        used_names = {n for n in params if f"{{{{{n}}}}}" in text} | \
            {s.of for s in used_spellings.values()}
        if not starts_at_goto:
            used_names |= forms.named_page(params, steps[:1])
        return used_spellings, used_names

    def pattern(self, goal: str, used_names: set[str]) -> str:
        """The goal with each used value replaced by its parameter."""
        pattern = goal
        for name, value in sorted(self.named.items(), key=lambda kv: -kv[1].start):
            if name in used_names:
                pattern = pattern[:value.start] + f"{{{{{name}}}}}" + pattern[value.end:]
        return pattern


def goal_parameters(goal: str, steps: list[Step], kept: list[Step], start: str,
                    answer: str) -> Parameters:
    """The goal's values the run used, whole or spelled as the site spells them, each
    with a parameter name."""
    last = page.parse(last_page(steps))
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
    return Parameters(named, {n: v.text for n, v in named.items()}, spelled, of)


def _counted_months(goal: str, answer: str, last: list[page.Line]) -> set[str]:
    """The months the goal names ("March 2024") when the answer is a number and the
    last page writes dates: values of the goal a count of its dated places may use
    (``dates.py``), though no step typed them."""
    if not re.fullmatch(r"\d{1,12}", answer.strip()) or \
            not any(dates.dates_in(line.shown) for line in last):
        return set()
    return set(dates.goal_months(goal))


def _typed_args(action: Action) -> list[Any]:
    """The action's arguments after the element it acts on (all of them for one that
    acts on no element)."""
    spec = ACTIONS[action.name]
    return list(action.args[1:] if spec.params and spec.params[0].kind == "bid"
                else action.args)


def _used_texts(steps: list[Step], answer: str, start: str) -> set[str]:
    """Every text the run used whole: field values, options and the answer; and, when
    they are not one lower-case word ("ticket" in /ticket/18 is no value), address
    fields and target names."""
    used = {answer} if answer else set()
    named: set[str] = set(values.url_parts(start))
    for step in steps:
        action = parse_action(step.action or "")
        for arg in _typed_args(action):
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
        actions.append((action.name, _typed_args(action),
                        step.target.name if step.target else None))
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
