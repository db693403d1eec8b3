"""Sites we serve ourselves get a stable name, so knowledge outlives the run's port."""

from __future__ import annotations

from colorbrowser.knowledge.aliases import SiteAliases

LIVE = "http://127.0.0.1:33663/Tk3n"
ALIASES = SiteAliases.of({LIVE: "http://miniwob.local"})


def test_a_served_url_gets_its_stable_name_and_back():
    live = f"{LIVE}/miniwob/click-test.html?x=1#top"
    stable = ALIASES.stable(live)
    assert stable == "http://miniwob.local/miniwob/click-test.html?x=1#top"
    assert ALIASES.live(stable) == live


def test_the_bare_base_maps_too():
    assert ALIASES.stable(LIVE) == "http://miniwob.local"
    assert ALIASES.live("http://miniwob.local/") == f"{LIVE}/"


def test_other_addresses_are_their_own_name():
    for url in ("https://example.com/a", "http://127.0.0.1:3366/Tk3n/x",
                "http://127.0.0.1:33663/Tk3nX/x", "http://127.0.0.1:33663/other/Tk3n/x"):
        assert ALIASES.stable(url) == url
        assert ALIASES.live(url) == url


def test_no_aliases_changes_nothing():
    assert not SiteAliases()
    assert SiteAliases.of(None).stable(f"{LIVE}/a") == f"{LIVE}/a"
