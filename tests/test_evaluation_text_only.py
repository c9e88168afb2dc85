"""The text-only classifier is fitted on one BLAS/OpenMP thread: faster than a threaded fit of
its long parameter vector, and the same predictions whatever the machine's core count."""

from __future__ import annotations

import random

import pytest
from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]
from threadpoolctl import threadpool_info, threadpool_limits  # type: ignore[import-untyped]

from taskqa.evaluation.baselines import text_only


def _questions(count: int, seed: int) -> tuple[list[str], list[str]]:
    """Templated texts whose yes/no answers are balanced per text (as text balancing leaves
    them: the classifier's ties), with some open answers."""
    rng = random.Random(seed)
    objects = ["cup", "bowl", "knife", "pan", "fridge", "drawer", "kettle", "plate"]
    texts, labels = [], []
    for index in range(count):
        thing, other = rng.sample(objects, 2)
        if index % 3:
            texts.append(f"is the {thing} open after the person used the {other}?")
            labels.append("yes" if index % 2 else "no")
        else:
            texts.append(f"what did the person take before the {thing}?")
            labels.append(rng.choice(objects))
    return texts, labels


def test_the_fit_runs_on_one_thread_and_then_gives_the_threads_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    real_fit = LogisticRegression.fit

    def recording_fit(self: LogisticRegression, *args: object, **kwargs: object) -> object:
        seen.extend(pool["num_threads"] for pool in threadpool_info())
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(LogisticRegression, "fit", recording_fit)
    train, labels = _questions(300, 0)
    test, _ = _questions(60, 1)
    with threadpool_limits(limits=2):
        before = [pool["num_threads"] for pool in threadpool_info()]
        text_only.classify_texts(train, labels, test, text_only.tfidf_features)
        after = [pool["num_threads"] for pool in threadpool_info()]
    assert seen and set(seen) == {1}
    assert after == before  # the caller's thread settings are restored


def test_predictions_do_not_depend_on_the_callers_threads() -> None:
    train, labels = _questions(600, 2)
    test, _ = _questions(200, 3)
    runs = []
    for threads in (1, 2, 4):
        with threadpool_limits(limits=threads):
            runs.append(text_only.classify_texts(train, labels, test, text_only.tfidf_features))
    assert runs[0] == runs[1] == runs[2]
    assert set(runs[0]) <= set(labels)
