"""Annotated recordings as the prefix rule sees them: steps with times, texts and error tags.

The main input is ProMQA's ``cleaned_error_annotations.json`` (CaptainCook4D's error annotations
after ProMQA's corrections: local step ids, START prepended, steps sorted). Recordings built by
``taskqa.sources.captaincook4d`` or by the simulated world enter through ``from_recording`` and
then follow exactly the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.jsonio import load_json
from taskqa.problems import InvalidInputError, Problem

MISSING_TAG = "Missing Step"
START_STEP_ID = -1
START_DESCRIPTION = "Start-Start cooking."


@dataclass(frozen=True)
class StepError:
    tag: str
    description: str

    def as_json(self) -> dict[str, str]:
        return {"tag": self.tag, "description": self.description}


@dataclass(frozen=True)
class AnnotatedStep:
    step_id: int  # local task-graph id; -1 for START
    description: str
    start_time: float
    end_time: float
    errors: tuple[StepError, ...] = ()
    modified_description: str | None = None

    @property
    def is_missing(self) -> bool:
        return self.end_time < 0 or any(error.tag == MISSING_TAG for error in self.errors)

    @property
    def shown_description(self) -> str:
        """What was really done: the corrected description when annotators wrote one."""
        return self.modified_description or self.description

    def tags(self) -> set[str]:
        return {error.tag for error in self.errors}


@dataclass(frozen=True)
class AnnotatedRecording:
    recording_id: str
    activity_id: int
    activity_name: str
    steps: tuple[AnnotatedStep, ...]


def load_cleaned_annotations(path: Path) -> list[AnnotatedRecording]:
    """Read ``cleaned_error_annotations.json``; every problem is reported with its record path."""
    return recordings_from_json(load_json(path), str(path))


def recordings_from_json(data: Any, file: str) -> list[AnnotatedRecording]:
    if not isinstance(data, list):
        raise InvalidInputError([Problem(file, "", "expected a list of recordings")])
    problems: list[Problem] = []
    recordings = []
    for index, entry in enumerate(data):
        recording = _recording(entry, file, index, problems)
        if recording is not None:
            recordings.append(recording)
    if problems:
        raise InvalidInputError(problems)
    return recordings


def _recording(
    entry: Any, file: str, index: int, problems: list[Problem]
) -> AnnotatedRecording | None:
    if not isinstance(entry, dict):
        problems.append(Problem.at(file, [index], "expected a recording object"))
        return None
    before = len(problems)
    recording_id = _field(entry, "recording_id", str, file, [index], problems)
    activity_id = _field(entry, "activity_id", int, file, [index], problems)
    name = _field(entry, "activity_name", str, file, [index], problems)
    raw_steps = _field(entry, "step_annotations", list, file, [index], problems)
    steps = [
        _step(raw, file, [index, "step_annotations", position], problems)
        for position, raw in enumerate(raw_steps or [])
    ]
    if len(problems) > before:
        return None
    return AnnotatedRecording(
        recording_id, activity_id, name, tuple(s for s in steps if s is not None)
    )


def _step(
    raw: Any, file: str, at: list[str | int], problems: list[Problem]
) -> AnnotatedStep | None:
    if not isinstance(raw, dict):
        problems.append(Problem.at(file, at, "expected a step object"))
        return None
    before = len(problems)
    step_id = _field(raw, "step_id", int, file, at, problems)
    description = _field(raw, "description", str, file, at, problems)
    start = _field(raw, "start_time", float, file, at, problems)
    end = _field(raw, "end_time", float, file, at, problems)
    modified = raw.get("modified_description")
    if modified is not None and not isinstance(modified, str):
        problems.append(Problem.at(file, [*at, "modified_description"], "expected a string"))
    errors = _errors(raw.get("errors", []), file, [*at, "errors"], problems)
    if len(problems) > before:
        return None
    return AnnotatedStep(step_id, description, start, end, errors, modified)


def _errors(
    raw: Any, file: str, at: list[str | int], problems: list[Problem]
) -> tuple[StepError, ...]:
    if not isinstance(raw, list):
        problems.append(Problem.at(file, at, "expected a list of {tag, description}"))
        return ()
    errors = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(key), str) for key in ("tag", "description")
        ):
            message = f"expected {{tag, description}} strings (got {item!r})"
            problems.append(Problem.at(file, [*at, index], message))
            continue
        errors.append(StepError(item["tag"], item["description"]))
    return tuple(errors)


def _field(
    entry: dict[str, Any],
    key: str,
    kind: type,
    file: str,
    at: Sequence[str | int],
    problems: list[Problem],
) -> Any:
    if key not in entry:
        problems.append(Problem.at(file, [*at, key], f"missing; expected a {_KIND_NAMES[kind]}"))
        return None
    value = entry[key]
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok:
        message = f"expected a {_KIND_NAMES[kind]} (got {value!r})"
        problems.append(Problem.at(file, [*at, key], message))
        return None
    return float(value) if kind is float else value


_KIND_NAMES: dict[type, str] = {str: "string", int: "integer", float: "number", list: "list"}


def restrict(
    recordings: Sequence[AnnotatedRecording], recording_ids: Sequence[str]
) -> list[AnnotatedRecording]:
    """The recordings named in ``recording_ids`` (e.g. the 363 with 4K video), in file order."""
    wanted = set(recording_ids)
    return [recording for recording in recordings if recording.recording_id in wanted]


def load_recording_ids(path: Path) -> list[str]:
    data = load_json(path)
    if not isinstance(data, list) or not all(isinstance(item, str) for item in data):
        raise InvalidInputError([Problem(str(path), "", "expected a JSON list of recording ids")])
    return data
