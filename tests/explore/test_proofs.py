"""A task's proof replays its path on the page as its scripts leave it, so whether it
holds does not depend on how busy the machine is: a click waits for the page's own
fetches to finish, and an element the page replaced after it was observed is looked
up again rather than failing the proof."""

from __future__ import annotations

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.explore.validate import Prover, fresh_start

from .site import _page

# the link does nothing until the page's data has arrived (a page that hydrates)
HYDRATING = _page("Late", """<h1>Late</h1><a id="go" href="/about">Read about us</a>
<script>let ready = false;
document.getElementById('go').addEventListener('click', e => { if (!ready) e.preventDefault(); });
fetch('/slow-data').then(() => { ready = true; });</script>""")
# the page re-renders the link right after an observation has marked it, the first two
# times (the environment's own look at a page it opens is one of them)
RERENDERING = _page("Rerender", """<h1>Rerender</h1><a id="go" href="/about">Read about us</a>
<script>let times = 0;
new MutationObserver(() => {
  const a = document.getElementById('go');
  if (times >= 2 || !a.hasAttribute('bid')) return;
  times += 1;
  const fresh = a.cloneNode(true); fresh.removeAttribute('bid'); a.replaceWith(fresh);
}).observe(document.body, {attributes: true, subtree: true, attributeFilter: ['bid']});
</script>""")


def _task(start: str, base: str) -> dict:
    return {"task_id": "t", "start_url": start, "intent": "Open the page about us.",
            "eval": {"eval_types": ["url_match"], "reference_answers": None,
                     "reference_url": f"{base}/about", "program_html": []}}


PLAN = [{"click": {"role": "link", "name": "Read about us"}}]


@pytest.fixture
def prove(site, site_url):
    base = site_url.rstrip("/")

    def run(path: str):
        with BrowserEnv(BrowserSettings(allow_hosts=["127.0.0.1"])) as env:
            env.reset(None)
            return Prover(env, fresh_start(env, None)).prove(_task(base + path, base), PLAN)

    return run


def test_a_link_that_works_only_once_the_page_has_its_data_is_clicked_after_that(site, prove):
    site.pages["/late"] = HYDRATING
    site.pages["/slow-data"] = "{}"
    site.slow["/slow-data"] = 1.0
    proof = prove("/late")
    assert proof.ok, proof
    assert ("GET", "/slow-data") in site.requests


def test_an_element_the_page_replaced_after_it_was_observed_is_looked_up_again(site, prove):
    site.pages["/rerender"] = RERENDERING
    proof = prove("/rerender")
    assert proof.ok, proof


def test_a_path_that_ends_elsewhere_says_where_it_ended(site, prove):
    site.pages["/plain"] = _page("Plain", '<h1>Plain</h1><a href="/items">Read about us</a>')
    proof = prove("/plain")
    assert not proof.ok and proof.path == 0
    assert proof.error.startswith("the path ended on ") and proof.error.endswith("/items")
