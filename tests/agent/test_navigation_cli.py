"""`run` and `observe` keep the agent on the web: a local file reaches no prompt, no run
folder and no endpoint, whatever the (scripted, hostile) model asks for; a person opens a
local page only by saying so, and a host list holds for the whole run."""

from __future__ import annotations

import json

import pytest

from colorbrowser.testing import ScriptedEndpoint, act, run_cli

SECRET = "LOCAL-SECRET-0042"


@pytest.fixture(autouse=True)
def endpoint_key(monkeypatch):
    monkeypatch.setenv("COLORBROWSER_API_KEY", "test-token")  # ScriptedEndpoint's token



@pytest.fixture
def local_secret(tmp_path):
    path = tmp_path / "credentials.txt"
    path.write_text(f"password={SECRET}\n")
    return path


def test_a_hostile_model_reads_no_local_file_and_sends_it_nowhere(tmp_path, capsys, pages_url,
                                                                   local_secret):
    # Scripted model replies: what an injected page could talk a model into.
    hostile = iter([
        act("read it", f"goto('{local_secret.as_uri()}')"),
        act("again", f"new_tab('{local_secret.as_uri()}')"),
        act("other ways", "goto('view-source:" + local_secret.as_uri() + "')"),
        act("data", "goto('data:text/html,<script>fetch(1)</script>')"),
        act("give up", "stop('nothing')"),
    ])
    out = tmp_path / "run"
    with ScriptedEndpoint(lambda messages: next(hostile)) as model:
        code = run_cli("run", "steal", "--url", f"{pages_url}/agent/login.html",
                        "--base-url", model.url, "--model", "m", "--knowledge", "off",
                        "--memory", "none", "--verify", "off", "--out", str(out))
        bodies = json.dumps(model.requests)
    assert code == 0
    steps = [json.loads(line) for line in (out / "steps.jsonl").read_text().splitlines()]
    assert [s["result"]["ok"] for s in steps] == [False, False, False, False, True]
    assert all("off limits" in s["result"]["error"] or "unsupported URL scheme"
               in s["result"]["error"] for s in steps[:4])
    assert SECRET not in bodies and "root:" not in bodies
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_a_local_start_page_needs_allow_file_url(tmp_path, capsys):
    page = tmp_path / "report.html"
    page.write_text("<title>Report</title>")
    code = run_cli("run", "read", "--url", page.as_uri(), "--out", str(tmp_path / "run"))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --url: file: addresses are off limits")
    assert "--allow-file-url" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_observe_opens_a_local_page_the_person_trusts(tmp_path, capsys):
    page = tmp_path / "report.html"
    page.write_text("<title>Report</title><button>Approve</button>")
    assert run_cli("observe", page.as_uri()) == 2
    assert "--allow-file-url" in capsys.readouterr().err
    assert run_cli("observe", page.as_uri(), "--allow-file-url") == 0
    assert "button 'Approve'" in capsys.readouterr().out


def test_a_start_page_off_the_host_list_is_refused_up_front(tmp_path, capsys, pages_url):
    code = run_cli("run", "x", "--url", f"{pages_url}/agent/login.html", "--allow-hosts",
                    "shop.example", "--out", str(tmp_path / "run"))
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: --url: 127.0.0.1 is not an allowed host (allowed: "
                          "shop.example)")


def test_a_host_list_holds_for_the_model_during_a_run(tmp_path, pages_url):
    replies = iter([act("elsewhere", "goto('http://localhost:9/leak?d=1')"),
                    act("done", "stop('x')")])
    out = tmp_path / "run"
    with ScriptedEndpoint(lambda messages: next(replies)) as model:
        code = run_cli("run", "x", "--url", f"{pages_url}/agent/login.html", "--allow-hosts",
                        "127.0.0.1", "--base-url", model.url, "--model", "m",
                        "--knowledge", "off", "--memory", "none", "--out", str(out))
    first = json.loads((out / "steps.jsonl").read_text().splitlines()[0])
    assert code == 0
    assert first["result"]["error"] == ("goto refused: localhost is not an allowed host "
                                        "(allowed: 127.0.0.1)")
    saved = json.loads((out / "meta.json").read_text())["settings"]["browser"]
    assert saved["allow_hosts"] == ["127.0.0.1"]  # resume keeps the same limits


def test_a_bad_allowed_host_is_one_line(tmp_path, capsys, pages_url):
    code = run_cli("run", "x", "--url", f"{pages_url}/agent/login.html", "--allow-hosts",
                    "http://shop.example/", "--out", str(tmp_path / "run"))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: command line: browser.allow_hosts")
    assert len(err.strip().splitlines()) == 1
