"""The README's "Use it from Python" examples run as written, against the demo shop
and an OpenAI-compatible endpoint on 127.0.0.1 whose replies are scripted from what
the agent sends (a stand-in model: these test the API's wiring, not a model)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from colorbrowser.config import Settings
from colorbrowser.testing import ScriptedEndpoint, act, user_text

README = Path(__file__).resolve().parents[2] / "README.md"


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.index("\n## ", start + 3)
    return text[start:end]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section("Use it from Python"), re.S)


def link(user: str, name: str) -> str | None:
    m = re.search(rf"\[(\w+)\] link '{re.escape(name)}'", user)
    return m.group(1) if m else None


def shop_model(messages: list[dict]) -> str:
    """Replies a model could give on the demo shop, for each README example."""
    system, user = messages[0]["content"], user_text(messages)
    if "{{secret:shop_email}}" in system:
        if "fill(" in user:
            return act("typed", "stop('typed')")
        email = re.search(r"\[(\w+)\] textbox 'Email'", user)
        assert email, user
        return act("type it", f"fill('{email.group(1)}', '{{{{secret:shop_email}}}}')")
    if "$14.50" not in user:
        target = link(user, "Wool hiking socks") or link(user, "Socks")
        assert target, user
        return act("open it", f"click('{target}')")
    if "JSON schema" in system:
        return act("answer", "stop({'product': 'Wool hiking socks', 'price': 14.5, "
                             "'currency': 'USD'})")
    if "- convert(" in system:
        if "13.34 EUR" in user:
            return act("converted", "stop('13.34 EUR')")
        return act("convert", "convert(14.5, 'EUR')")
    return act("found", "stop('$14.50')")


@pytest.fixture
def readme_world(tmp_path, monkeypatch, shop_url):
    config = tmp_path / "config.toml"
    config.write_text('[agent]\nknowledge = "off"\nmemory = "none"\n')
    monkeypatch.setenv("COLORBROWSER_CONFIG", str(config))
    monkeypatch.setenv("COLORBROWSER_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("COLORBROWSER_MODEL", "m")
    with ScriptedEndpoint(shop_model) as endpoint:
        monkeypatch.setenv("COLORBROWSER_BASE_URL", endpoint.url)
        yield shop_url, endpoint


def test_the_python_examples_run_as_written(readme_world, capsys):
    shop_url, endpoint = readme_world
    found = blocks("python")
    assert len(found) == 4
    printed = []
    for code in found:
        namespace: dict = {}
        exec(compile(code.replace("http://127.0.0.1:8000", shop_url), "README.md", "exec"),
             namespace)
        printed.append(capsys.readouterr().out)
        result = namespace["result"]
        assert result.run_dir is not None and result.run_dir.is_dir()
    assert printed[0].startswith("done $14.50 0.0\n")
    assert printed[1] == "14.5\n"
    assert printed[2].endswith("13.34 EUR\n") and "convert(14.5, 'EUR')" in printed[2]
    assert re.fullmatch(r"done fill\('\w+', '\{\{secret:shop_email\}\}'\)\n", printed[3])
    assert all("ann@example.org" not in str(body) for body in endpoint.requests)


def test_the_secrets_config_example_is_valid_settings():
    toml = [b for b in blocks("toml") if "[secrets." in b]
    assert len(toml) == 1
    settings = Settings.model_validate(tomllib.loads(toml[0]))
    assert settings.secret_sources["shop_password"].env == "SHOP_PASSWORD"
