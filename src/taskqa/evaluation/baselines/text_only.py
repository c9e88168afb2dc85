"""Language-only baselines: a classifier over the training answers from the question text alone.

They stand in for the paper's language-only (BERT) rows: whatever they get right, a model can get
right without looking at the video. Two featurizations share one classifier (multinomial
logistic regression, lbfgs): TF-IDF of word uni- and bigrams, and the offline MiniLM sentence
embeddings of ``taskqa.embeddings``.

The classifier is fitted with BLAS and OpenMP held to one thread. Its parameters are one long
vector (classes x features: 337 x 1,034 on the 150-episode simulated benchmark), and L-BFGS
spends most of its time in level-1 BLAS calls on it (dot products, axpy), thousands per fit:
OpenBLAS split each over every core and woke its threads for every call, which cost four times
the single-threaded time on a shared two-core machine (50 s against 11.5 s of fitting) and made
the result depend on the core count: a threaded dot product sums in another order, L-BFGS
takes another path, and on a text-balanced benchmark, where many test texts are yes/no ties to
a few 1e-6, the tied questions flip (289 of 2,245 between one and two threads). One thread
gives the same predictions on every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

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
    # one thread: faster here and the same result on any machine (see the module's docstring)
    with threadpool_limits(limits=1):
        model.fit(train_x, labels)
        predicted: NDArray[np.str_] = model.predict(test_x)
    return [str(p) for p in predicted]
