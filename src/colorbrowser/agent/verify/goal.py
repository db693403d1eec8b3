"""What a goal asks for: information, a change, signing in, or opening a page.

Read from the goal's wording and from what the episode did, so the verifier knows which
checks a claimed "done" must pass.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from colorbrowser.agent.verify.effects import writes
from colorbrowser.steps import Step

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
# "Search the store for "rain jacket"." asks for the results page, not for an answer;
# "search the wiki for the population of X" (no quoted term alone) stays a question.
_SEARCH_RE = re.compile(r"^\s*(?:please\s+)?search\s+(?:(?:the|this|my)\s+[\w' -]{1,40}?\s+)?"
                        r"for\s+(?:\"[^\"]+\"|'[^']+'|“[^”]+”)\s*[.!]?\s*$", re.I)
_QUESTION_RE = re.compile(
    r"\?\s*$|^\s*(?:please\s+)?(?:what|which|who|whom|whose|when|where|why|how|is|are|does|"
    r"do|did|was|were|can|could|list|name|find|tell|give|report|count|look up|get|"
    r"determine|identify|check|summari[sz]e|compare)\b", re.I)
_CONTENT_RE = re.compile(r"\b(?:says|saying|reads|with|text)\s*:\s+\S.*$", re.I)


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
            any(writes(s, sign_in=False) for s in steps):
        kinds.append("change")
    if signs_in:
        kinds.append("sign_in")
    if (_OPEN_RE.search(text) or _SEARCH_RE.search(text)) and "change" not in kinds:
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

