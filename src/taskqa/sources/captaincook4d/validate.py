"""``taskqa validate`` for CaptainCook4D and ProMQA files: recognise a file, report every problem.

A file is recognised by its name (or, renamed, by its shape). It is checked on its own and then
against the files that sit beside it in the release layout: the global ids of
``error_annotations.json`` against ``step_idx_description.json``, its descriptions against the
recipes' task graphs, and the local ids of ProMQA's cleaned file against ``graphs.json``. A sibling
that is absent or unreadable is skipped here; validating it reports its own problems.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any

from taskqa.jsonio import load_json
from taskqa.model import TaskGraph
from taskqa.problems import InvalidInputError, Problem
from taskqa.sources.captaincook4d.checks import (
    check_catalog,
    check_cleaned_annotations,
    check_error_annotations,
    check_step_annotations,
    cleaned_id_problems,
    error_steps,
    load_beside,
    localizers,
    mapping_problems,
    plain_steps,
    read_durations,
    unknown_global_problems,
)
from taskqa.sources.captaincook4d.graphs import (
    COMPLETE_FILE,
    GRAPH_FOLDER,
    check_graph_data,
    check_graphs_json,
    collect_task_graphs,
)
from taskqa.sources.captaincook4d.reader import ANNOTATIONS, CATALOG_FILE, check_release


class FileKind(StrEnum):
    ERROR_ANNOTATIONS = "error_annotations.json"
    CLEANED_ANNOTATIONS = "cleaned_error_annotations.json"
    STEP_ANNOTATIONS = "step_annotations.json"
    COMPLETE_ANNOTATIONS = "complete_step_annotations.json"
    STEP_CATALOG = "step_idx_description.json"
    TASK_GRAPH = "task_graphs/<recipe>.json"
    GRAPHS = "graphs.json"
    VIDEO_INFORMATION = "video_information.csv"


_BY_NAME = {kind.value: kind for kind in FileKind if "<" not in kind.value}
_BY_NAME["original_updated.json"] = FileKind.CLEANED_ANNOTATIONS  # ProMQA's own output name
_EXPECTED = ", ".join(kind.value for kind in FileKind)


def detect_captaincook4d(path: Path) -> bool:
    """Whether ``path`` is a CaptainCook4D/ProMQA file or folder this module can validate."""
    if path.is_dir():
        return (
            (path / ANNOTATIONS / FileKind.ERROR_ANNOTATIONS.value).is_file()
            or (path.name == GRAPH_FOLDER and any(path.glob("*.json")))
            or any((path / name).is_file() for name in _BY_NAME)
        )
    if not path.is_file():
        return False
    if _kind_by_name(path) is not None:
        return True
    if path.suffix != ".json":
        return False
    try:
        return _kind_by_shape(load_json(path)) is not None
    except InvalidInputError:
        return False


def validate_captaincook4d_file(path: Path) -> list[Problem]:
    """Every problem of one file (or of a whole release folder), each with file and record path.

    An empty list means the file is usable. A folder is the CaptainCook4D release itself (the
    checks ``read_captaincook4d`` makes), a ``task_graphs/`` folder, or any folder whose
    recognised files are validated one by one.
    """
    if path.is_dir():
        return _validate_folder(path)
    if not path.is_file():
        return [Problem(str(path), "", "file not found")]
    kind = _kind_by_name(path)
    if kind is FileKind.VIDEO_INFORMATION:
        return read_durations(path)[1]
    if kind is None and path.suffix != ".json":
        return [_unrecognised(path)]
    try:
        data = load_json(path)
    except InvalidInputError as error:
        return error.problems
    kind = kind or _kind_by_shape(data)
    if kind is None:
        return [_unrecognised(path)]
    return _CHECKS[kind](path, data)


def _unrecognised(path: Path) -> Problem:
    message = f"not one of the CaptainCook4D/ProMQA files taskqa checks; expected {_EXPECTED}"
    return Problem(str(path), "", message)


def _validate_folder(folder: Path) -> list[Problem]:
    if (folder / ANNOTATIONS).is_dir():
        return check_release(folder)[1]
    if folder.name == ANNOTATIONS and (folder / FileKind.ERROR_ANNOTATIONS.value).is_file():
        return check_release(folder.parent)[1]
    if folder.name == GRAPH_FOLDER:
        return collect_task_graphs(folder)[1]
    problems: list[Problem] = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and _kind_by_name(path) is not None:
            problems.extend(validate_captaincook4d_file(path))
    return problems


def _kind_by_name(path: Path) -> FileKind | None:
    if path.parent.name == GRAPH_FOLDER and path.suffix == ".json":
        return FileKind.TASK_GRAPH
    return _BY_NAME.get(path.name)


def _kind_by_shape(data: Any) -> FileKind | None:
    """Recognise a renamed file by the keys of its first record."""
    if isinstance(data, list) and data and isinstance(data[0], dict):
        if "step_annotations" in data[0]:
            cleaned = "activity_name" in data[0]
            return FileKind.CLEANED_ANNOTATIONS if cleaned else FileKind.ERROR_ANNOTATIONS
        return None
    if not isinstance(data, dict) or not data:
        return None
    if "steps" in data and "edges" in data:
        return FileKind.TASK_GRAPH
    if all(key.isdigit() and isinstance(text, str) for key, text in data.items()):
        return FileKind.STEP_CATALOG
    first = next(iter(data.values()))
    if not isinstance(first, dict):
        return None
    if "edges" in first and "steps" in first:
        return FileKind.GRAPHS
    if "steps" in first and "recording_id" in first:
        return (
            FileKind.COMPLETE_ANNOTATIONS if "activity_id" in first else FileKind.STEP_ANNOTATIONS
        )
    return None


def _error_annotations(path: Path, data: Any) -> list[Problem]:
    records, problems = check_error_annotations(data, str(path))
    catalog = _catalog_beside(path)
    if catalog is not None:
        problems.extend(unknown_global_problems(str(path), error_steps(records), catalog))
    graphs = _task_graphs_beside(path)
    if graphs is not None:
        problems.extend(mapping_problems(str(path), records, localizers(graphs, catalog)))
    return problems


def _cleaned_annotations(path: Path, data: Any) -> list[Problem]:
    records, problems = check_cleaned_annotations(data, str(path))
    graphs_data = load_beside(path.parent / FileKind.GRAPHS.value)
    if graphs_data is not None:
        graphs, found = check_graphs_json(graphs_data, FileKind.GRAPHS.value)
        if not found:
            problems.extend(cleaned_id_problems(str(path), records, graphs))
    return problems


def _step_annotations(path: Path, data: Any, *, complete: bool) -> list[Problem]:
    records, problems = check_step_annotations(data, str(path), complete=complete)
    catalog = _catalog_beside(path)
    if catalog is not None:
        problems.extend(unknown_global_problems(str(path), plain_steps(records), catalog))
    return problems


def _task_graph(path: Path, data: Any) -> list[Problem]:
    return check_graph_data(data, path.stem, str(path))[1]


def _catalog_beside(path: Path) -> dict[int, str] | None:
    data = load_beside(path.parent / CATALOG_FILE)
    if data is None or path.name == CATALOG_FILE:
        return None
    catalog, problems = check_catalog(data, CATALOG_FILE)
    return None if problems else catalog


def _task_graphs_beside(path: Path) -> dict[int, TaskGraph] | None:
    """The release's graphs when ``path`` sits in ``annotation_json/`` of a readable release."""
    folder = path.parent.parent / GRAPH_FOLDER
    if not folder.is_dir() or not (path.parent / COMPLETE_FILE).is_file():
        return None
    graphs, problems = collect_task_graphs(folder)
    return None if problems else graphs


_CHECKS: dict[FileKind, Callable[[Path, Any], list[Problem]]] = {
    FileKind.ERROR_ANNOTATIONS: _error_annotations,
    FileKind.CLEANED_ANNOTATIONS: _cleaned_annotations,
    FileKind.STEP_ANNOTATIONS: lambda path, data: _step_annotations(path, data, complete=False),
    FileKind.COMPLETE_ANNOTATIONS: lambda path, data: _step_annotations(path, data, complete=True),
    FileKind.STEP_CATALOG: lambda path, data: check_catalog(data, str(path))[1],
    FileKind.TASK_GRAPH: _task_graph,
    FileKind.GRAPHS: lambda path, data: check_graphs_json(data, str(path))[1],
}
