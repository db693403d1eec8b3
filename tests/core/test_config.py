"""Settings come from defaults, a TOML file, env vars and flags; mistakes are one line."""

import json

import pytest

from colorbrowser.config import load_settings
from colorbrowser.errors import ConfigError


def test_defaults_mean_offline_model_and_headless_browser(tmp_path):
    s = load_settings(None, environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert s.model.is_offline_default
    assert s.browser.headless
    assert s.agent.max_steps == 30


def test_file_then_env_then_flags_each_win_over_the_previous(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[model]\nbase_url = "http://file"\nmodel = "m-file"\n[agent]\nmax_steps = 7\n')
    env = {"OPENAI_BASE_URL": "http://openai-env", "COLORBROWSER_MODEL": "m-env"}
    s = load_settings(cfg, {("agent", "max_steps"): 3}, environ=env)
    assert s.model.base_url == "http://openai-env"
    assert s.model.model == "m-env"
    assert s.agent.max_steps == 3
    both = {"OPENAI_BASE_URL": "http://openai", "COLORBROWSER_BASE_URL": "http://ours"}
    assert load_settings(cfg, environ=both).model.base_url == "http://ours"


def test_api_key_is_secret_in_dumps(tmp_path):
    env = {"OPENAI_API_KEY": "sk-very-secret-123", "XDG_CONFIG_HOME": str(tmp_path)}
    s = load_settings(None, environ=env)
    assert s.secrets() == ["sk-very-secret-123"]
    assert "sk-very-secret-123" not in str(s.model_dump(mode="json"))
    assert "sk-very-secret-123" not in repr(s)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[model\nbase_url=1", "not valid TOML"),
        ("[agent]\nmax_steps = 0\n", "agent.max_steps"),
        ("[agent]\nmax_step = 5\n", "agent.max_step"),
        ("[browser]\nheadless = 'maybe'\n", "browser.headless"),
        ("model = 3\n", "model"),
    ],
)
def test_broken_config_files_give_one_line_naming_the_key(tmp_path, text, message):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=message) as err:
        load_settings(cfg, environ={})
    assert "\n" not in str(err.value)


def test_missing_explicit_config_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml", environ={})


@pytest.mark.parametrize(
    ("environ", "overrides"),
    [
        ({}, {("agent", "max_steps"): 0}),
        ({"COLORBROWSER_BASE_URL": "http://x"}, {("agent", "summary_budget"): 5}),
        ({"CHROMIUM_PATH": "/bin/sh", "COLORBROWSER_RUNS": "r"}, {("agent", "max_cost"): -1.0}),
    ],
)
def test_a_bad_flag_is_blamed_on_the_command_line_not_a_missing_file(tmp_path, environ,
                                                                     overrides):
    env = {"XDG_CONFIG_HOME": str(tmp_path), **environ}  # no config file exists
    with pytest.raises(ConfigError) as err:
        load_settings(None, overrides, environ=env)
    assert str(err.value).startswith("command line: agent.")
    assert "config.toml" not in str(err.value)


def test_a_bad_file_value_still_names_the_file(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[agent]\nmax_steps = 0\n")
    with pytest.raises(ConfigError, match=r"^config file .*c\.toml: agent\.max_steps"):
        load_settings(cfg, {("agent", "memory"): "full"}, environ={"COLORBROWSER_MODEL": "m"})



@pytest.mark.parametrize("url", ["::::", "http://[::1", "localhost:8000", "http://",
                                 "http:///v1", "http://h:99999/v1", "http://h o/v1",
                                 "ftp://h/v1", "http://h/v1\n"])
def test_a_malformed_base_url_is_one_line_naming_where_it_came_from(tmp_path, url):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"[summarizer_model]\nbase_url = {json.dumps(url)}\n")
    no_file = {"XDG_CONFIG_HOME": str(tmp_path)}
    for path, overrides, environ, source in [
        (None, None, {**no_file, "COLORBROWSER_BASE_URL": url},
         "environment variable COLORBROWSER_BASE_URL: model.base_url: "),
        (None, None, {**no_file, "OPENAI_BASE_URL": url},
         "environment variable OPENAI_BASE_URL: model.base_url: "),
        (None, {("model", "base_url"): url}, no_file, "command line: model.base_url: "),
        (cfg, None, {}, f"config file {cfg}: summarizer_model.base_url: "),
    ]:
        with pytest.raises(ConfigError) as err:
            load_settings(path, overrides, environ=environ)
        message = str(err.value)
        assert message.startswith(source) and "\n" not in message, message


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "https://api.openai.com/v1",
                                 "http://[::1]:8080/v1", "http://user:pw@host/v1", ""])
def test_a_well_formed_base_url_is_taken_as_it_is(tmp_path, url):
    settings = load_settings(None, {("model", "base_url"): url},
                             environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.model.base_url == url


def test_a_missing_file_named_by_colorbrowser_config_is_an_error_naming_the_variable(
        tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as err:
        load_settings(None, environ={"COLORBROWSER_CONFIG": str(missing)})
    assert str(err.value) == (f"environment variable COLORBROWSER_CONFIG: config file "
                              f"{missing} does not exist")


def test_an_empty_colorbrowser_config_means_the_default_place(tmp_path):
    env = {"COLORBROWSER_CONFIG": "", "XDG_CONFIG_HOME": str(tmp_path)}
    assert load_settings(None, environ=env).agent.max_steps == 30


def test_a_password_in_a_malformed_base_url_is_not_repeated_in_the_error(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_settings(None, {("model", "base_url"): "http://me:hunter22@[::1/v1"},
                      environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert "hunter22" not in str(err.value) and "http://***@[::1/v1" in str(err.value)
