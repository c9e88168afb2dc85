"""The CLEVRER annotation format: read, validate, write, and convert to ``PhysicalScene``.

One annotation file describes one video:
``{scene_index, video_filename, object_property, motion_trajectory, collision}``. Readers of the
released data index ``frame["objects"][object_id]`` directly, so the checks here insist that
every frame lists every object once, in id order, and that frames are numbered from zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.atomic import write_text
from taskqa.jsonio import dumps_compact, load_json
from taskqa.model.physics import (
    Collision,
    PhysicalObject,
    PhysicalScene,
    TrajectoryFrame,
)
from taskqa.problems import InvalidInputError, Location, Problem, problems_from_validation_error

COLORS = ("gray", "red", "blue", "green", "brown", "cyan", "purple", "yellow")
SHAPES = ("cube", "sphere", "cylinder")
MATERIALS = ("metal", "rubber")
FRAMES = 128
FPS = 25  # 128 frames make the 5.12 s of a CLEVRER video


class ClevrerAnnotation(BaseModel):
    """One CLEVRER annotation file, field for field."""

    model_config = ConfigDict(extra="forbid")

    scene_index: int = Field(ge=0)
    video_filename: str
    object_property: list[PhysicalObject]
    motion_trajectory: list[TrajectoryFrame]
    collision: list[Collision]


def annotation_problems(file: str, annotation: ClevrerAnnotation) -> list[Problem]:
    """The checks pydantic cannot express: vocabularies, id order, frame numbering."""
    problems = _object_problems(file, annotation.object_property)
    ids = [o.object_id for o in annotation.object_property]
    for index, frame in enumerate(annotation.motion_trajectory):
        where: list[str | int] = ["motion_trajectory", index]
        if frame.frame_id != index:
            problems.append(
                Problem.at(file, [*where, "frame_id"], f"expected {index} (frames count from 0)")
            )
        listed = [o.object_id for o in frame.objects]
        if listed != ids:
            problems.append(
                Problem.at(
                    file, [*where, "objects"], f"expected object ids {ids} in order, got {listed}"
                )
            )
    known = set(ids)
    frame_count = len(annotation.motion_trajectory)
    for index, collision in enumerate(annotation.collision):
        where = ["collision", index]
        unknown = [i for i in collision.object_ids if i not in known]
        if unknown:
            problems.append(Problem.at(file, [*where, "object_ids"], f"unknown ids {unknown}"))
        elif collision.object_ids[0] == collision.object_ids[1]:
            problems.append(Problem.at(file, [*where, "object_ids"], "an object cannot hit itself"))
        if collision.frame_id >= frame_count:
            problems.append(
                Problem.at(file, [*where, "frame_id"], f"expected a frame below {frame_count}")
            )
    return problems


def _object_problems(file: str, objects: list[PhysicalObject]) -> list[Problem]:
    problems = []
    vocabularies = {"color": COLORS, "shape": SHAPES, "material": MATERIALS}
    for index, obj in enumerate(objects):
        if obj.object_id != index:
            problems.append(
                Problem.at(file, ["object_property", index, "object_id"], f"expected {index}")
            )
        for field, allowed in vocabularies.items():
            value = getattr(obj, field)
            if value not in allowed:
                problems.append(
                    Problem.at(
                        file,
                        ["object_property", index, field],
                        f"expected one of {', '.join(allowed)} (got {json.dumps(value)})",
                    )
                )
    return problems


def parse_annotation(raw: Any, file: str, prefix: Location = ()) -> ClevrerAnnotation:
    """Validate parsed JSON as an annotation; every problem carries its record path."""
    try:
        annotation = ClevrerAnnotation.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(file, prefix, error)) from None
    problems = annotation_problems(file, annotation)
    if problems:
        raise InvalidInputError(problems)
    return annotation


def read_annotation(path: Path) -> ClevrerAnnotation:
    return parse_annotation(load_json(path), path.name)


def annotation_json(annotation: ClevrerAnnotation) -> str:
    """Canonical text: fixed key order, no trailing spaces, so equal scenes give equal bytes."""
    return dumps_compact(annotation.model_dump(mode="json"))


def write_annotation(path: Path, annotation: ClevrerAnnotation) -> None:
    write_text(path, annotation_json(annotation))


def annotation_filename(scene_index: int) -> str:
    return f"annotation_{scene_index:05d}.json"


def video_filename(scene_index: int) -> str:
    return f"video_{scene_index:05d}.mp4"


def to_scene(annotation: ClevrerAnnotation) -> PhysicalScene:
    return PhysicalScene(
        scene_index=annotation.scene_index,
        video_filename=annotation.video_filename,
        objects=annotation.object_property,
        trajectory=annotation.motion_trajectory,
        collisions=annotation.collision,
    )


def from_scene(scene: PhysicalScene) -> ClevrerAnnotation:
    """The annotation of a scene; events are not part of the CLEVRER file and are dropped."""
    return ClevrerAnnotation(
        scene_index=scene.scene_index,
        video_filename=scene.video_filename or video_filename(scene.scene_index),
        object_property=scene.objects,
        motion_trajectory=scene.trajectory,
        collision=scene.collisions,
    )


def read_annotation_folder(folder: Path) -> list[ClevrerAnnotation]:
    """Every ``annotation_*.json`` below ``folder`` in scene order; all problems at once."""
    paths = sorted(folder.rglob("annotation_*.json"))
    if not paths:
        raise InvalidInputError([Problem(str(folder), "", "no annotation_*.json files found")])
    annotations: list[ClevrerAnnotation] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            annotations.append(read_annotation(path))
        except InvalidInputError as error:
            problems.extend(error.problems)
    if problems:
        raise InvalidInputError(problems)
    return sorted(annotations, key=lambda a: a.scene_index)
