"""A field named by a <label> the page hides (Trac hides its search box's label with
CSS) still has that name: accessible names come from referenced labels even when
they are not displayed, as in Chromium's own tree."""

from __future__ import annotations

from colorbrowser.testing import send_html, serve_directory

PAGE = """<!doctype html><title>Search</title>
<style>#search label { display: none }</style>
<form id="search"><label for="q">Search:</label><input id="q" name="q">
<button>Search</button></form>
<span id="hint" hidden>Ticket number</span><input aria-labelledby="hint">
"""


def test_a_hidden_label_still_names_its_field(env, tmp_path):
    with serve_directory(tmp_path, routes={"/search": lambda r: send_html(r, PAGE)}) as url:
        tree = env.reset(f"{url}/search").axtree
    assert "textbox 'Search:'" in tree
    assert "textbox 'Ticket number'" in tree
    assert "Search:" not in tree.replace("textbox 'Search:'", "")  # the label is not shown
