"""The verifier at the stop: deterministic checks of a claimed "done" against evidence.

It reads only what the episode left behind: the goal, the pages observed (their text),
the evidence the browser recorded for each action (requests, cookies, error texts),
the agent's notes and calculations, and the page it stopped on. It decides what the
goal asks for from the goal's wording *and* from what the episode did (a form posted,
a password typed), then checks each of those:

- an answer to a question must say something, and "cannot be done" needs a reason;
- a question of how many needs a number in its answer;
- an information answer must be grounded: each value in it (numbers, dates, quoted
  strings, names) was seen on a page, given in the goal, or computed by ``calculate``
  from such values (a note counts when its own values were seen);
- a change needs a successful write request after the last change action, no error
  response, and no error text on the page that followed;
- signing in needs a session cookie set for the site;
- opening a page needs an action that left the start page, and the final page not to
  be an error page.

An action's effects may come after its step was recorded (a submit whose navigation
began late): the next step's evidence carries them as ``late``, and the stop brings
what came since the last step (``Proof.tail``); both count as the earlier action's.

A failed check says why in words the decider can act on ("the value 42 appears on no
page you saw"), because the gate returns that reason to it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote, urlsplit

from colorbrowser.actions import BUILTIN
from colorbrowser.evidence import CheckNote, Evidence, Late, RequestNote, Verification
from colorbrowser.steps import Step

# -- what the goal asks for ------------------------------------------------------------
_CHANGE_VERBS = (
    r"add|create|make|post|submit|update|edit|change|set|delete|remove|rename|assign|"
    r"close|reopen|resolve|comment|reply|write|send|book|order|buy|purchase|register|"
    r"sign up|subscribe|unsubscribe|upload|save|move|mark|approve|cancel|vote|invite|"
    r"accept|decline|publish|file|report a|open a new|start a new|like|follow|tag|"
    r"apply|enrol|enroll|check out|checkout|pay|transfer|archive|star")
_CHANGE_RE = re.compile(rf"(?:^|[.;!?]\s*|\b(?:and|then|please|also)\s+)({_CHANGE_VERBS})\b",
                        re.I)
_SIGN_IN_RE = re.compile(r"\b(?:log|sign)\s?-?(?:in|on)\b|\blogin\b|\bauthenticate\b", re.I)
_OPEN_RE = re.compile(r"^\s*(?:please\s+)?(?:open|go to|navigate to|visit|show me|take me to|"
                      r"bring up|display|browse to|find the page|load)\b", re.I)
_QUESTION_RE = re.compile(
    r"\?\s*$|^\s*(?:please\s+)?(?:what|which|who|whom|whose|when|where|why|how|is|are|does|"
    r"do|did|was|were|can|could|list|name|find|tell|give|report|count|look up|get|"
    r"determine|identify|check|summari[sz]e|compare)\b", re.I)
_CONTENT_RE = re.compile(r"\b(?:says|saying|reads|with|text)\s*:\s+\S.*$", re.I)
_LOGIN_FIELD = re.compile(r"pass|pwd|login|user|email|auth|otp|token", re.I)
_PASSWORD_FIELD = re.compile(r"pass|pwd", re.I)


def goal_kinds(goal: str, steps: Sequence[Step]) -> list[str]:
    """What the goal asks for: any of information, change, sign_in, open.

    From the wording, and from what the episode did: a write request that was not a
    sign-in makes it a change goal whatever the wording, so a failed write is never
    hidden behind a question-like goal."""
    kinds: list[str] = []
    text = " ".join(goal.split())
    signs_in = bool(_SIGN_IN_RE.search(text))
    # The text to post ("... that says: Which mulch works best?") asks nothing itself.
    text = _CONTENT_RE.sub("", text).rstrip() or text
    if _QUESTION_RE.search(text):
        kinds.append("information")
    if any(_asks_change(text, m) for m in _CHANGE_RE.finditer(text)) or \
            any(_writes(s, sign_in=False) for s in steps):
        kinds.append("change")
    if signs_in:
        kinds.append("sign_in")
    if _OPEN_RE.search(text) and "change" not in kinds:
        kinds.append("open")
    if not kinds:
        kinds.append("information")
    if "change" in kinds and "information" in kinds and not text.rstrip().endswith("?") \
            and not re.match(r"\s*(?:what|which|who|how|when|where)\b", text, re.I):
        kinds.remove("information")  # "find X and close it": the answer is a report
    return kinds


_CLAUSE_END = re.compile(r"[.;!?]|\b(?:and|then)\b", re.I)


def _asks_change(text: str, match: re.Match[str]) -> bool:
    """A change verb that asks for a change: following a link, opening a new tab or
    saving something "in your answer" changes nothing on the site."""
    verb = match.group(1).lower()
    rest = text[match.end():]
    end = _CLAUSE_END.search(rest)
    clause = rest[:end.start()] if end else rest
    if verb == "follow" and re.search(r"\blinks?\b", clause, re.I):
        return False
    if verb == "open a new" and re.match(r"\s*(?:browser\s+)?(?:tab|window)\b", clause, re.I):
        return False
    return not re.search(r"\b(?:in|into|as|for)\s+(?:your|the|my)\s+(?:answer|reply|"
                         r"response)\b", clause, re.I)


def is_sign_in_request(request: RequestNote) -> bool:
    return any(_PASSWORD_FIELD.search(f) for f in request.fields) or bool(
        re.search(r"log_?in|sign_?in|auth|session", urlsplit(request.url).path, re.I)
        and all(_LOGIN_FIELD.search(f) or f.startswith("_") or "csrf" in f.lower()
                or "token" in f.lower() for f in request.fields))


# Actions that submit: a write caused by typing or choosing (an auto-preview, a draft
# saved as one types) is no commitment, so it never counts as the change being made.
_COMMITS = ("click", "dblclick", "press", "check", "uncheck")


def _writes(step: Step, *, sign_in: bool | None = None) -> list[RequestNote]:
    """The write requests a submitting action caused; ``sign_in`` False leaves sign-ins
    out, True keeps only them, None keeps all."""
    if step.evidence is None or (step.action or "").split("(", 1)[0] not in _COMMITS:
        return []
    out = [r for r in step.evidence.requests if r.writes]
    if sign_in is None:
        return out
    return [r for r in out if is_sign_in_request(r) == sign_in]


def in_browser(step: Step) -> bool:
    """A step whose action ran in the browser (not a stop, a note, a calculation, a
    tool, nor one the gate held back)."""
    spec = BUILTIN.spec_for((step.action or "").split("(", 1)[0])
    return step.executed and spec is not None and spec.scope in ("page", "browser")


def with_late(steps: Sequence[Step], tail: Late | None = None) -> list[Step]:
    """The steps with what each browser action caused late given back to it: the late
    part of a later step's evidence, and ``tail`` (what came after the last step)."""
    out = list(steps)
    owner: int | None = None
    for i, step in enumerate(steps):
        late = step.evidence.late if step.evidence is not None else None
        if late is not None and owner is not None:
            out[owner] = _merged(out[owner], late)
        if in_browser(step):
            owner = i
    if tail is not None and owner is not None:
        out[owner] = _merged(out[owner], tail)
    return out


def _merged(step: Step, late: Late) -> Step:
    evidence = (step.evidence or Evidence()).model_copy(deep=True)
    for note in late.requests:
        if note in evidence.requests:
            continue  # told twice (a stop's tail, then its own record)
        waiting = [i for i, r in enumerate(evidence.requests) if r.status is None
                   and r.failure is None and (r.method, r.url, r.kind) == (
                       note.method, note.url, note.kind)]
        if waiting:
            evidence.requests[waiting[0]] = note  # its answer came late
        else:
            evidence.requests.append(note)
    evidence.cookies += late.cookies
    evidence.dialogs += late.dialogs
    if any(r.kind == "document" for r in late.requests):
        evidence.page_errors = list(late.page_errors)  # the page it led to, not the one left
    else:
        evidence.page_errors += [t for t in late.page_errors if t not in evidence.page_errors]
    return step.model_copy(update={"evidence": evidence})


# -- values in an answer ------------------------------------------------------------------
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_PATTERNS = (
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), ("y", "m", "d")),
    (re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I),
     ("M", "d", "y")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\s+(\d{{4}})\b", re.I),
     ("d", "M", "y")),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"), ("m", "d", "y")),
)
_QUOTED = re.compile(r"\"([^\"]{2,200})\"|“([^”]{2,200})”|(?<!\w)'([^']{2,200})'(?!\w)")
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?![\w])|(?<![\w.])\.\d+(?!\w)")
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|van|von|der|la|le|du)){0,4}")
_STOP_NAMES = {
    "the", "a", "an", "it", "its", "this", "that", "these", "those", "there", "their", "they",
    "he", "she", "his", "her", "i", "we", "you", "yes", "no", "not", "none", "done",
    "answer", "in", "on", "at", "by", "for", "to", "of", "and", "or", "is", "are", "was",
    "total", "price", "ticket", "page", "task", "which", "what", "who", "when", "where",
    "how", "all", "each", "every", "both", "one", "two", "three", "n/a", "na", "ok",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "usd", "eur", "gbp"}


def _month(text: str) -> int | None:
    word = text.lower().rstrip(".")
    return next((n for name, n in _MONTHS.items() if name.startswith(word[:3])), None)


def dates_in(text: str) -> list[tuple[str, str]]:
    """(as written, ISO date) for each date in the text."""
    out = []
    for pattern, order in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            parts = dict(zip(order, m.groups(), strict=True))
            month = int(parts["m"]) if "m" in parts else _month(parts["M"])
            try:
                day, year = int(parts["d"]), int(parts["y"])
            except ValueError:
                continue
            if month and 1 <= month <= 12 and 1 <= day <= 31:
                out.append((m.group(0), f"{year:04d}-{month:02d}-{day:02d}"))
    return out


def number_value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").replace("−", "-"))
    except InvalidOperation:
        return None


def numbers_in(text: str) -> list[tuple[str, Decimal]]:
    out = []
    for m in _NUMBER.finditer(text):
        value = number_value(m.group(0))
        if value is not None:
            out.append((m.group(0), value))
    return out


_BID = re.compile(r"^(\s*\*?)\[[A-Za-z0-9_]{1,32}\]", re.M)  # where the tree writes ids


def _flat(text: str) -> str:
    return " ".join(text.replace("’", "'").lower().split())


@dataclass
class Value:
    """One value an answer states, and how to look for it."""

    kind: str  # number, date, quoted, name
    text: str  # as written in the answer
    key: str | Decimal  # what must match: a number, an ISO date, flattened text


def values_in(answer: str) -> list[Value]:
    """The checkable values of an answer: dates, quoted strings, numbers, names."""
    rest = answer
    out: list[Value] = []
    for written, iso in dates_in(rest):
        out.append(Value("date", written, iso))
        rest = rest.replace(written, " ")
    for m in _QUOTED.finditer(rest):
        quoted = next(g for g in m.groups() if g)
        out.append(Value("quoted", quoted, _flat(quoted)))
        rest = rest.replace(m.group(0), " ")
    for written, value in numbers_in(rest):
        out.append(Value("number", written, value))
    rest = _NUMBER.sub(" ", rest)
    for m in _NAME.finditer(rest):
        words = [w for w in m.group(0).split() if w.lower() not in _STOP_NAMES]
        if not words or (len(words) == 1 and len(words[0]) < 3):
            continue
        opens = not rest[:m.start()].strip() or rest[:m.start()].rstrip()[-1] in ".!?:;"
        if len(m.group(0).split()) == 1 and opens:
            continue  # one capitalised word opening a sentence is no name ("Based on...")
        name = " ".join(words)
        out.append(Value("name", name, _flat(name)))
    short = " ".join(re.sub(r"[.!]+$", "", answer).split())
    if not out and 0 < len(short.split()) <= 5 and _flat(short) not in _STOP_NAMES:
        out.append(Value("phrase", short, _flat(short)))  # a short answer is itself a value
    seen: set[tuple[str, str]] = set()
    unique = []
    for v in out:
        if (v.kind, str(v.key)) not in seen:
            seen.add((v.kind, str(v.key)))
            unique.append(v)
    return unique


@dataclass
class Observed:
    """Everything the agent could have read: page text, the goal, derived values."""

    text: str = ""
    numbers: set[Decimal] = field(default_factory=set)
    dates: set[str] = field(default_factory=set)

    def add(self, text: str) -> None:
        if not text:
            return
        text = _BID.sub(r"\1 ", text)  # element ids are the tree's numbers, not the page's
        self.text += "\n" + _flat(text)
        self.numbers |= {v for _, v in numbers_in(text)}
        self.dates |= {iso for _, iso in dates_in(text)}

    def holds(self, value: Value) -> bool:
        if value.kind == "number":
            assert isinstance(value.key, Decimal)
            return value.key in self.numbers or abs(value.key) in self.numbers
        if value.kind == "date":
            return value.key in self.dates or contains(self.text, _flat(value.text))
        if value.kind == "phrase" and re.fullmatch(r"(?=\w*\d)\w{6,}", str(value.key)):
            return contains(self.text, str(value.key), prefix=True)  # a hash, abbreviated
        return contains(self.text, str(value.key))


def contains(text: str, needle: str, *, prefix: bool = False) -> bool:
    """``needle`` in ``text`` as whole words ("Ann" is not in "Annabel"); ``prefix``: at
    the start of a word (the first characters of a commit hash)."""
    end = "" if prefix else r"(?!\w)"
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}{end}", text) is not None


def observed_text(goal: str, steps: Sequence[Step], final_text: str = "") -> Observed:
    """What the episode saw, with calculation results whose operands were seen and
    notes whose values were all seen (values the agent carried, not made up)."""
    seen = Observed()
    seen.add(goal)
    for step in steps:
        seen.add(step.observation)
        seen.add(step.title)
        if step.evidence is not None:
            seen.add(" ".join(step.evidence.dialogs + step.evidence.page_errors))
    seen.add(final_text)
    for step in steps:
        evidence = step.evidence or Evidence()
        for calc in evidence.calculations:
            expression, _, result = calc.rpartition(" = ")
            operands = [Value("number", w, v) for w, v in numbers_in(expression)]
            if all(seen.holds(o) for o in operands):
                seen.add(result)
        for note in evidence.notes:
            if all(seen.holds(v) for v in values_in(note)):
                seen.add(note)
    return seen


# -- the checks --------------------------------------------------------------------------
_CANNOT = re.compile(
    r"\b(?:cannot|can ?not|can't|unable|impossible|not possible|no way|could not|couldn't|"
    r"not (?:be )?(?:done|found|available|able)|n/?a|infeasible|unknown)\b", re.I)
_BECAUSE = re.compile(r"\b(?:because|since|as|due to|so|but|there is no|there are no|"
                      r"does not exist|doesn't exist|no such|only)\b|[:—–(]", re.I)


@dataclass
class FinalPage:
    """The page the agent stopped on."""

    url: str = ""
    title: str = ""
    text: str = ""
    error: str | None = None  # what the browser said about it (a failed load...)


@dataclass
class Proof:
    """Everything a verdict is drawn from."""

    goal: str
    answer: str | None
    steps: Sequence[Step]
    final: FinalPage = field(default_factory=FinalPage)
    stopped: bool = True  # False: the episode ended without a stop (limit, error)
    status: str = "done"
    state_changed: bool | None = None  # arena only: did the app's database change?
    state_probe: Callable[[], bool | None] | None = None  # asked only for a change goal
    tail: Late | None = None  # what the last action caused after its step was recorded


Check = Callable[[Proof], CheckNote | None]
# A failed check with one of these names refutes the claim; any other leaves it unverified.
REFUTING = {"answer", "grounded", "write_failed", "write_never_made", "error_page",
            "no_session", "nothing_stored"}


def check_answer(proof: Proof, kinds: list[str]) -> CheckNote | None:
    answer = (proof.answer or "").strip()
    if not answer:
        if "information" not in kinds:
            return None
        return CheckNote(name="answer", passed=False,
                         reason="the answer is empty: the goal asks for information, so "
                                "give the value you found")
    if _CANNOT.search(answer) and not _BECAUSE.search(answer) and len(answer.split()) < 12:
        return CheckNote(name="cannot_without_reason", passed=False,
                         reason=f"the answer {answer!r} says the task cannot be done but gives "
                                "no reason; say why, or keep trying")
    return CheckNote(name="answer", passed=True)


_HOW_MANY = re.compile(r"^\s*(?:please\s+)?(?:how\s+(?:many|much)|what\s+is\s+the\s+"
                       r"(?:number|count|total|amount|sum)|count)\b", re.I)
_NUMBER_WORDS = re.compile(r"\b(?:zero|none|no|nothing|one|two|three|four|five|six|seven|"
                           r"eight|nine|ten|eleven|twelve|dozen|hundred|thousand)\b", re.I)


def check_answer_kind(proof: Proof) -> CheckNote | None:
    """A question that asks how many (or how much) is answered by a quantity: "Timeline"
    read off a menu is grounded, yet answers nothing."""
    answer = (proof.answer or "").strip()
    if not answer or not _HOW_MANY.search(" ".join(proof.goal.split())):
        return None
    if numbers_in(answer) or _NUMBER_WORDS.search(answer):
        return CheckNote(name="answer_kind", passed=True)
    return CheckNote(name="answer_kind", passed=False,
                     reason=f"the goal asks how many, but the answer {answer[:80]!r} gives no "
                            "number; count them and answer with the number")


def json_leaves(answer: str) -> str:
    """A typed answer (JSON text, as an answer schema makes it) as its leaf values: the
    schema's keys are no values the page must show, true/false/null say nothing."""
    try:
        data = json.loads(answer)
    except ValueError:
        return answer
    if not isinstance(data, dict | list):
        return answer
    leaves: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and node.strip():
            leaves.append(json.dumps(node, ensure_ascii=False))  # quoted: found as written
        elif isinstance(node, int | float) and not isinstance(node, bool):
            leaves.append(str(node))
    walk(data)
    return "; ".join(leaves)


def check_grounded(proof: Proof) -> CheckNote | None:
    answer = json_leaves((proof.answer or "").strip())
    if not answer:
        return None
    seen = observed_text(proof.goal, proof.steps, proof.final.text)
    if re.search(r"[^\W\d_]", answer) and contains(seen.text, _flat(answer)):
        return CheckNote(name="grounded", passed=True, reason="the answer appears as written")
    missing = [v for v in values_in(answer) if not seen.holds(v)]
    if not missing:
        return CheckNote(name="grounded", passed=True)
    shown = ", ".join(repr(v.text) for v in missing[:3])
    which = "value" if len(missing) == 1 else "values"
    verb = "appears" if len(missing) == 1 else "appear"
    return CheckNote(name="grounded", passed=False,
                     reason=f"the {which} {shown} in your answer {verb} on no page you saw and "
                            "came from no calculation of seen values; look it up on the site "
                            "before answering")


def _acting(step: Step) -> bool:
    """A step that may have started a change (typed, chose, clicked, submitted)."""
    name = (step.action or "").split("(", 1)[0]
    return step.executed and name in ("fill", "select_option", "check", "uncheck", "click",
                                      "press", "dblclick")


def _documents(step: Step) -> list[RequestNote]:
    return [r for r in (step.evidence.requests if step.evidence else []) if r.kind == "document"]


def check_change(proof: Proof) -> list[CheckNote]:
    steps = [s for s in proof.steps if s.executed]
    last_write = max((i for i, s in enumerate(steps) if _writes(s, sign_in=False)), default=None)
    if last_write is None:
        return [CheckNote(name="write_never_made", passed=False,
                          reason="nothing was saved: no form was submitted and no request "
                                 "changed anything on the server; submit the change")]
    notes: list[CheckNote] = []
    step = steps[last_write]
    failed = [r for r in (step.evidence.requests if step.evidence else []) if r.error
              and (r.writes or r.kind == "document")]
    if failed:
        r = failed[0]
        answered = f"answered {r.status}" if r.status is not None else f"failed ({r.failure})"
        notes.append(CheckNote(name="write_failed", passed=False,
                               reason=f"the server {answered} to {r.method} {r.url} at "
                                      f"step {step.step}: the change was not saved"))
    after = step.evidence
    if after is not None and after.page_errors and not notes:
        notes.append(CheckNote(name="write_failed", passed=False,
                               reason=f"the page after the change at step "
                                      f"{steps[last_write].step} shows an error: "
                                      f"{after.page_errors[0]!r}"))
    later = steps[last_write + 1:]
    typed = [i for i, s in enumerate(later) if _acting(s) and (s.action or "").startswith(
        ("fill", "select_option", "check", "uncheck"))]
    if typed:
        first = typed[0]
        submitted = any(_documents(s) for s in later[first:])
        if not submitted:
            notes.append(CheckNote(
                name="write_never_made", passed=False,
                reason=f"what was entered at step {later[first].step} was never submitted "
                       "(no request followed it); submit the form"))
    if proof.state_changed is None and proof.state_probe is not None and not notes:
        proof.state_changed = proof.state_probe()
    if proof.state_changed is False and not notes:
        notes.append(CheckNote(name="nothing_stored", passed=False,
                               reason="the server said the change was saved, but nothing "
                                      "changed in its database"))
    if not notes:
        unseen = not_shown_after(proof, steps, last_write)
        if unseen:
            notes.append(CheckNote(
                name="change_not_shown", passed=False,
                reason=f"no page after the change at step {step.step} shows {unseen!r}, "
                       "which the goal asks for; check what was saved (open the page that "
                       "shows it) and correct it if needed"))
    if not notes:
        last = _writes(steps[last_write], sign_in=False)[-1]
        notes.append(CheckNote(name="change", passed=True,
                               reason=f"{last.method} {last.url} answered {last.status}"))
    return notes


_SET_TO = re.compile(r"\b(?:set|change|update|rename|switch|move)\b.*\bto\s+([\w.+-]+)\s*[.!]?\s*$",
                     re.I)
_SAYS = re.compile(r"\b(?:says|saying|reads|reading|with the text|with text)\s*:\s*(.+?)\s*$",
                   re.I)


def written_values(goal: str) -> list[Value]:
    """What the goal asks to be written, as it must read afterwards: its quoted strings,
    the value a "set X to Y" goal ends with, and the text after "that says:"."""
    text = " ".join(goal.split())
    found = [v for v in values_in(text) if v.kind == "quoted"]
    for pattern in (_SET_TO, _SAYS):
        m = pattern.search(text)
        value = m.group(1).rstrip(".!") if m else ""
        if value and not any(v.text in value for v in found):
            found.append(Value("quoted", value, _flat(value)))
    return found


def not_shown_after(proof: Proof, steps: Sequence[Step], last_write: int) -> str | None:
    """The first quoted value of the goal that no page seen after the last write shows
    (a comment posted with other words, a resolution other than the one asked for);
    None when each one is shown. Secrets are never shown back, so a goal about a
    password asks for nothing here."""
    if re.search(r"pass(?:word|phrase|code)|\bpin\b|secret", proof.goal, re.I):
        return None
    quoted = written_values(proof.goal)
    if not quoted:
        return None
    after = Observed()
    for later in steps[last_write + 1:]:
        after.add(later.title + "\n" + later.observation)
    after.add(proof.final.title + "\n" + proof.final.text)
    return next((v.text for v in quoted if not after.holds(v)), None)


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def check_sign_in(proof: Proof) -> CheckNote:
    steps = [s for s in proof.steps if s.executed]
    posts = [(s, r) for s in steps for r in _writes(s, sign_in=True)]
    host = _host(posts[-1][1].url) if posts else _host(proof.final.url)
    cookies: dict[str, bool] = {}
    for step in steps:
        for change in (step.evidence.cookies if step.evidence else []):
            if host == change.site or host.endswith("." + change.site):
                for name in change.set:
                    cookies[name] = True
                for name in change.removed:
                    cookies[name] = False
    alive = [name for name, on in cookies.items() if on]
    if alive:
        return CheckNote(name="session", passed=True,
                         reason=f"cookie {alive[-1]} set for {host}")
    if posts:
        return CheckNote(name="no_session", passed=False,
                         reason=f"signing in gave no session: no cookie was set for {host} "
                                "after the sign-in form was sent")
    return CheckNote(name="session_unknown", passed=False,
                     reason=f"no sign-in was seen in this episode and no cookie was set for "
                            f"{host or 'the site'}; sign in first")


_ERROR_PAGE = re.compile(r"\b(?:[45]\d\d|not found|forbidden|internal server error|"
                         r"bad request|service unavailable|unauthori[sz]ed|error)\b", re.I)


def check_open(proof: Proof) -> CheckNote:
    final = proof.final
    if final.url.startswith(("chrome-error://", "about:blank")) or not final.url:
        return CheckNote(name="error_page", passed=False,
                         reason=f"the final page is not a page of the site ({final.url or 'none'})")
    docs = [r for s in proof.steps if s.executed for r in _documents(s)]
    if docs and docs[-1].error:
        return CheckNote(name="error_page", passed=False,
                         reason=f"the final page is an error page: {docs[-1].line()}")
    last = next((s.evidence for s in reversed(proof.steps) if s.executed and _documents(s)),
                None)
    if last is not None and any(_ERROR_PAGE.search(t) for t in last.page_errors) \
            and _ERROR_PAGE.search(final.title):
        return CheckNote(name="error_page", passed=False,
                         reason=f"the final page is an error page: {final.title!r}")
    if not any(in_browser(s) for s in proof.steps):
        return CheckNote(name="not_moved", passed=False,
                         reason="you stopped before taking any action, on the page you "
                                "started on; open the page the goal asks for")
    moved = [s for s in proof.steps if s.executed and s.url and s.url != proof.steps[0].url]
    if proof.steps and final.url == proof.steps[0].url and not moved:
        return CheckNote(name="not_moved", passed=False,
                         reason="you are still on the page you started on; open the page "
                                "the goal asks for")
    page = Observed()
    page.add(final.title + "\n" + final.text)
    named = [v for v in values_in(proof.goal) if v.kind != "phrase" and not page.holds(v)]
    if named:
        return CheckNote(name="page_named", passed=False,
                         reason=f"the final page does not show {named[0].text!r}, which the "
                                "goal names; open the page the goal asks for")
    link = link_to_target(proof.goal, final)
    if link is not None:
        return CheckNote(name="page_linked", passed=False,
                         reason=f"the final page only links to {link!r}, which the goal "
                                "names; open that page")
    return CheckNote(name="page", passed=True, reason=f"ended on {final.url}")


_LINK = re.compile(r"^\s*\*?\[[A-Za-z0-9_]{1,32}\]\s+link\s+(?:'((?:[^'\\]|\\.)*)'|"
                   r"\"((?:[^\"\\]|\\.)*)\")", re.M)
_TARGET = re.compile(r"\b([A-Za-z]{3,})\s+#?(\d[\w.-]*\w|\d)")


def targets(goal: str) -> list[tuple[str, str]]:
    """What a page the goal asks for is named by: (noun, value) pairs such as
    ("milestone", "1.3"), and quoted titles as ("", title)."""
    found = [("", str(v.key)) for v in values_in(goal) if v.kind == "quoted"]
    found += [(m.group(1).lower(), m.group(2).lower()) for m in _TARGET.finditer(goal)]
    return found


def link_to_target(goal: str, final: FinalPage) -> str | None:
    """A link on the final page to the very thing the goal names, when the page itself
    is not that thing (its title and address do not name it): a list or search page
    one click short of the goal. None when there is no such link."""
    named = targets(goal)
    if not named:
        return None
    own = _flat(final.title + " " + unquote(final.url))
    links = [(a or b).replace("\\'", "'").replace('\\"', '"')
             for a, b in _LINK.findall(final.text)]
    for noun, value in named:
        if contains(own, value):
            continue
        for text in links:
            flat = _flat(text)
            if contains(flat, value) and (not noun or contains(flat, noun)):
                return text
    return None


def verify(proof: Proof) -> Verification:
    """The deterministic verdict on a stop, with the reasons for it."""
    if not proof.stopped:
        return Verification(verdict="unverified", reasons=[
            f"the episode ended without an answer ({proof.status})"])
    proof = replace(proof, steps=with_late(proof.steps, proof.tail), tail=None)
    kinds = goal_kinds(proof.goal, proof.steps)
    checks: list[CheckNote] = []
    answer = check_answer(proof, kinds)
    if answer is not None:
        checks.append(answer)
    if "information" in kinds and (answer is None or answer.passed):
        for check in (check_answer_kind, check_grounded):
            note = check(proof)
            if note is not None:
                checks.append(note)
    if "change" in kinds:
        checks += check_change(proof)
    if "sign_in" in kinds:
        checks.append(check_sign_in(proof))
    if "open" in kinds:
        checks.append(check_open(proof))
    return verdict_of(checks, kinds)


def verdict_of(checks: Iterable[CheckNote], kinds: list[str]) -> Verification:
    checks = list(checks)
    failed = [c for c in checks if not c.passed]
    if any(c.name in REFUTING for c in failed):
        verdict = "refuted"
    elif failed:
        verdict = "unverified"
    else:
        verdict = "verified"
    return Verification(verdict=verdict, reasons=[c.reason for c in failed], kinds=kinds,
                        checks=checks)
