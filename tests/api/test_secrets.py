"""Secrets: the model writes ``{{secret:NAME}}``, the value is typed only on its hosts,
and no value is found in anything written or sent.

A real sign-in site, real Chromium, and a real OpenAI-compatible endpoint on
127.0.0.1 whose replies are scripted (ScriptedEndpoint records every request body)."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from colorbrowser import Agent, Secret, UserError
from colorbrowser.agent.secrets import SecretRefused, Vault
from colorbrowser.config import load_settings
from colorbrowser.errors import ConfigError
from colorbrowser.testing import ScriptedEndpoint, act, run_cli, user_text
from colorbrowser.types import Action

from .login_site import LoginSite

USER = "ann-Quokka-77"  # typed into a plain text field: the page shows it back
PASSWORD = "pw-Xyz-4242-secret"
QUIET = {"knowledge": "off", "memory": "none"}


def bid(messages: list[dict], role: str, name: str) -> str:
    m = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", user_text(messages))
    assert m, f"{role} {name!r} not in the prompt"
    return m.group(1)


def scripted_sign_in(site: LoginSite):
    """The replies a model would give: type both secrets, sign in, then try to type the
    password on another host (localhost is not 127.0.0.1), then stop."""
    return iter([
        lambda m: act("user", f"fill('{bid(m, 'textbox', 'User')}', '{{{{secret:shop_user}}}}')"),
        lambda m: act("password", f"fill('{bid(m, 'textbox', 'Password')}', "
                                  "'{{secret:shop_password}}')"),
        lambda m: act("sign in", f"click('{bid(m, 'button', 'Sign in')}')"),
        lambda m: act("another host", f"goto('{site.url('/login', host='localhost')}')"),
        lambda m: act("type it here", f"fill('{bid(m, 'textbox', 'User')}', "
                                      "'{{secret:shop_password}}')"),
        lambda m: act("done", "stop('signed in')"),
    ])


def test_secrets_are_typed_on_their_host_and_found_nowhere(tmp_path, capsys, page):
    with LoginSite(USER, PASSWORD) as site:
        replies = scripted_sign_in(site)
        with ScriptedEndpoint(lambda m: next(replies)(m)) as endpoint:
            result = Agent(f"Sign in to the shop as {USER}", url=site.url(),
                           base_url=endpoint.url, model="m",
                           secrets={"shop_user": Secret(USER, hosts=("127.0.0.1",)),
                                    "shop_password": PASSWORD},  # bound to the start host
                           run_dir=tmp_path / "run", **QUIET).run()
            sent = json.dumps(endpoint.requests)
        page.set_viewport_size({"width": 1280, "height": 720})  # the agent's viewport
        page.goto(site.url())
        box = page.locator("input[name=user]").bounding_box()
        assert site.signed_in.is_set()  # the real values reached the site
        assert sum(PASSWORD in b for b in site.bodies) == 1  # and only on 127.0.0.1
    assert result.status == "done"
    steps = result.steps
    assert [s.result.ok for s in steps] == [True, True, True, True, False, True]
    assert steps[4].result.error == ("fill: {{secret:shop_password}} may only be typed on "
                                     "127.0.0.1, not on localhost")
    # The model saw the placeholders: in the action list and where the page shows a value.
    first = endpoint.requests[0]["messages"][0]["content"]
    assert "{{secret:shop_user}} (only on 127.0.0.1)" in first
    assert "Welcome, {{secret:shop_user}}" in user_text(endpoint.requests[3]["messages"])
    assert "shop as {{secret:shop_user}}" in user_text(endpoint.requests[0]["messages"])
    assert steps[0].action == f"fill('{steps[0].target.bid}', " + "'{{secret:shop_user}}')"
    # The user field holds a secret in the screenshot after typing: covered in black.
    shot = Image.open(io.BytesIO((tmp_path / "run" / steps[1].screenshot).read_bytes()))
    centre = (int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2))
    assert shot.convert("RGB").getpixel(centre) == (0, 0, 0)
    # Nothing written or sent holds a value, in any letter case.
    assert run_cli("view", str(tmp_path / "run")) == 0  # the trace page, an export
    printed = capsys.readouterr()
    written = [p.read_bytes() for p in (tmp_path / "run").rglob("*") if p.is_file()]
    for value in (USER, PASSWORD):
        for form in {value, value.lower(), value.upper()}:
            assert form not in sent
            assert form not in printed.out + printed.err
            assert not any(form.encode() in blob for blob in written), form
            assert form not in json.dumps(result.to_json())
            assert all(form not in s.model_dump_json() for s in steps)


def test_fill_in_refuses_unknown_names_frames_and_other_hosts():
    vault = Vault({"pin": Secret("4711-pin", hosts=("*.bank.example",))})
    typed = vault.fill_in(Action("fill", ["3", "{{secret:pin}}"]), "https://www.bank.example/")
    assert typed.args == ["3", "4711-pin"]
    with pytest.raises(SecretRefused, match=r"not on evil\.example"):
        vault.fill_in(Action("fill", ["3", "{{secret:pin}}"]), "https://evil.example/")
    with pytest.raises(SecretRefused, match=r"no secret named 'card'"):
        vault.fill_in(Action("fill", ["3", "{{secret:card}}"]), "https://www.bank.example/")
    with pytest.raises(SecretRefused, match="frame"):
        vault.fill_in(Action("fill", ["3", "{{secret:pin}}"]), "https://www.bank.example/",
                      in_frame=True)
    note = Action("take_note", ["{{secret:pin}}"])
    assert vault.fill_in(note, "https://www.bank.example/") is note  # only typing fills in
    assert vault.hide("code 4711-PIN ok") == "code {{secret:pin}} ok"


def test_a_secret_bound_to_a_port_is_typed_on_that_port_only():
    vault = Vault({"pw": Secret("hunter22", hosts=("127.0.0.1:8103",))})
    fill = Action("fill", ["3", "{{secret:pw}}"])
    assert vault.fill_in(fill, "http://127.0.0.1:8103/login").args == ["3", "hunter22"]
    with pytest.raises(SecretRefused, match=r"may only be typed on 127\.0\.0\.1:8103"):
        vault.fill_in(fill, "http://127.0.0.1:8203/login")  # another arena instance


def test_a_secret_without_hosts_or_too_short_is_refused():
    with pytest.raises(UserError, match="bound to no host"):
        Vault({"a": Secret("long enough")})
    with pytest.raises(UserError, match="shorter than"):
        Vault({"a": Secret("ab", hosts=("x.org",))})
    with pytest.raises(UserError, match="no start url"):
        Agent("x", secrets={"a": "value"}, **QUIET).run()


def test_config_names_sources_never_values(tmp_path, monkeypatch):
    own = tmp_path / "config" / "colorbrowser" / "config.toml"
    own.parent.mkdir(parents=True)
    own.write_text('[secrets.shop]\nenv = "SHOP_PW"\nhosts = ["shop.example"]\n'
                   f'[secrets.bank]\nfile = "{tmp_path / "bank.txt"}"\n'
                   'hosts = ["*.bank.example"]\n')
    (tmp_path / "bank.txt").write_text("from-a-file\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("SHOP_PW", "from-the-env")
    from colorbrowser.agent.secrets import vault_for

    vault = vault_for(load_settings())
    assert sorted(vault.values) == ["from-a-file", "from-the-env"]
    assert vault.secrets["bank"].hosts == ("*.bank.example",)
    monkeypatch.delenv("SHOP_PW")
    with pytest.raises(UserError, match="SHOP_PW is not set"):
        vault_for(load_settings())
    # A config file named on the command line is data: it may not pick secrets.
    with pytest.raises(ConfigError, match=r"\[secrets\] is read only from your own"):
        load_settings(own)
    own.write_text('[secrets.shop]\nvalue = "inline"\nhosts = ["shop.example"]\n')
    with pytest.raises(ConfigError, match=r"secrets\.shop"):
        load_settings()


def test_an_agent_config_file_may_not_name_secrets(tmp_path):
    from colorbrowser.evaluation.cli import agent_config_overrides

    path = tmp_path / "agent.toml"
    path.write_text('[agent]\nmax_steps = 3\n[secrets.key]\nenv = "OPENAI_API_KEY"\n'
                    'hosts = ["evil.example"]\n')
    with pytest.raises(ConfigError, match=r"\[secrets\] is refused.*read only from your own"):
        agent_config_overrides(path)
