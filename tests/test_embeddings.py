"""The packaged sentence embedder loads offline and ranks paraphrases above unrelated text."""

from __future__ import annotations

import numpy as np
import pytest

from taskqa.embeddings import (
    DIMENSION,
    EmbeddingModelMissingError,
    SentenceEmbedder,
    _package_dir,
    default_embedder,
)


def test_unit_vectors_that_rank_paraphrases_first() -> None:
    texts = [
        "apple is heated, then sliced",
        "the apple is warmed and then cut",
        "stock prices fell sharply",
    ]
    vectors = default_embedder().embed(texts)
    assert vectors.shape == (3, DIMENSION)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.6 > 0.3 > similarity[0, 2]


def test_embeddings_are_deterministic_and_batch_independent() -> None:
    texts = [f"{word} is cleaned in a SinkBasin" for word in ("apple", "mug", "plate", "egg")]
    together = default_embedder().embed(texts, batch_size=4)
    one_by_one = default_embedder().embed(texts, batch_size=1)
    assert np.allclose(together, one_by_one, atol=1e-5)
    assert default_embedder().embed(texts).tobytes() == together.tobytes()
    assert default_embedder().embed([]).shape == (0, DIMENSION)


def test_missing_files_give_a_clear_error(tmp_path: object) -> None:
    from pathlib import Path

    with pytest.raises(EmbeddingModelMissingError, match="does not exist"):
        SentenceEmbedder(model_path=Path("/nonexistent/model.onnx"))
    with pytest.raises(EmbeddingModelMissingError, match="not installed"):
        _package_dir("no_such_package_xyz")
