"""A page controls the URL tips are matched against: no pattern may make matching slow.

Tip regexes are matched by a linear-time engine, globs have a bounded number of
wildcards, syntax that only a backtracking engine supports is refused where a tip
comes in (add, import, lint), and retrieval as a whole stops at a deadline.
"""

from __future__ import annotations

import sqlite3
import time
from itertools import count

import pytest

from colorbrowser.knowledge import InvalidTip, PatternError, Tip, compile_pattern, make_tip
from colorbrowser.knowledge.exchange import TipFileError, load_yaml
from colorbrowser.knowledge.lint import lint
from colorbrowser.knowledge.patterns import MAX_GLOB_STARS
from colorbrowser.knowledge.retrieve import cascade

CATASTROPHIC = r"re:^http://h/(a+)+$"
HOSTILE_URL = "http://h/" + "a" * 40 + "!"
# Every allowed wildcard, each followed by the letter the URL repeats: a backtracking
# engine tries every way to split the URL among the stars before giving up.
WORST_GLOB = "http://h/" + "*a" * (MAX_GLOB_STARS - 1) + "*!b"
WORST_GLOB_URL = "http://h/" + "a" * 5000 + "!"


def elapsed(action) -> tuple[object, float]:
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def test_a_catastrophic_regex_against_a_hostile_url_answers_in_under_a_second(kb):
    kb.add(Tip(id="bad", site="h", url_patterns=[CATASTROPHIC], text="A tip for h."))
    found, seconds = elapsed(lambda: kb.search(HOSTILE_URL, "open the page"))
    assert seconds < 1.0
    assert found == []  # the regex does not match: "!" is not an "a"
    assert [r.tip.id for r in kb.search("http://h/aaaa", "open the page")] == ["bad"]


def test_the_worst_glob_allowed_answers_in_under_a_second(kb):
    kb.add(Tip(id="stars", site="h", url_patterns=[WORST_GLOB], text="A tip for h."))
    found, seconds = elapsed(lambda: kb.search(WORST_GLOB_URL, "open the page"))
    assert seconds < 1.0
    assert found == []
    assert [r.tip.id for r in kb.search("http://h/" + "a" * 20 + "!b", "x")] == ["stars"]


def test_shortcuts_and_scopes_use_the_same_linear_matching(kb):
    kb.add(Tip(id="go", site="h", kind="shortcut", url_patterns=[CATASTROPHIC],
               url_template="http://h/search?q={q}", text="Search h."))
    shortcuts, seconds = elapsed(lambda: kb.shortcuts_for(HOSTILE_URL))
    assert seconds < 1.0
    assert [t.id for t in shortcuts] == ["go"]


def test_a_glob_with_more_wildcards_than_allowed_is_refused_with_the_limit():
    too_many = "http://h/" + "*x" * MAX_GLOB_STARS + "*"
    with pytest.raises(PatternError, match=rf"has {MAX_GLOB_STARS + 1} '\*' wildcards; "
                                           rf"at most {MAX_GLOB_STARS}"):
        compile_pattern(too_many)


@pytest.mark.parametrize(("body", "feature"), [
    (r"^http://h/(a)\1$", "backreference"),
    (r"^http://h/(?P<x>a)(?P=x)$", "backreference"),
    (r"^http://h/(?=admin)", "lookahead"),
    (r"^http://h/(?!admin)", "lookahead"),
    (r"(?<=/)admin", "lookbehind"),
    (r"(?<!/)admin", "lookbehind"),
    (r"^http://h/(?>a+)", "atomic group"),
    (r"^http://h/a*+$", "possessive"),
])
def test_syntax_only_a_backtracking_engine_has_is_refused_when_a_tip_is_added(body, feature):
    with pytest.raises(InvalidTip, match=rf"^tip t: regex 're:.*' uses an? {feature}"
                                         r".*not supported") as info:
        make_tip(id="t", site="h", text="x", url_patterns=[f"re:{body}"])
    assert "\n" not in str(info.value)


def test_such_syntax_is_refused_when_a_file_is_imported():
    text = "- id: a\n  site: h\n  url_patterns: ['re:^http://h/(?=x)']\n  text: t\n"
    with pytest.raises(TipFileError, match=r"^f\.yaml:1: tip a: regex .* uses a lookahead"):
        load_yaml(text, "f.yaml")


def test_lint_reports_refused_syntax_as_an_error_and_nested_quantifiers_as_a_warning():
    tips = [Tip(id="look", site="h", url_patterns=[r"re:^http://h/(?!x)"], text="Look ahead."),
            Tip(id="nest", site="h", url_patterns=[CATASTROPHIC], text="Nested groups."),
            Tip(id="flat", site="h", url_patterns=[r"re:^http://h/a+(?:/b)?$"], text="Flat.")]
    found = {(f.tip_id, f.severity): f.message for f in lint(tips)}
    assert "uses a lookahead" in found["look", "error"]
    assert "nests quantifiers in '(a+)+'" in found["nest", "warning"]
    assert not any(tip_id == "flat" for tip_id, _ in found)


@pytest.mark.parametrize(("body", "nested"), [
    (r"(a+)+", "(a+)+"),
    (r"x(?:ab*)*y", "(?:ab*)*"),
    (r"((a|b)?c)+", "((a|b)?c)+"),
    (r"(?P<n>\d+){2,}", r"(?P<n>\d+){2,}"),
    (r"([a-z]+/)*end", "([a-z]+/)*"),
])
def test_lint_names_the_group_that_repeats_a_repetition(body, nested):
    tip = Tip(id="t", site="h", url_patterns=[f"re:{body}"], text="A tip.")
    assert [f.message for f in lint([tip]) if "nests" in f.message] == [
        f"regex {'re:' + body!r} nests quantifiers in {nested!r}; every URL is matched in "
        "linear time here, but most other regex engines backtrack exponentially on it"]


@pytest.mark.parametrize("body", [
    r"(ab)+", r"(a|b)*", r"[(+]+(x)", r"\(a+\)+", r"(a+)?", r"(a{2})", r"(?:a+){1}",
    r"(x)(y+)", r"([+*]){3}",
])
def test_lint_leaves_flat_repetitions_alone(body):
    tip = Tip(id="t", site="h", url_patterns=[f"re:{body}"], text="A tip.")
    assert not [f for f in lint([tip]) if "nests" in f.message]


def test_a_stored_pattern_that_is_no_longer_accepted_never_breaks_retrieval(kb, db_path):
    kb.add(Tip(id="old", site="h", url_patterns=["http://h/*"], text="An old tip."))
    kb.add(Tip(id="fine", site="h", url_patterns=["http://h/a/*"], text="A fine tip."))
    with sqlite3.connect(db_path) as conn:  # written by a version that accepted lookaheads
        conn.execute("UPDATE tips SET url_patterns = ? WHERE id = 'old'",
                     ('["re:^http://h/(?=a)"]',))
    assert [r.tip.id for r in kb.search("http://h/a/b", "")] == ["fine"]
    assert kb.shortcuts_for("http://h/a/b") == []


def test_retrieval_past_its_deadline_returns_what_it_found_and_says_so(kb):
    kb.add_many([Tip(id=f"t{i:02d}", site="h", url_patterns=[f"http://h/{i % 2}/*"],
                     text=f"Tip number {i}.") for i in range(20)])
    ticks = count()  # a clock where every look at it takes one second
    found = cascade(kb, "http://h/0/x", "", k=20, deadline=5.0,
                    clock=lambda: float(next(ticks)))
    assert 0 < len(found) < 10  # 10 tips match; the deadline stopped the search early
    assert found.note is not None
    assert found.note.startswith("tip retrieval stopped at its 5 s deadline;")
    full = cascade(kb, "http://h/0/x", "", k=20)
    assert len(full) == 10 and full.note is None

