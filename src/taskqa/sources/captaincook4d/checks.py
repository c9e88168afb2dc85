"""Checks of each CaptainCook4D/ProMQA annotation file, alone and against the files beside it.

Every check returns what it could parse together with every problem it found, so a caller can
report all problems of all files at once.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from taskqa.jsonio import load_json
from taskqa.model import TaskGraph
from taskqa.problems import InvalidInputError, Problem
from taskqa.sources.captaincook4d.graphs import activity_names, graph_file_name
from taskqa.sources.captaincook4d.mapping import StepLocalizer
from taskqa.sources.captaincook4d.raw import (
    START_STEP_ID,
    RawCleanedRecording,
    RawCompleteRecording,
    RawErrorRecording,
    RawStepRecording,
    parse_list,
    parse_mapping,
    repeat_problems,
    step_problems,
    time_order,
)

DURATION_COLUMN = "duration(sec)"
ID_COLUMN = "recording_id"

Indexed = list[tuple[int, RawErrorRecording]]


def check_error_annotations(data: Any, file: str) -> tuple[Indexed, list[Problem]]:
    """``error_annotations.json``: a list of recordings with global step ids."""
    records, problems = parse_list(data, RawErrorRecording, file, "recordings")
    problems.extend(_record_problems(file, records))
    return records, problems


def check_cleaned_annotations(
    data: Any, file: str
) -> tuple[list[tuple[int, RawCleanedRecording]], list[Problem]]:
    """ProMQA's ``cleaned_error_annotations.json``: the same list with task-graph-local ids."""
    records, problems = parse_list(data, RawCleanedRecording, file, "recordings")
    problems.extend(_record_problems(file, records))
    return records, problems


def _record_problems(file: str, records: Sequence[tuple[int, RawErrorRecording]]) -> list[Problem]:
    problems = repeat_problems(
        file, (([index, "recording_id"], r.recording_id) for index, r in records), "recording"
    )
    for index, record in records:
        for position, step in enumerate(record.step_annotations):
            problems.extend(step_problems(file, [index, "step_annotations", position], step))
    return problems


def check_step_annotations(
    data: Any, file: str, *, complete: bool
) -> tuple[dict[str, RawStepRecording], list[Problem]]:
    """``step_annotations.json`` or, with ``complete``, ``complete_step_annotations.json``."""
    model = RawCompleteRecording if complete else RawStepRecording
    records, problems = parse_mapping(data, model, file, "recordings keyed by recording id")
    for key, record in records:
        if record.recording_id != key:
            message = f"recording_id {record.recording_id!r} differs from its key {key!r}"
            problems.append(Problem.at(file, [key, "recording_id"], f"{message}; expected equal"))
        for position, step in enumerate(record.steps):
            problems.extend(step_problems(file, [key, "steps", position], step))
    if complete:
        complete_records = [(k, r) for k, r in records if isinstance(r, RawCompleteRecording)]
        activity_names(file, complete_records, problems)
    return dict(records), problems


def check_catalog(data: Any, file: str) -> tuple[dict[int, str], list[Problem]]:
    """``step_idx_description.json``: ``{global step id: description}``."""
    if not isinstance(data, dict):
        return {}, [Problem.at(file, [], "expected a JSON object {global step id: description}")]
    catalog: dict[int, str] = {}
    problems = []
    for key, text in data.items():
        if not key.isdigit():
            message = f"key {key!r} is not a step id; expected a positive integer"
            problems.append(Problem.at(file, [key], message))
        elif not isinstance(text, str):
            message = f"expected the step's description as a string (got {type(text).__name__})"
            problems.append(Problem.at(file, [key], message))
        else:
            catalog[int(key)] = text
    return catalog, problems


def read_durations(path: Path) -> tuple[dict[str, float], list[Problem]]:
    """``metadata/video_information.csv``: each recording's duration in seconds."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return {}, [Problem(str(path), "", f"cannot read the file: {error}")]
    rows = csv.DictReader(io.StringIO(text))
    absent = [c for c in (ID_COLUMN, DURATION_COLUMN) if c not in (rows.fieldnames or [])]
    if absent:
        message = (
            f"the header lacks {', '.join(absent)}; expected {ID_COLUMN} and {DURATION_COLUMN}"
        )
        return {}, [Problem(str(path), "", message)]
    durations: dict[str, float] = {}
    problems: list[Problem] = []
    for index, row in enumerate(rows):
        recording, value = row[ID_COLUMN], row[DURATION_COLUMN]
        seconds = _seconds(value)
        if seconds is None:
            message = f"expected a duration in seconds >= 0 (got {value!r}) on line {index + 2}"
            problems.append(Problem.at(path, [index, DURATION_COLUMN], message))
        elif recording in durations:
            message = f"recording {recording!r} is listed twice (line {index + 2}); expected once"
            problems.append(Problem.at(path, [index, ID_COLUMN], message))
        else:
            durations[recording] = seconds
    return durations, problems


def _seconds(value: str | None) -> float | None:
    try:
        seconds = float(value or "")
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def unknown_global_problems(
    file: str, steps: Iterable[tuple[list[str | int], int]], catalog: Mapping[int, str]
) -> list[Problem]:
    """Step ids that ``step_idx_description.json`` does not list."""
    return [
        Problem.at(
            file,
            [*location, "step_id"],
            f"unknown global step id {step_id}; expected an id of step_idx_description.json",
        )
        for location, step_id in steps
        if step_id not in catalog
    ]


def error_steps(records: Indexed) -> list[tuple[list[str | int], int]]:
    return [
        ([index, "step_annotations", position], step.step_id)
        for index, record in records
        for position, step in enumerate(record.step_annotations)
    ]


def plain_steps(records: Mapping[str, RawStepRecording]) -> list[tuple[list[str | int], int]]:
    return [
        ([key, "steps", position], step.step_id)
        for key, record in records.items()
        for position, step in enumerate(record.steps)
    ]


def localizers(
    graphs: Mapping[int, TaskGraph], catalog: Mapping[int, str] | None
) -> dict[int, StepLocalizer]:
    return {activity: StepLocalizer(graph, catalog) for activity, graph in graphs.items()}


def local_ids(record: RawErrorRecording, localizer: StepLocalizer) -> dict[int, str | None]:
    """The local id of each step of ``record``, keyed by its position in the file."""
    steps = record.step_annotations
    order = time_order(steps)
    found = localizer.localize([(steps[i].step_id, steps[i].description) for i in order])
    return dict(zip(order, found, strict=True))


def mapping_problems(
    file: str, records: Indexed, localizers: Mapping[int, StepLocalizer]
) -> list[Problem]:
    """Recordings of activities without a graph, and steps their recipe's graph lacks."""
    problems = []
    for index, record in records:
        localizer = localizers.get(record.activity_id)
        if localizer is None:
            known = ", ".join(str(a) for a in sorted(localizers))
            message = f"no task graph for activity {record.activity_id}; expected one of {known}"
            problems.append(Problem.at(file, [index, "activity_id"], message))
            continue
        for position, local in local_ids(record, localizer).items():
            if local is None:
                step = record.step_annotations[position]
                location: list[str | int] = [index, "step_annotations", position, "description"]
                message = _unmapped(step.description, step.step_id, localizer)
                problems.append(Problem.at(file, location, message))
    return problems


def _unmapped(description: str, step_id: int, localizer: StepLocalizer) -> str:
    graph = localizer.graph
    where = f"task graph {graph.name!r} ({graph_file_name(graph.name)})"
    return (
        f"{description!r} (global step id {step_id}) is not a step of the {where}; "
        "expected the exact text of one of its steps"
    )


def cleaned_id_problems(
    file: str,
    records: Sequence[tuple[int, RawCleanedRecording]],
    graphs: Mapping[int, TaskGraph],
) -> list[Problem]:
    """In ProMQA's cleaned file, ids are local: each must be a step of the recipe's graph."""
    problems = []
    for index, record in records:
        graph = graphs.get(record.activity_id)
        if graph is None:
            message = f"no task graph for activity {record.activity_id} in graphs.json"
            problems.append(Problem.at(file, [index, "activity_id"], message))
            continue
        if record.activity_name != graph.name:
            message = f"{record.activity_name!r} differs from graphs.json's name {graph.name!r}"
            problems.append(
                Problem.at(file, [index, "activity_name"], f"{message}; expected equal")
            )
        texts = {step.id: step.text for step in graph.real_steps()}
        for position, step in enumerate(record.step_annotations):
            if step.step_id == START_STEP_ID:
                continue
            location: list[str | int] = [index, "step_annotations", position]
            text = texts.get(str(step.step_id))
            if text is None:
                message = (
                    f"step id {step.step_id} is not a step of task graph {graph.name!r}; "
                    f"expected one of its local ids {', '.join(texts)} or -1 (START)"
                )
                problems.append(Problem.at(file, [*location, "step_id"], message))
            elif text != step.description:
                message = (
                    f"{step.description!r} differs from the graph's text {text!r} for step "
                    f"{step.step_id}; expected the graph's text"
                )
                problems.append(Problem.at(file, [*location, "description"], message))
    return problems


def load_beside(path: Path) -> Any | None:
    """A sibling file's JSON when it exists and parses; it is validated on its own elsewhere."""
    if not path.is_file():
        return None
    try:
        return load_json(path)
    except InvalidInputError:
        return None
