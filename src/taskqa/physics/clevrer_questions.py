"""CLEVRER question files and prediction files.

Two layouts exist: CLEVRER's own list, ``[{scene_index, video_filename, questions}]``, and the
CLEVRER-Humans release, an object keyed by the scene index as a string, ``{"127": {questions}}``.
Both read into the same ``SceneQuestions`` list; writing picks the layout explicitly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.atomic import write_text
from taskqa.jsonio import dumps, load_json
from taskqa.problems import InvalidInputError, Location, Problem, problems_from_validation_error

QuestionType = Literal["descriptive", "explanatory", "predictive", "counterfactual"]
ChoiceAnswer = Literal["correct", "wrong"]
MULTIPLE_CHOICE_TYPES = ("explanatory", "predictive", "counterfactual")


class Choice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    choice_id: int = Field(ge=0)
    choice: str
    program: list[str] | None = None
    answer: ChoiceAnswer | None = None  # test files carry no answers


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question_id: int = Field(ge=0)
    question: str
    question_type: QuestionType
    question_subtype: str | None = None
    program: list[str] | None = None
    answer: str | None = None
    choices: list[Choice] | None = None


class SceneQuestions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scene_index: int = Field(ge=0)
    video_filename: str | None = None
    questions: list[Question]


class _KeyedScene(BaseModel):
    model_config = ConfigDict(extra="forbid")

    video_filename: str | None = None
    questions: list[Question]


def parse_questions(raw: Any, file: str) -> list[SceneQuestions]:
    """Either layout; every problem carries the record path of the offending value."""
    scenes: list[SceneQuestions] = []
    problems: list[Problem] = []
    if isinstance(raw, list):
        for index, item in enumerate(raw):
            try:
                scenes.append(SceneQuestions.model_validate(item))
            except ValidationError as error:
                problems.extend(problems_from_validation_error(file, [index], error))
    elif isinstance(raw, dict):
        for key, item in raw.items():
            if not key.isdigit():
                problems.append(Problem.at(file, [key], "expected a scene index as the key"))
                continue
            try:
                keyed = _KeyedScene.model_validate(item)
            except ValidationError as error:
                problems.extend(problems_from_validation_error(file, [key], error))
                continue
            scenes.append(SceneQuestions(scene_index=int(key), **keyed.model_dump()))
    else:
        problems.append(Problem(file, "", "expected a list of scenes or an object keyed by scene"))
    if problems:
        raise InvalidInputError(problems)
    problems = _structure_problems(file, raw, scenes)
    if problems:
        raise InvalidInputError(problems)
    return scenes


def _structure_problems(file: str, raw: Any, scenes: list[SceneQuestions]) -> list[Problem]:
    keys: list[int | str] = list(range(len(scenes))) if isinstance(raw, list) else list(raw)
    problems: list[Problem] = []
    seen: set[int] = set()
    for key, scene in zip(keys, scenes, strict=True):
        if scene.scene_index in seen:
            problems.append(Problem.at(file, [key], f"scene {scene.scene_index} appears twice"))
        seen.add(scene.scene_index)
        question_ids: set[int] = set()
        for index, question in enumerate(scene.questions):
            where: Location = [key, "questions", index]
            if question.question_id in question_ids:
                problems.append(Problem.at(file, [*where, "question_id"], "duplicate id"))
            question_ids.add(question.question_id)
            problems.extend(_question_problems(file, where, question))
    return problems


def _question_problems(file: str, where: Location, question: Question) -> list[Problem]:
    if question.question_type not in MULTIPLE_CHOICE_TYPES:
        if question.choices is not None:
            return [Problem.at(file, [*where, "choices"], "descriptive questions have no choices")]
        return []
    if not question.choices:
        return [Problem.at(file, [*where, "choices"], "expected at least one choice")]
    ids = [c.choice_id for c in question.choices]
    if len(set(ids)) != len(ids):
        return [Problem.at(file, [*where, "choices"], f"duplicate choice ids in {ids}")]
    return []


def read_questions(path: Path) -> list[SceneQuestions]:
    return parse_questions(load_json(path), path.name)


def questions_json(scenes: list[SceneQuestions], keyed: bool = False) -> str:
    """CLEVRER's list layout, or with ``keyed`` the CLEVRER-Humans object layout."""
    ordered = sorted(scenes, key=lambda s: s.scene_index)
    if keyed:
        data: Any = {
            str(s.scene_index): s.model_dump(
                mode="json", exclude_none=True, exclude={"scene_index"}
            )
            for s in ordered
        }
    else:
        data = [s.model_dump(mode="json", exclude_none=True) for s in ordered]
    return dumps(data)


def write_questions(path: Path, scenes: list[SceneQuestions], keyed: bool = False) -> None:
    write_text(path, questions_json(scenes, keyed))


# --- predictions: the CLEVRER submission layout --------------------------------------------------


class ChoicePrediction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    choice_id: int
    answer: str


class QuestionPrediction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question_id: int
    answer: str | None = None
    choices: list[ChoicePrediction] | None = None


class ScenePredictions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scene_index: int
    questions: list[QuestionPrediction]


# (scene index, question id, choice id or None for open answers) -> predicted answer
PredictionTable = dict[tuple[int, int, int | None], str]


def parse_predictions(raw: Any, file: str) -> PredictionTable:
    if not isinstance(raw, list):
        raise InvalidInputError([Problem(file, "", "expected a list of scenes")])
    table: PredictionTable = {}
    problems: list[Problem] = []
    for index, item in enumerate(raw):
        try:
            scene = ScenePredictions.model_validate(item)
        except ValidationError as error:
            problems.extend(problems_from_validation_error(file, [index], error))
            continue
        for question in scene.questions:
            if question.answer is not None:
                table[(scene.scene_index, question.question_id, None)] = question.answer
            for choice in question.choices or []:
                table[(scene.scene_index, question.question_id, choice.choice_id)] = choice.answer
    if problems:
        raise InvalidInputError(problems)
    return table


def read_predictions(path: Path) -> PredictionTable:
    return parse_predictions(load_json(path), path.name)


def predictions_json(table: PredictionTable) -> str:
    scenes: dict[int, dict[int, QuestionPrediction]] = {}
    for (scene, question_id, choice_id), answer in sorted(
        table.items(),
        key=lambda item: (item[0][0], item[0][1], -1 if item[0][2] is None else item[0][2]),
    ):
        question = scenes.setdefault(scene, {}).setdefault(
            question_id, QuestionPrediction(question_id=question_id)
        )
        if choice_id is None:
            question.answer = answer
        else:
            question.choices = [
                *(question.choices or []),
                ChoicePrediction(choice_id=choice_id, answer=answer),
            ]
    data = [
        ScenePredictions(scene_index=s, questions=list(qs.values())).model_dump(exclude_none=True)
        for s, qs in scenes.items()
    ]
    return dumps(data)
