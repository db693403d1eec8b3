"""The shaping of browser_observe's answer (view.py), on tree text without a browser."""

from __future__ import annotations

from colorbrowser.llm.tokens import count_tokens
from colorbrowser.mcp import view

TREE = """[1] navigation 'Site'
  [2] link 'Home'
[3] main
  [4] heading 'Basket' level=1
  [5] list
    [6] listitem: blue socks
    *[7] listitem: red socks
  [8] button 'Checkout'""".splitlines()


def test_depth_keeps_the_top_levels():
    assert view.by_depth(TREE, 1) == ["[1] navigation 'Site'", "[3] main"]
    assert len(view.by_depth(TREE, 2)) == 6


def test_find_shows_each_match_inside_what_holds_it():
    assert view.find(TREE, "RED SOCKS") == ["[3] main", "  [5] list",
                                            "    *[7] listitem: red socks"]
    assert view.find(TREE, "checkout") == ["[3] main", "  [8] button 'Checkout'"]
    assert view.find(TREE, "nothing like it") == []


def test_diff_lists_what_went_and_came_and_ignores_new_marks():
    before = [line.replace("*[7]", "[7]") for line in TREE]
    after = [line for line in TREE if "blue" not in line] + ["  [9] button 'Pay'"]
    assert view.diff(before, after) == ["-     [6] listitem: blue socks", "+   [9] button 'Pay'"]
    assert view.diff(before, TREE) == []


def test_ids_stay_only_where_a_client_acts():
    shown = view.ids_where_acting(TREE, {"2", "8"})
    assert shown[:3] == ["navigation 'Site'", "  [2] link 'Home'", "main"]
    assert "    *listitem: red socks" in shown and "  [8] button 'Checkout'" in shown


def test_fit_cuts_at_a_line_within_the_budget_and_continues_from_there():
    lines = [f"  [{i}] button 'Buy product number {i} of the catalogue'" for i in range(2000)]
    whole = view.fit(lines, 1_000_000, count_tokens)
    assert not whole.cut and whole.lines == lines
    first = view.fit(lines, 500, count_tokens)
    assert first.cut and first.start == 0 and first.lines == lines[:first.end]
    assert count_tokens("\n".join(first.lines)) <= 500
    assert count_tokens("\n".join(lines[:first.end + 1])) > 480  # not cut far too early
    second = view.fit(lines, 500, count_tokens, start=first.end)
    assert second.lines[0] == lines[first.end]
    last = view.fit(lines, 500, count_tokens, start=1999)
    assert last.lines == [lines[1999]] and not last.cut


def test_a_single_line_over_the_budget_comes_back_cut():
    huge = "text: " + "word " * 5000
    window = view.fit([huge, "[2] button 'Next'"], 100, count_tokens)
    assert len(window.lines) == 1 and window.lines[0].endswith("…")
    assert count_tokens(window.lines[0]) <= 130 and window.cut and window.end == 1
    assert window.clipped and not window.whole
    alone = view.fit([huge], 100, count_tokens)  # the only line: nothing after it, yet cut
    assert not alone.cut and alone.clipped and not alone.whole


def test_a_diff_lists_every_option_when_it_fits_and_the_agents_first_50_when_not():
    from colorbrowser.mcp.server import observe_text
    from colorbrowser.mcp.workspace import Seen

    labels = [f"Language {i}" for i in range(1, 121)]

    def seen(obs_id: str, value: str) -> Seen:
        head = f"  [2] combobox 'Language' value='{value}' options="
        return Seen(id=obs_id, url="http://x/", title="t", header=["URL: http://x/"],
                    lines=["[1] main", f"{head}{labels!r}"],
                    brief=["[1] main", f"{head}{labels[:50]!r} (+70 more)"])

    before, after = seen("o1", "Language 1"), seen("o2", "Language 117")
    whole = observe_text(after, find=None, depth=None, since=before, max_tokens=4000,
                         from_line=1)
    assert whole.count("'Language 120'") == 2 and "more)" not in whole  # the - and + lines
    short = observe_text(after, find=None, depth=None, since=before, max_tokens=1000,
                         from_line=1)
    assert count_tokens(short) <= 1000 and "'Language 120'" not in short
    assert short.count("(+70 more)") == 2 and "value='Language 117'" in short
    assert "find= with an option's text" in short


def test_every_answer_stays_within_its_budget_once_joined(monkeypatch):
    """Lines are counted apart, and each fence gets a random tag, which may take more
    tokens in the answer than in the frame that was counted first: joined, an answer
    near its budget came out a few tokens over. Here the tags alternate between one
    of few tokens and one of more, the worst case."""
    import itertools
    import random

    from colorbrowser.mcp.server import observe_text
    from colorbrowser.mcp.workspace import Seen

    tags = itertools.cycle(["ffffffff", "0a1b2c3d"])
    monkeypatch.setattr("colorbrowser.llm.prompts.secrets.token_hex", lambda _: next(tags))
    rng = random.Random(7)
    words = ["Main Page", "Special:AllPages", "Valdoria", "édition", "2026-11-26", "→",
             "[[x]]", "ab12", "  "]
    lines = ["  " * rng.randint(0, 4) + f"[{i}] link '"
             + " ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) + "'"
             for i in range(3000)]
    url = "http://127.0.0.1:11204/index.php?title=Special:AllPages"
    seen = Seen(id="o1", url=url, title="All pages", header=[f"URL: {url}"], lines=lines)
    for budget in range(300, 4001, 185):
        for start in (1, 500):
            answer = observe_text(seen, find=None, depth=None, since=None, max_tokens=budget,
                                  from_line=start)
            assert count_tokens(answer) <= budget, (budget, start)
