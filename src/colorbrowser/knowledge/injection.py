"""Tips that read like orders to the agent rather than knowledge of a site.

A tip is shown to the agent outside the untrusted-page fence: it is an instruction
the agent follows. A tip file from someone else can therefore carry a prompt
injection, and ``tips lint`` is where a person looks before importing one. These
rules describe the shapes such text takes, not exact sentences:

- overriding the agent's instructions or goal ("ignore all previous instructions",
  "disregard your task", "new instructions:", "you are now ...");
- sending data off the site: a sending verb aimed at a URL, address or mailbox that
  is not the tip's own site;
- revealing a secret: a verb that discloses next to a password, key, token, cookie...;
- a URL with a placeholder where data would go (``?d={password}``, ``/<cookie>``),
  on another host, or naming a secret on any host.

Each finding quotes the words that triggered it, as lint's other checks do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from colorbrowser.knowledge.patterns import host_matches_site

_QUALIFIER = (r"(?:previous|prior|earlier|above|preceding|original|all|any|every|other|your|"
              r"the\s+user'?s|the\s+person'?s|system|given|current|initial)")
_ORDERS = (r"(?:instructions?|directions?|directives?|guidance|goals?|tasks?|prompts?|rules|"
           r"guidelines|orders|objectives?|requests?|commands?|constraints|guardrails|"
           r"policy|policies)")
_UI_NOUN = (r"(?:list|lists|bar|panel|tab|menu|page|pages|field|column|button|link|box|view|"
            r"board|sidebar|filter|widget|section|card|icon|banner|queue|tracker|name|title)")
_OVERRIDE = [
    re.compile(rf"\b(?:ignore|disregard|forget|override|bypass|abandon|discard|skip|"
               rf"(?:do\s+not|don'?t|never|stop)\s+(?:follow|obey)(?:ing)?)\b"
               rf"(?:\W+\w+){{0,3}}?\W+{_QUALIFIER}(?:\W+\w+){{0,2}}?\W+{_ORDERS}\b"
               rf"(?!\s+{_UI_NOUN}\b)", re.I),
    re.compile(rf"\b(?:ignore|disregard|forget|override|bypass|abandon|discard)\s+"
               rf"(?:the\s+|this\s+)?(?:instructions?|goal|task|objective|prompt|"
               rf"system\s+prompt)\b"
               rf"(?!\s+{_UI_NOUN}\b)", re.I),
    re.compile(r"\b(?:new|updated|real|actual|hidden|secret|additional|revised)\s+"
               r"(?:instructions?|orders|system\s+prompt)\s*[:\-]", re.I),
    re.compile(r"\bsystem\s+(?:prompt|message|override)\b|\byou\s+are\s+now\b|"
               r"\bfrom\s+now\s+on,?\s+(?:you|always|ignore|only)\b|"
               r"\binstead\s+of\s+(?:the|your)\s+(?:task|goal|instructions?)\b|"
               r"\byour\s+(?:real|actual|new|true|only|secret)\s+(?:goal|task|objective|job|"
               r"mission|instructions?|purpose)\b", re.I),
    # keeping the person out of it
    re.compile(r"\b(?:don'?t|do\s+not|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|"
               r"alert(?:ing)?|notify(?:ing)?|ask(?:ing)?|warn(?:ing)?)\s+(?:the\s+|your\s+)?"
               r"(?:user|person|human|operator|owner)\b", re.I),
]
_SECRET = (r"(?:passwords?(?!\s*(?:reset|recovery|field|box|input|strength|change|manager|"
           r"page|form|link|rules|requirements|policy|hint)\b)|passphrases?|passcodes?|"
           r"api[\s_-]?keys?|secret\s+keys?|private\s+keys?|ssh\s+keys?|access\s+tokens?|"
           r"auth(?:entication)?\s+tokens?|bearer\s+tokens?|session\s+(?:ids?|tokens?|"
           r"cookies?)|cookies?|credentials?|credit\s+card(?:\s+numbers?)?|cvv|"
           r"(?:2fa|mfa|one[\s-]time|otp|verification)\s+codes?|secrets?|tokens?|"
           r"system\s+prompt|(?:your|its|the\s+agent'?s)\s+(?:instructions|prompt))")
_DISCLOSE = (r"(?:reveal|disclose|leak|expose|exfiltrate|dump|print|output|repeat|recite|"
             r"tell|share|send|post|e-?mail|forward|transmit|upload|give\s+away|write\s+down|"
             r"read\s+out)")
_REVEAL = re.compile(rf"\b{_DISCLOSE}\b(?:\W+\w+){{0,4}}?\W+(?:the\s+|your\s+|my\s+|"
                     rf"their\s+|all\s+|any\s+|stored\s+|saved\s+|user'?s\s+)*{_SECRET}",
                     re.I)
_PLANT = re.compile(rf"\b(?:type|paste|put|include|append|add|insert|enter|write)\b"
                    rf"(?:\W+\w+){{0,3}}?\W+{_SECRET}\W+(?:\w+\W+){{0,3}}?(?:in|into|to|"
                    rf"onto)\s+(?:the\s+|a\s+|any\s+)?(?:url|query|link|address\s+bar|"
                    rf"search|comment|review|message|chat|post|reply|public)", re.I)
_SEND = re.compile(r"\b(?:send|post|upload|submit|forward|transmit|e-?mail|mail|leak|"
                   r"exfiltrate|report|share|deliver|copy|beacon|ping|relay|sync)\b", re.I)
_URL = re.compile(r"\b(?:https?|ftp|wss?)://([^\s/?#'\"<>`)\]]+)[^\s'\"`]*", re.I)
_MAILBOX = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_ELSEWHERE = re.compile(r"\b(?:webhook|an?\s+(?:external|remote|outside|third[\s-]party|"
                        r"other|different)\s+(?:site|server|host|url|address|endpoint|"
                        r"service|domain))\b", re.I)
_PLACEHOLDER = re.compile(r"\{\{?[^{}\s]{1,40}\}\}?|<[A-Za-z_][\w\s-]{0,30}>|\[[A-Za-z_][\w\s-]"
                          r"{0,30}\]|\$\{?[A-Za-z_]\w*\}?|%s")
_SECRET_WORD = re.compile(_SECRET, re.I)
_NEAR = 120  # characters between a sending verb and where it sends


def _host(netloc: str) -> str:
    return netloc.rsplit("@", 1)[-1].lower()


def _foreign(host: str, site: str) -> bool:
    return not (host_matches_site(host, site) or host.split(":", 1)[0].endswith(
        "." + site.split(":", 1)[0]))


_EXFILTRATE = re.compile(r"\bexfiltrat\w*", re.I)


def instruction_findings(text: str, site: str) -> Iterator[str]:
    """Messages for the parts of ``text`` that read like orders to the agent."""
    for regex in _OVERRIDE:
        if m := regex.search(text):
            yield f"reads like an order to drop the agent's instructions ({_q(m)})"
            break
    if m := _EXFILTRATE.search(text):
        yield f"talks of exfiltrating data ({_q(m)})"
    if m := _REVEAL.search(text) or _PLANT.search(text):
        yield f"asks for a secret to be revealed or sent ({_q(m)})"
    for m in _URL.finditer(text):
        host, url = _host(m.group(1)), m.group(0)
        holes = _PLACEHOLDER.findall(url)
        foreign = _foreign(host, site)
        rest = url[len(m.group(1)) + url.index(m.group(1)):]
        if (holes and (foreign or any(_SECRET_WORD.search(h) for h in holes))) or (
                foreign and _SECRET_WORD.search(rest)):
            yield f"a URL carries data out in a placeholder ({url[:80]!r})"
            break
    for m in _SEND.finditer(text):
        after = text[m.end():m.end() + _NEAR]
        target = next((u for u in _URL.finditer(after) if _foreign(_host(u.group(1)), site)),
                      None) or next((a for a in _MAILBOX.finditer(after) if _foreign(
                          a.group(0).rsplit("@", 1)[1], site)), None) or _ELSEWHERE.search(after)
        if target is not None:
            words = text[m.start():m.end() + target.end()]
            yield f"sends something off the site ({' '.join(words.split())[:100]!r})"
            break


def _q(m: re.Match[str]) -> str:
    return repr(" ".join(m.group(0).split())[:80])
