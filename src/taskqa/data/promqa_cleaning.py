"""ProMQA's cleaning of CaptainCook4D's error annotations (``cleaned_error_annotations.json``).

ProMQA (kimihiroh/promqa, ``src/preprocess/update_annotation.py``) does not publish its cleaned
file; it makes it from CaptainCook4D's ``error_annotations.json``:

1. its hand corrections, addressed by list position (``promqa_corrections.yaml``, data);
2. each recording's steps sorted by start time (stable; steps at -1 come first);
3. global step ids replaced by the task graph's local ids, found by the step's text; a text the
   graph holds at several nodes is resolved by :class:`~taskqa.sources.captaincook4d.StepLocalizer`
   (which derives ProMQA's hand-written table for activities 2, 10 and 20), a text not in the
   graph keeps its global id, as the release does;
4. ``activity_name`` added and a START step prepended that ends where the first timed step
   starts.

The output is written as the release writes it (``json.dump(..., indent=4)`` plus a newline), so
it equals the reference copy byte for byte.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from taskqa.jsonio import dumps_indented, load_json
from taskqa.problems import InvalidInputError, Location, Problem, format_location

START_STEP = {"description": "Start-Start cooking.", "step_id": -1, "start_time": 0}
_OPERATIONS = ("set", "delete", "swap", "check")
_PIN = "ProMQA's corrections need CaptainCook4D/annotations at a8a920a"


@cache
def corrections() -> list[dict[str, Any]]:
    """ProMQA's hand corrections, in the order the release applies them."""
    text = resources.files("taskqa.data").joinpath("promqa_corrections.yaml").read_text("utf-8")
    loaded: list[dict[str, Any]] = yaml.safe_load(text)
    return loaded


def clean_release(errors_path: Path, complete_path: Path, graph_folder: Path) -> str:
    """The cleaned annotations, as JSON text, from CaptainCook4D's ``error_annotations.json``,
    ``complete_step_annotations.json`` (activity names) and ``task_graphs/`` folder."""
    from taskqa.sources.captaincook4d import load_task_graphs

    raw = load_json(errors_path)
    names = activity_names(load_json(complete_path), complete_path.name)
    graphs = load_task_graphs(graph_folder, names)
    return dumps_indented(clean(raw, errors_path.name, names, graphs)) + "\n"


def clean(
    raw: Any, file: str, names: Mapping[int, str], graphs: Mapping[int, Any]
) -> list[dict[str, Any]]:
    """Apply the four cleaning steps to parsed ``error_annotations.json`` (not changed)."""
    from taskqa.sources.captaincook4d.checks import check_error_annotations

    _, problems = check_error_annotations(raw, file)
    if problems:
        raise InvalidInputError(problems)
    records: list[dict[str, Any]] = copy.deepcopy(raw)
    apply_corrections(records, file)
    missing = sorted({r["activity_id"] for r in records} - (set(graphs) & set(names)))
    if missing:
        ids = ", ".join(map(str, missing))
        raise InvalidInputError([Problem(file, "", f"no task graph or name for activities {ids}")])
    return [_cleaned(record, names, graphs) for record in records]


def apply_corrections(records: list[dict[str, Any]], file: str) -> None:
    """Apply every hand correction in place; a record that is not as expected is a problem."""
    for correction in corrections():
        index: int = correction["record"]
        if index >= len(records) or records[index].get("recording_id") != correction["recording"]:
            found = records[index].get("recording_id") if index < len(records) else None
            raise InvalidInputError(
                [
                    Problem.at(
                        file,
                        [index, "recording_id"],
                        f"ProMQA's corrections expect recording {correction['recording']!r} "
                        f"here, found {found!r}; they address records by position, as in "
                        "CaptainCook4D/annotations at a8a920a",
                    )
                ]
            )
        _apply(records[index], correction, file, index)


def _apply(record: dict[str, Any], correction: Mapping[str, Any], file: str, index: int) -> None:
    operation = next(name for name in _OPERATIONS if name in correction)
    path: list[str | int] = correction[operation]
    where = [index, *path]
    parent, key = _locate(record, path, file, where)
    absent = isinstance(parent, dict) and key not in parent
    if absent and operation != "set":  # only a `set` may add a key
        raise InvalidInputError([Problem.at(file, where, f"not found; {_PIN}")])
    if operation == "swap":
        other: list[str | int] = correction["other"]
        other_parent, other_key = _locate(record, other, file, [index, *other])
        if isinstance(other_parent, dict) and other_key not in other_parent:
            raise InvalidInputError([Problem.at(file, [index, *other], f"not found; {_PIN}")])
        parent[key], other_parent[other_key] = other_parent[other_key], parent[key]  # type: ignore[index]
        return
    current = None if absent else parent[key]  # type: ignore[index]
    if "expect" in correction and (absent or not _matches(current, correction["expect"])):
        message = f"expected {json.dumps(correction['expect'])} here before ProMQA's correction"
        raise InvalidInputError([Problem.at(file, where, message)])
    if operation == "set":
        parent[key] = copy.deepcopy(correction["value"])  # type: ignore[index]
    elif operation == "delete":
        del parent[key]  # type: ignore[arg-type]


def _locate(
    record: dict[str, Any], path: Sequence[str | int], file: str, where: Location
) -> tuple[dict[str, Any] | list[Any], str | int]:
    """The container holding the last key of ``path``, and that key (which may be absent)."""
    node: Any = record
    for depth, key in enumerate(path):
        last = depth == len(path) - 1
        in_mapping = isinstance(node, dict) and isinstance(key, str) and (last or key in node)
        in_list = isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node)
        if not (in_mapping or in_list):
            location = format_location(where[: depth + 2])
            raise InvalidInputError([Problem(file, location, f"not found; {_PIN}")])
        if last:
            return node, key
        node = node[key]
    raise AssertionError("an empty correction path")  # the registry test loads every path


def _matches(current: Any, expected: Any) -> bool:
    if isinstance(expected, dict) and isinstance(current, dict):
        return all(current.get(key) == value for key, value in expected.items())
    return bool(current == expected)


def _cleaned(
    record: dict[str, Any], names: Mapping[int, str], graphs: Mapping[int, Any]
) -> dict[str, Any]:
    from taskqa.sources.captaincook4d import StepLocalizer

    steps = sorted(record["step_annotations"], key=lambda step: step["start_time"])
    # No step catalog: the release maps by the annotated text alone and leaves a text the graph
    # lacks on its global id.
    localizer = StepLocalizer(graphs[record["activity_id"]])
    local = localizer.localize([(step["step_id"], step["description"]) for step in steps])
    for step, local_id in zip(steps, local, strict=True):
        if local_id is not None:
            step["step_id"] = int(local_id)
    first_start = next((step["start_time"] for step in steps if step["start_time"] >= 0), 0)
    cleaned = {**record, "step_annotations": [{**START_STEP, "end_time": first_start}, *steps]}
    cleaned["activity_name"] = names[record["activity_id"]]
    return cleaned


def activity_names(data: Any, file: str) -> dict[int, str]:
    """Activity id -> name from ``complete_step_annotations.json``."""
    if not isinstance(data, dict):
        raise InvalidInputError([Problem(file, "", "expected a JSON object keyed by recording")])
    names: dict[int, str] = {}
    for key, value in data.items():
        if not (
            isinstance(value, dict)
            and isinstance(value.get("activity_id"), int)
            and isinstance(value.get("activity_name"), str)
        ):
            message = "expected an object with activity_id (number) and activity_name (text)"
            raise InvalidInputError([Problem.at(file, [key], message)])
        names[value["activity_id"]] = value["activity_name"]
    return names
