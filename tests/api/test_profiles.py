"""Login profiles: a person signs in once through the copilot panel (headless), the
session is saved owner-only with its cookies checked, and runs start signed in until
the site forgets the session or the cookies run out, which is said as such.

Real Chromium, a real local sign-in site, the real panel server; the person is this
test, sending the panel the keys a person would type. Runs use scripted model replies."""

from __future__ import annotations

import json
import stat
import threading

import httpx
import pytest

from colorbrowser import Agent, UserError
from colorbrowser.config import load_settings
from colorbrowser.copilot.login import panel_wait
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.run.login import capture_login
from colorbrowser.run.profiles import check_name, load_profile, profiles_dir
from colorbrowser.testing import act, prompt_text, run_cli

from .login_site import LoginSite

USER, PASSWORD = "ann", "correct horse 9"
QUIET = {"knowledge": "off", "memory": "none"}


def person_signs_in(site: LoginSite, *, finish: bool = True):
    """What a person does on the panel's live view: type, Tab, type, Enter, then Stop
    once signed in (or at once, without signing in, when ``finish`` is False)."""
    def start(panel_url: str) -> None:
        base, token = panel_url.split("/?token=")

        def send(kind: str, **body: str) -> None:
            r = httpx.post(f"{base}/command/{kind}", json=body, headers={"X-Token": token})
            assert r.status_code == 200, r.text

        def act_as_person() -> None:
            if finish:
                send("type", text=USER)
                send("press", key="Tab")
                send("type", text=PASSWORD)
                send("press", key="Enter")
                assert site.signed_in.wait(20)
            send("stop")

        threading.Thread(target=act_as_person, daemon=True).start()

    return lambda session: panel_wait(session, on_ready=start)


def account_reader():
    return ScriptedModel([lambda m: act("read", "stop('in')" if f"Welcome, {USER}"
                                        in prompt_text(m) else "stop('out')")])


def test_sign_in_once_then_runs_start_signed_in_until_the_site_forgets(tmp_path):
    with LoginSite(USER, PASSWORD) as site:
        profile = capture_login("shop", site.url(), load_settings(), person_signs_in(site))
        path = profiles_dir() / "shop.json"
        assert profile.path == path and path.is_file()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        saved = json.loads(path.read_text())
        assert [c["name"] for c in saved["state"]["cookies"]] == ["sid"]
        assert PASSWORD not in path.read_text()

        result = Agent("Am I signed in?", url=site.url("/account"), model=account_reader(),
                       profile="shop", run_dir=tmp_path / "run", **QUIET).run()
        assert (result.status, result.answer) == ("done", "in")
        assert not any("sid" in p.name for p in (tmp_path / "run").rglob("*"))
        sid = saved["state"]["cookies"][0]["value"].encode()  # the session stays out
        assert not any(sid in p.read_bytes() for p in (tmp_path / "run").rglob("*")
                       if p.is_file())

        site.forget()  # the session ran out on the server
        result = Agent("Am I signed in?", url=site.url("/account"), model=account_reader(),
                       profile="shop", run_dir=tmp_path / "run2", **QUIET).run()
        assert result.status == "profile_expired"
        assert "profile 'shop' has expired" in result.error
        assert f"colorbrowser login shop --url {site.url()}" in result.error


def test_a_profile_whose_cookies_ran_out_is_refused_before_the_run(tmp_path):
    with LoginSite(USER, PASSWORD) as site:
        capture_login("shop", site.url(), load_settings(), person_signs_in(site))
    path = profiles_dir() / "shop.json"
    data = json.loads(path.read_text())
    for cookie in data["state"]["cookies"]:
        cookie["expires"] = 1_000_000.0  # 1970
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="profile 'shop' has expired"):
        Agent("x", url="http://127.0.0.1:9/", profile="shop")
    assert load_profile("shop", check_expiry=False).name == "shop"


def test_a_sign_in_that_wrote_no_cookies_saves_nothing():
    with LoginSite(USER, PASSWORD) as site, \
            pytest.raises(UserError, match=r"no cookies for 127\.0\.0\.1 were written"):
        capture_login("shop", site.url(), load_settings(),
                      person_signs_in(site, finish=False))
    assert not (profiles_dir() / "shop.json").exists()


def test_profile_mistakes_are_one_line(tmp_path, capsys, pages_url):
    code = run_cli("run", "x", "--url", f"{pages_url}/agent/login.html", "--knowledge",
                   "off", "--profile", "nope", "--out", str(tmp_path / "run"))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: no login profile named 'nope'")
    assert not (tmp_path / "run").exists()
    code = run_cli("login", "bad name", "--url", "http://127.0.0.1:9/")
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: profile name 'bad name'")


def test_a_login_page_that_cannot_be_opened_is_one_line_and_saves_nothing(capsys):
    code = run_cli("login", "down", "--url", "http://127.0.0.1:9/")  # nothing listens on 9
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --url: cannot open http://127.0.0.1:9/")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (profiles_dir() / "down.json").exists()


@pytest.mark.parametrize("state", [
    {"cookies": ["not a cookie"]},
    {"cookies": [{"name": "sid", "value": "x", "expires": "soon"}]},
    {"cookies": {"sid": "x"}},
    {"cookies": [], "origins": [{"origin": "http://x", "localStorage": ["y"]}]},
])
def test_a_damaged_profile_is_one_line_not_a_traceback(tmp_path, capsys, pages_url, state):
    profiles_dir().mkdir(parents=True, exist_ok=True)
    (profiles_dir() / "broken.json").write_text(json.dumps(
        {"name": "broken", "login_url": pages_url, "saved": "now", "state": state}))
    code = run_cli("run", "x", "--url", f"{pages_url}/agent/login.html", "--knowledge",
                   "off", "--profile", "broken", "--out", str(tmp_path / "run"))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: login profile") and "damaged" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["shop\n", "a" * 65, "../shop", ""])
def test_a_profile_name_is_the_whole_name_and_quoted_short(capsys, name):
    """``shop\\n`` would be a file name with a line break in it; a name of thousands of
    characters is quoted cut, on one line."""
    with pytest.raises(UserError, match="profile name"):
        check_name(name)
    code = run_cli("login", name * (80 if len(name) > 60 else 1), "--url", "http://127.0.0.1:9/")
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: profile name")
    assert len(err.strip().splitlines()) == 1 and len(err) < 200
