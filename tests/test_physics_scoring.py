"""Scoring CLEVRER-format questions and the language-only baselines."""

from __future__ import annotations

import pytest

from data_support import real_data
from taskqa.physics.baselines import TextOnlyBaseline, baseline_predictions
from taskqa.physics.clevrer_questions import parse_questions, read_questions
from taskqa.physics.scoring import score, split_scenes

REAL = real_data("clevrer_humans/train.json")  # ../shared/data, else the data cache
HUMANS = REAL.root / "clevrer_humans" / "train.json"
realdata = REAL.mark

QUESTIONS = [
    {
        "scene_index": 1,
        "questions": [
            {
                "question_id": 0,
                "question": "What color is the cube?",
                "question_type": "descriptive",
                "answer": "red",
            },
            {
                "question_id": 1,
                "question": "Which of the following is responsible for the red cube hits the ball?",
                "question_type": "explanatory",
                "choices": [
                    {"choice_id": 0, "choice": "the ball enters", "answer": "correct"},
                    {"choice_id": 1, "choice": "the cylinder stops", "answer": "wrong"},
                ],
            },
            {
                "question_id": 2,
                "question": "What will happen next?",
                "question_type": "predictive",
                "choices": [
                    {"choice_id": 0, "choice": "the cube exits", "answer": "wrong"},
                    {"choice_id": 1, "choice": "the ball hits the cylinder", "answer": "correct"},
                ],
            },
        ],
    }
]


def test_per_option_and_per_question_accuracy_by_type() -> None:
    scenes = parse_questions(QUESTIONS, "q.json")
    predictions = {
        (1, 0, None): "red",
        (1, 1, 0): "correct",
        (1, 1, 1): "correct",  # one of two options wrong
        (1, 2, 0): "wrong",
        (1, 2, 1): "correct",
    }
    rows = {row.question_type: row for row in score(scenes, predictions)}
    assert rows["descriptive"].per_question == 1.0 and rows["descriptive"].options == 1
    assert rows["explanatory"].per_option == 0.5 and rows["explanatory"].per_question == 0.0
    assert rows["predictive"].per_option == 1.0 and rows["predictive"].per_question == 1.0
    assert rows["all"].options == 5 and rows["all"].options_right == 4
    assert rows["all"].questions_right == 2
    # A missing prediction is wrong, like an executor's "error".
    del predictions[(1, 2, 1)]
    rows = {row.question_type: row for row in score(scenes, predictions)}
    assert rows["predictive"].per_option == 0.5 and rows["predictive"].per_question == 0.0


def test_text_only_baseline_learns_word_cues() -> None:
    # "enters" choices are always correct here, "stops" choices always wrong.
    raw = [
        {
            "scene_index": i,
            "questions": [
                {
                    "question_id": 0,
                    "question": f"Which of the following is responsible for the {c} cube hits the ball?",
                    "question_type": "explanatory",
                    "choices": [
                        {"choice_id": 0, "choice": f"the {c} ball enters", "answer": "correct"},
                        {"choice_id": 1, "choice": f"the {c} cylinder stops", "answer": "wrong"},
                    ],
                }
            ],
        }
        for i, c in enumerate(["red", "blue", "green", "gray", "cyan"] * 4)
    ]
    scenes = parse_questions(raw, "q.json")
    train, validation = split_scenes(scenes)
    assert len(train) == 16 and len(validation) == 4
    assert not {s.scene_index for s in train} & {s.scene_index for s in validation}
    model = TextOnlyBaseline.fit(train)
    assert score(validation, model.predict(validation))[-1].per_question == 1.0
    assert score(validation, baseline_predictions("prior", train, validation))[-1].per_option == 0.5
    with pytest.raises(ValueError, match="unknown baseline"):
        baseline_predictions("oracle", train, validation)


@realdata
def test_baselines_on_the_released_file() -> None:
    scenes = read_questions(HUMANS)
    train, validation = split_scenes(scenes)
    assert len(train) == 228 and len(validation) == 57
    prior = score(validation, baseline_predictions("prior", train, validation))[-1]
    text = score(validation, baseline_predictions("text-only", train, validation))[-1]
    assert prior.options == text.options == 137
    # The training majority is "wrong"; the validation split happens to lean "correct".
    assert prior.per_option == pytest.approx(61 / 137)
    # Language alone barely helps on human-written causal questions: near chance.
    assert 0.35 <= text.per_option <= 0.65
    # It does fit its own training data better than the prior does.
    fitted = score(train, baseline_predictions("text-only", train, train))[-1]
    assert (
        fitted.per_option > score(train, baseline_predictions("prior", train, train))[-1].per_option
    )
