"""Turning a run's recorded steps into workflow steps: an element step names its target
by role and name (or the words of it that hold a goal value), with the label, section
heading and row it sat in, and its values and addresses as parameters."""

from __future__ import annotations

from typing import Any

from colorbrowser.actions import ACTIONS, parse_action
from colorbrowser.errors import UserError
from colorbrowser.knowledge.patterns import url_host
from colorbrowser.knowledge.workflow import Surroundings, WorkflowStep
from colorbrowser.steps import Step
from colorbrowser.workflows import (
    addresses,
    forms,
    lookalikes,
    names,
    page,
    sites,
    spelling,
    values,
)
from colorbrowser.workflows.instantiate import fill_text


class StepBuilder:
    """Turns recorded steps into workflow steps (targets, values, surroundings); the
    whole run is kept for the address each step led to."""

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
            names.without_count(target_of(role, self._value(name)))
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
        block = lookalikes.block_of(lines, index, same, self._literal) \
            if index is not None else None
        return WorkflowStep(step=data, surroundings=forms.around_option(
                                role, forms.item_row_dropped(self._around(lines, index))),
                            expect_url=expect, matches=len(same) if index in same else None,
                            block=block)

    def _named(self, step: Step, lines: list[page.Line], index: int | None, bid: str
               ) -> tuple[str, str]:
        if step.target is not None and step.target.bid == bid and step.target.role:
            return step.target.role, step.target.name
        if index is not None:
            return lines[index].role, lines[index].name
        raise UserError(f"step {step.step} acts on element {bid}, which its recorded page "
                        "does not show: it cannot be named by role and name")

    def _literal(self, name: str) -> bool:
        """A name that holds no goal value (a sibling's page shows the same)."""
        return "{{" not in self._value(name)

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


def target_of(role: str, name: str) -> dict[str, Any]:
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
