"""Accuracy on CLEVRER-format questions, per option and per question, by question type.

Per-option accuracy counts every (question, choice) pair classified right; per-question accuracy
counts questions whose every choice is right. A missing prediction counts as wrong, as an
executor's "error" output does in CLEVRER's evaluation. Descriptive questions are scored by
exact match of the answer token.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from taskqa.physics.clevrer_questions import PredictionTable, SceneQuestions

SPLIT_SEED = 2021  # CLEVRER-Humans shuffles scene ids with this seed, then splits 80/20
TRAIN_SHARE = 0.8


@dataclass(frozen=True)
class TypeScore:
    question_type: str
    questions: int
    questions_right: int
    options: int
    options_right: int

    @property
    def per_question(self) -> float:
        return self.questions_right / self.questions if self.questions else 0.0

    @property
    def per_option(self) -> float:
        return self.options_right / self.options if self.options else 0.0


def score(scenes: Sequence[SceneQuestions], predictions: PredictionTable) -> list[TypeScore]:
    """One row per question type in first-seen order, then an "all" row."""
    tallies: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for scene in scenes:
        for question in scene.questions:
            tally = tallies[question.question_type]
            if question.choices is None:
                key = (scene.scene_index, question.question_id, None)
                right = question.answer is not None and predictions.get(key) == question.answer
                outcomes = [right]
            else:
                outcomes = [
                    choice.answer is not None
                    and predictions.get((scene.scene_index, question.question_id, choice.choice_id))
                    == choice.answer
                    for choice in question.choices
                ]
            tally[0] += 1
            tally[1] += all(outcomes)
            tally[2] += len(outcomes)
            tally[3] += sum(outcomes)
    rows = [TypeScore(kind, *counts) for kind, counts in tallies.items()]
    total = [sum(row[i] for row in tallies.values()) for i in range(4)]
    return [*rows, TypeScore("all", *total)]


def split_scenes(
    scenes: Sequence[SceneQuestions], seed: int = SPLIT_SEED
) -> tuple[list[SceneQuestions], list[SceneQuestions]]:
    """Train and validation scenes: sorted scene ids shuffled with ``seed``, the first 80% train."""
    ids = sorted(scene.scene_index for scene in scenes)
    random.Random(seed).shuffle(ids)
    train_ids = set(ids[: int(len(ids) * TRAIN_SHARE)])
    train = [s for s in scenes if s.scene_index in train_ids]
    validation = [s for s in scenes if s.scene_index not in train_ids]
    return train, validation
