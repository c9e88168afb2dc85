"""Language-only baselines: a classifier over the training answers from the question text alone.

They stand in for the paper's language-only (BERT) rows: whatever they get right, a model can get
right without looking at the video. Two featurizations share one classifier (multinomial
logistic regression, lbfgs, which is deterministic): TF-IDF of word uni- and bigrams, and the
offline MiniLM sentence embeddings of ``taskqa.embeddings``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from taskqa.benchmark.folder import SplitQuestion

Features = Callable[[Sequence[str], Sequence[str]], tuple[object, object]]
MAX_ITERATIONS = 500
REGULARIZATION = 10.0  # inverse strength; picked on the simulated benchmark's val split


def _texts(questions: Sequence[SplitQuestion]) -> list[str]:
    return [q.question.question for q in questions]


def tfidf_features(train: Sequence[str], test: Sequence[str]) -> tuple[object, object]:
    from sklearn.feature_extraction.text import (  # type: ignore[import-untyped]
        TfidfVectorizer,
    )

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1)
    return vectorizer.fit_transform(train), vectorizer.transform(test)


def embedding_features(train: Sequence[str], test: Sequence[str]) -> tuple[object, object]:
    from taskqa.embeddings import default_embedder

    # questions repeat a lot (same template, same clip objects); each text is embedded once
    unique = sorted(set(train) | set(test))
    vectors = default_embedder().embed(unique)
    row = {text: i for i, text in enumerate(unique)}
    return vectors[[row[t] for t in train]], vectors[[row[t] for t in test]]


def classify(
    train: Sequence[SplitQuestion], test: Sequence[SplitQuestion], features: Features
) -> list[str]:
    """Train on ``train``'s question texts and answers; predict an answer for each test text."""
    labels = [q.question.answer for q in train]
    return classify_texts(_texts(train), labels, _texts(test), features)


def classify_texts(
    train: Sequence[str], labels: Sequence[str], test: Sequence[str], features: Features
) -> list[str]:
    """The answer a text classifier trained on (``train``, ``labels``) gives each test text."""
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    classes = sorted(set(labels))
    if len(classes) == 1:
        return [classes[0]] * len(test)
    train_x, test_x = features(train, test)
    model = LogisticRegression(C=REGULARIZATION, max_iter=MAX_ITERATIONS)
    model.fit(train_x, labels)
    predicted: NDArray[np.str_] = model.predict(test_x)
    return [str(p) for p in predicted]
