"""Language-only baselines for multiple-choice questions: they never see the video.

``prior`` answers every choice with the most frequent training label. ``text-only`` is a
logistic regression per (question, choice) pair over bag-of-words features of the question and
of the choice (kept apart), plus the share of choice words that also occur in the question. It
is trained by full-batch gradient descent from zero weights, so it has no random state at all.
Both are fitted on the training scenes only and answer every question they are given.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from taskqa.physics.clevrer_questions import PredictionTable, SceneQuestions
from taskqa.physics.questions import event_of_question

BASELINES = ("text-only", "prior")
MIN_COUNT = 2  # words seen fewer times in training are dropped: they cannot generalize


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


PairRow = tuple[tuple[int, int, int], str, str, str | None]  # key, asked event, choice, answer


def _pairs(scenes: Sequence[SceneQuestions]) -> list[PairRow]:
    rows: list[PairRow] = []
    for scene in scenes:
        for question in scene.questions:
            asked = event_of_question(question.question) or question.question
            for choice in question.choices or []:
                key = (scene.scene_index, question.question_id, choice.choice_id)
                rows.append((key, asked, choice.choice, choice.answer))
    return rows


def _features(asked: str, choice: str) -> list[str]:
    question_words, choice_words = _words(asked), _words(choice)
    return [f"q:{w}" for w in question_words] + [f"c:{w}" for w in choice_words]


def _overlap(asked: str, choice: str) -> float:
    question_words, choice_words = set(_words(asked)), set(_words(choice))
    return len(question_words & choice_words) / len(choice_words) if choice_words else 0.0


@dataclass
class TextOnlyBaseline:
    vocabulary: dict[str, int]
    weights: NDArray[np.float64]

    @classmethod
    def fit(
        cls,
        scenes: Sequence[SceneQuestions],
        iterations: int = 400,
        learning_rate: float = 0.5,
        l2: float = 0.01,
    ) -> TextOnlyBaseline:
        rows = [r for r in _pairs(scenes) if r[3] is not None]
        if not rows:
            raise ValueError("no answered multiple-choice questions to train on")
        counts = Counter(f for _, asked, choice, _ in rows for f in set(_features(asked, choice)))
        kept = sorted(f for f, count in counts.items() if count >= MIN_COUNT)
        vocabulary = {feature: index for index, feature in enumerate(kept)}
        model = cls(vocabulary, np.zeros(len(vocabulary) + 2))
        x = model._matrix([(asked, choice) for _, asked, choice, _ in rows])
        y = np.array([1.0 if answer == "correct" else 0.0 for *_, answer in rows])
        for _ in range(iterations):
            p = 1.0 / (1.0 + np.exp(-(x @ model.weights)))
            gradient = x.T @ (p - y) / len(y) + l2 * np.r_[model.weights[:-1], 0.0]
            model.weights -= learning_rate * gradient
        return model

    def _matrix(self, pairs: Sequence[tuple[str, str]]) -> NDArray[np.float64]:
        width = len(self.vocabulary) + 2  # + overlap share + bias
        x = np.zeros((len(pairs), width))
        for row, (asked, choice) in enumerate(pairs):
            for feature in _features(asked, choice):
                column = self.vocabulary.get(feature)
                if column is not None:
                    x[row, column] = 1.0
            x[row, -2] = _overlap(asked, choice)
            x[row, -1] = 1.0
        return x

    def predict(self, scenes: Sequence[SceneQuestions]) -> PredictionTable:
        rows = _pairs(scenes)
        if not rows:
            return {}
        scores = self._matrix([(asked, choice) for _, asked, choice, _ in rows]) @ self.weights
        return {
            key: "correct" if value > 0 else "wrong"
            for (key, *_), value in zip(rows, scores, strict=True)
        }


def prior_predictions(
    train: Sequence[SceneQuestions], scenes: Sequence[SceneQuestions]
) -> PredictionTable:
    labels = Counter(answer for *_, answer in _pairs(train) if answer is not None)
    # Ties go to "wrong", which is also the majority label of the released file.
    majority = "correct" if labels["correct"] > labels["wrong"] else "wrong"
    return {key: majority for key, *_ in _pairs(scenes)}


def baseline_predictions(
    name: str, train: Sequence[SceneQuestions], scenes: Sequence[SceneQuestions]
) -> PredictionTable:
    if name == "prior":
        return prior_predictions(train, scenes)
    if name == "text-only":
        return TextOnlyBaseline.fit(train).predict(scenes)
    raise ValueError(f"unknown baseline {name!r}; expected one of {', '.join(BASELINES)}")
