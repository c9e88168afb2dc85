"""CLEVRER annotation and question files: round trips, record-path errors, the real release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from data_support import real_data
from taskqa.model.physics import PhysicalScene
from taskqa.physics.clevrer_format import (
    annotation_json,
    from_scene,
    parse_annotation,
    read_annotation,
    read_annotation_folder,
    to_scene,
    write_annotation,
)
from taskqa.physics.clevrer_questions import (
    parse_predictions,
    parse_questions,
    predictions_json,
    questions_json,
    read_questions,
)
from taskqa.physics.engine import simulate_scene
from taskqa.physics.scene import sample_scene
from taskqa.problems import InvalidInputError

REAL = real_data("clevrer_humans/train.json")  # ../shared/data, else the data cache
HUMANS = REAL.root / "clevrer_humans" / "train.json"
realdata = REAL.mark


@pytest.fixture(scope="module")
def annotation_text() -> str:
    return annotation_json(simulate_scene(sample_scene(seed=5, scene_index=2)))


@pytest.fixture
def annotation_raw(annotation_text: str) -> Any:
    return json.loads(annotation_text)  # a fresh copy: tests break it in place


def _problems(raw: Any, file: str = "annotation_00002.json") -> list[str]:
    with pytest.raises(InvalidInputError) as caught:
        parse_annotation(raw, file)
    return [str(p) for p in caught.value.problems]


def test_annotation_has_the_clevrer_fields(annotation_raw: Any) -> None:
    assert list(annotation_raw) == [
        "scene_index",
        "video_filename",
        "object_property",
        "motion_trajectory",
        "collision",
    ]
    assert annotation_raw["video_filename"] == "video_00002.mp4"
    assert len(annotation_raw["motion_trajectory"]) == 128
    motion = annotation_raw["motion_trajectory"][40]["objects"][0]
    assert set(motion) == {
        "object_id",
        "location",
        "orientation",
        "velocity",
        "angular_velocity",
        "inside_camera_view",
    }
    assert all(len(motion[k]) == 3 for k in ("location", "orientation", "velocity"))
    assert set(annotation_raw["object_property"][0]) == {"object_id", "color", "material", "shape"}


def test_annotation_round_trips_through_file_and_data_model(
    annotation_raw: Any, tmp_path: Path
) -> None:
    annotation = parse_annotation(annotation_raw, "x.json")
    path = tmp_path / "annotation_00002.json"
    write_annotation(path, annotation)
    again = read_annotation(path)
    assert again == annotation
    scene = to_scene(again)
    assert isinstance(scene, PhysicalScene)
    assert len(scene.trajectory) == 128
    assert from_scene(scene) == annotation
    assert read_annotation_folder(tmp_path) == [annotation]


def test_pydantic_errors_carry_the_record_path(annotation_raw: Any) -> None:
    del annotation_raw["motion_trajectory"][3]["objects"][1]["velocity"]
    annotation_raw["collision"].append({"object_ids": [0, 1], "frame_id": -4})
    problems = _problems(annotation_raw)
    assert (
        "annotation_00002.json.motion_trajectory[3].objects[1].velocity: field required" in problems
    )
    assert any(
        p.startswith("annotation_00002.json.collision[") and ".frame_id:" in p for p in problems
    )


def test_vocabulary_order_and_reference_errors(annotation_raw: Any) -> None:
    annotation_raw["object_property"][1]["color"] = "pink"
    frame = annotation_raw["motion_trajectory"][7]
    frame["frame_id"] = 70
    frame["objects"].reverse()
    annotation_raw["collision"].append(
        {"object_ids": [0, 42], "frame_id": 3, "location": [0, 0, 0]}
    )
    problems = _problems(annotation_raw)
    assert any(
        p.startswith("annotation_00002.json.object_property[1].color: expected one of gray")
        and '(got "pink")' in p
        for p in problems
    )
    assert (
        "annotation_00002.json.motion_trajectory[7].frame_id: expected 7 (frames count from 0)"
        in problems
    )
    assert any(
        p.startswith("annotation_00002.json.motion_trajectory[7].objects: expected object ids")
        for p in problems
    )
    assert any("object_ids: unknown ids [42]" in p for p in problems)


def test_question_files_in_both_layouts() -> None:
    listed = [
        {
            "scene_index": 4,
            "video_filename": "video_00004.mp4",
            "questions": [
                {
                    "question_id": 0,
                    "question": "How many objects are moving?",
                    "question_type": "descriptive",
                    "question_subtype": "count",
                    "program": ["objects", "filter_moving", "count"],
                    "answer": "2",
                },
                {
                    "question_id": 1,
                    "question": "Which of the following is responsible for the red cube hits the cyan ball?",
                    "question_type": "explanatory",
                    "choices": [
                        {"choice_id": 0, "choice": "the cyan ball enters", "answer": "correct"},
                        {"choice_id": 1, "choice": "the gray block stops", "answer": "wrong"},
                    ],
                },
            ],
        }
    ]
    scenes = parse_questions(listed, "q.json")
    assert json.loads(questions_json(scenes)) == listed
    keyed = json.loads(questions_json(scenes, keyed=True))
    assert list(keyed) == ["4"] and "scene_index" not in keyed["4"]
    assert parse_questions(keyed, "q.json") == scenes


def test_question_errors_carry_the_record_path() -> None:
    raw = {
        "12": {"questions": [{"question_id": 0, "question": "?", "question_type": "explanatory"}]},
        "13": {"questions": [{"question_id": 0, "question": "?", "question_type": "guess"}]},
        "x": {"questions": []},
    }
    with pytest.raises(InvalidInputError) as caught:
        parse_questions(raw, "train.json")
    problems = [str(p) for p in caught.value.problems]
    assert any(
        p.startswith('train.json["13"].questions[0].question_type: Input should be')
        for p in problems
    )
    assert "train.json.x: expected a scene index as the key" in problems
    del raw["13"], raw["x"]
    with pytest.raises(InvalidInputError) as caught:
        parse_questions(raw, "train.json")
    assert [str(p) for p in caught.value.problems] == [
        'train.json["12"].questions[0].choices: expected at least one choice'
    ]


def test_predictions_round_trip() -> None:
    table = {(3, 0, 0): "correct", (3, 0, 1): "wrong", (3, 1, None): "2", (9, 0, 0): "wrong"}
    assert parse_predictions(json.loads(predictions_json(table)), "p.json") == table
    with pytest.raises(InvalidInputError, match=r"p.json\[0\].questions: field required"):
        parse_predictions([{"scene_index": 1}], "p.json")


@realdata
def test_the_released_clevrer_humans_file_loads() -> None:
    scenes = read_questions(HUMANS)
    assert len(scenes) == 285
    questions = [q for s in scenes for q in s.questions]
    assert len(questions) == 564
    assert all(q.question_type == "explanatory" and len(q.choices or []) == 1 for q in questions)
    answers = [c.answer for q in questions for c in q.choices or []]
    assert answers.count("correct") == 268 and answers.count("wrong") == 296
    # Written back in the keyed layout, the file carries the same records.
    assert json.loads(questions_json(scenes, keyed=True)) == json.loads(HUMANS.read_text())
