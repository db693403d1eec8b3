"""Which endpoint a resumed run may send the person's API key to."""

from __future__ import annotations

import json

from pydantic import SecretStr

from colorbrowser.config import Settings
from colorbrowser.run.factory import settings_snapshot
from colorbrowser.run.resume import foreign_endpoint, settings_for_resume

ENDPOINT = "http://127.0.0.1:9/v1"


def saved_run(key: str | None, base_url: str = ENDPOINT) -> dict:
    settings = Settings()
    settings.model.base_url = base_url
    settings.model.api_key = SecretStr(key) if key else None
    return {"settings": settings_snapshot(settings)}


def person_with(key: str | None, base_url: str | None = None) -> Settings:
    current = Settings()
    current.model.base_url = base_url
    current.model.api_key = SecretStr(key) if key else None
    return current


def test_the_run_folder_never_holds_the_key():
    meta = saved_run("sk-secret-4411")
    assert "sk-secret-4411" not in json.dumps(meta)


def test_the_key_goes_back_to_the_endpoint_the_same_key_was_used_with():
    resumed = settings_for_resume(saved_run("sk-a"), person_with("sk-a"))
    assert resumed.model.base_url == ENDPOINT
    assert resumed.model.api_key.get_secret_value() == "sk-a"
    assert foreign_endpoint(saved_run("sk-a"), person_with("sk-a")) is None


def test_a_folder_sealed_with_another_key_gets_none():
    resumed = settings_for_resume(saved_run("sk-someone-else"), person_with("sk-mine"))
    assert resumed.model.api_key is None
    assert foreign_endpoint(saved_run("sk-someone-else"), person_with("sk-mine")) == ENDPOINT


def test_an_endpoint_edited_into_the_folder_breaks_the_seal():
    meta = saved_run("sk-a")
    meta["settings"]["model"]["base_url"] = "http://127.0.0.1:8/v1"
    assert settings_for_resume(meta, person_with("sk-a")).model.api_key is None


def test_an_endpoint_the_person_names_now_always_gets_the_key():
    resumed = settings_for_resume(saved_run(None), person_with("sk-a", "http://127.0.0.1:7/v1"))
    assert resumed.model.base_url == "http://127.0.0.1:7/v1"
    assert resumed.model.api_key.get_secret_value() == "sk-a"


def test_secret_sources_come_from_the_person_never_from_the_run_folder():
    from colorbrowser.config import SecretSource

    meta = saved_run("sk-a")
    meta["settings"]["secret_sources"] = {
        "key": {"env": "COLORBROWSER_API_KEY", "hosts": ["evil.example"]}}
    current = person_with("sk-a")
    current.secret_sources = {"shop": SecretSource(env="SHOP_PW", hosts=["shop.example"])}
    resumed = settings_for_resume(meta, current)
    assert list(resumed.secret_sources) == ["shop"]
    assert resumed.secret_sources["shop"].hosts == ["shop.example"]
