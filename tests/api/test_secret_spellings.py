"""A secret leaves the page in an address spelled otherwise: a form sent by GET puts
``p@ss word/42`` in the URL as ``p%40ss+word%2F42``. Every spelling is a secret too, in
what the model is sent and in every file of the run folder.

Real Chromium, a real local page, a real OpenAI-compatible endpoint on 127.0.0.1
whose replies are scripted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

from colorbrowser import Agent, Secret
from colorbrowser.agent.secrets import Vault
from colorbrowser.agent.trajectory import Redactor
from colorbrowser.static_server import StaticServer, send_html
from colorbrowser.testing import ScriptedEndpoint, act, user_text

PASSWORD = "p@ss word/42-Zq"
SPELLINGS = [PASSWORD, quote_plus(PASSWORD, safe=""), quote(PASSWORD, safe=""),
             quote(PASSWORD)]


def test_a_secret_is_hidden_in_its_address_spellings_too():
    text = " | ".join(s.upper() for s in SPELLINGS)
    assert Redactor({PASSWORD}).text(text) == " | ".join(["***"] * 4)
    hidden = Vault({"pw": Secret(PASSWORD, hosts=("127.0.0.1",))}).hide(text)
    assert hidden == " | ".join(["{{secret:pw}}"] * 4)


def bid(messages: list[dict], role: str, name: str) -> str:
    m = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", user_text(messages))
    assert m, f"{role} {name!r} not in the prompt"
    return m.group(1)


def test_a_secret_sent_by_a_get_form_is_in_no_file_and_no_prompt(tmp_path):
    def form(request):
        send_html(request, "<title>Search</title><form action='/find' method='get'>"
                           "<label>Code <input name='q'></label><button>Find</button></form>")

    def found(request):
        send_html(request, "<title>Found</title><p>Results</p>")

    replies = iter([
        lambda m: act("type", f"fill('{bid(m, 'textbox', 'Code')}', '{{{{secret:pw}}}}')"),
        lambda m: act("send", f"click('{bid(m, 'button', 'Find')}')"),
    ])
    stop = lambda m: act("done", "stop('sent')")  # noqa: E731 - as often as it is asked
    with StaticServer(tmp_path, token="", routes={"/form": form, "/find": found}) as site, \
            ScriptedEndpoint(lambda m: next(replies, stop)(m)) as endpoint:
        result = Agent("Send the code", url=f"{site.url}/form", base_url=endpoint.url,
                       model="m", secrets={"pw": Secret(PASSWORD, hosts=("127.0.0.1",))},
                       run_dir=tmp_path / "run", knowledge="off", memory="none").run()
        sent = json.dumps(endpoint.requests)
    assert any("/find?q=" in s.url for s in result.steps)  # the form went, by GET
    written = "\n".join(p.read_bytes().decode("utf-8", "replace")
                        for p in Path(tmp_path / "run").rglob("*") if p.is_file())
    for spelling in SPELLINGS:
        assert spelling.lower() not in written.lower(), spelling
        assert spelling.lower() not in sent.lower(), spelling
