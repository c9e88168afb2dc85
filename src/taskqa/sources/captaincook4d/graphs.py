"""Recipe task graphs, from ``task_graphs/*.json`` or from ProMQA's ``graphs.json``.

Raw graphs use integer local ids (keys are strings, edge endpoints are numbers); 0 is START and
the highest id is END, and ids may skip numbers (``spicedhotchocolate.json`` has no 4). The model
keeps the ids as strings so a step's id reads the same in every file taskqa writes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import networkx as nx
from pydantic import ValidationError

from taskqa.jsonio import load_json
from taskqa.model import TaskGraph, TaskStep
from taskqa.problems import InvalidInputError, Location, Problem
from taskqa.problems import problems_from_validation_error as _from_pydantic
from taskqa.sources.captaincook4d.raw import (
    RawCompleteRecording,
    RawNamedTaskGraph,
    RawTaskGraph,
    parse_mapping,
)

START_TEXT = "START"
END_TEXT = "END"
GRAPH_FOLDER = "task_graphs"
COMPLETE_FILE = "complete_step_annotations.json"
_LOCAL_ID = re.compile(r"^(0|[1-9][0-9]*)$")


def graph_file_name(activity_name: str) -> str:
    """``"Spiced Hot Chocolate"`` -> ``"spicedhotchocolate.json"``."""
    return activity_name.lower().replace(" ", "") + ".json"


def load_task_graphs(
    dir_or_graphs_json: Path, activities: Mapping[int, str] | None = None
) -> dict[int, TaskGraph]:
    """Every recipe's task graph, keyed by activity id; raises InvalidInputError on any problem.

    ``dir_or_graphs_json`` is ProMQA's ``graphs.json``, a ``task_graphs/`` folder, or the
    CaptainCook4D folder holding one. A folder's files are named after activities, so their ids
    and names come from ``activities`` or else from the release's
    ``annotation_json/complete_step_annotations.json``.
    """
    graphs, problems = collect_task_graphs(dir_or_graphs_json, activities)
    if problems:
        raise InvalidInputError(problems)
    return graphs


def collect_task_graphs(
    path: Path, activities: Mapping[int, str] | None = None
) -> tuple[dict[int, TaskGraph], list[Problem]]:
    if not path.exists():
        return {}, [Problem(str(path), "", "file or folder not found")]
    if path.is_file():
        try:
            return check_graphs_json(load_json(path), str(path))
        except InvalidInputError as error:
            return {}, error.problems
    folder = path / GRAPH_FOLDER if (path / GRAPH_FOLDER).is_dir() else path
    if activities is None:
        activities, problems = activities_beside(folder)
        if problems:
            return {}, problems
    return graphs_from_folder(folder, activities)


def activities_beside(graph_folder: Path) -> tuple[dict[int, str], list[Problem]]:
    """Activity ids and names from the ``complete_step_annotations.json`` of the same release."""
    path = graph_folder.parent / "annotation_json" / COMPLETE_FILE
    if not path.is_file():
        message = (
            f"cannot name the task graphs of {graph_folder}: {path} not found; expected the "
            "CaptainCook4D folder layout (annotation_json/ beside task_graphs/)"
        )
        return {}, [Problem(COMPLETE_FILE, "", message)]
    try:
        data = load_json(path)
    except InvalidInputError as error:
        return {}, error.problems
    recordings, problems = parse_mapping(data, RawCompleteRecording, str(path), "recordings")
    return activity_names(path.name, recordings, problems)


def activity_names(
    file: str, recordings: list[tuple[str, RawCompleteRecording]], problems: list[Problem]
) -> tuple[dict[int, str], list[Problem]]:
    """The name of each activity id, reporting recordings that name an activity differently."""
    names: dict[int, tuple[str, str]] = {}
    for key, recording in recordings:
        first = names.setdefault(recording.activity_id, (recording.activity_name, key))
        if first[0] != recording.activity_name:
            problems.append(
                Problem.at(
                    file,
                    [key, "activity_name"],
                    f"activity {recording.activity_id} is named {recording.activity_name!r} "
                    f"here but {first[0]!r} in {file}[{first[1]!r}]; expected one name per "
                    "activity",
                )
            )
    return {activity: name for activity, (name, _) in names.items()}, problems


def graphs_from_folder(
    folder: Path, activities: Mapping[int, str]
) -> tuple[dict[int, TaskGraph], list[Problem]]:
    graphs: dict[int, TaskGraph] = {}
    problems: list[Problem] = []
    for activity_id, name in sorted(activities.items()):
        path = folder / graph_file_name(name)
        if not path.is_file():
            message = (
                f"file not found; expected the task graph of activity {activity_id} ({name!r}) "
                f"in {folder.name}/, named after the activity in lower case without spaces"
            )
            problems.append(Problem(str(path), "", message))
            continue
        graph, found = read_graph_file(path, name)
        problems.extend(found)
        if graph is not None:
            graphs[activity_id] = graph
    return graphs, problems


def read_graph_file(path: Path, name: str) -> tuple[TaskGraph | None, list[Problem]]:
    try:
        data = load_json(path)
    except InvalidInputError as error:
        return None, error.problems
    return check_graph_data(data, name, str(path))


def check_graph_data(data: Any, name: str, file: str) -> tuple[TaskGraph | None, list[Problem]]:
    """One ``task_graphs/<recipe>.json`` file's parsed JSON."""
    try:
        raw = RawTaskGraph.model_validate(data)
    except ValidationError as error:
        return None, _from_pydantic(file, [], error)
    return check_task_graph(raw, name, file, [])


def check_graphs_json(data: Any, file: str) -> tuple[dict[int, TaskGraph], list[Problem]]:
    """ProMQA's ``graphs.json``: ``{activity_id: {name, steps, edges}}``."""
    entries, problems = parse_mapping(data, RawNamedTaskGraph, file, "task graphs")
    graphs: dict[int, TaskGraph] = {}
    for key, raw in entries:
        if not _LOCAL_ID.match(key):
            message = f"key {key!r} is not an activity id; expected a non-negative integer"
            problems.append(Problem.at(file, [key], message))
            continue
        graph, found = check_task_graph(raw, raw.name, file, [key])
        problems.extend(found)
        if graph is not None:
            graphs[int(key)] = graph
    return graphs, problems


def check_task_graph(
    raw: RawTaskGraph, name: str, file: str, prefix: Location
) -> tuple[TaskGraph | None, list[Problem]]:
    """Check a raw graph's ids, terminals, edges and acyclicity; build it if all is well."""
    texts, problems = _step_texts(raw, file, prefix)
    edges, edge_problems = _edges(raw, texts, file, prefix)
    problems.extend(edge_problems)
    problems.extend(_cycle_problems(raw, edges, file, prefix))
    if not texts:
        return None, problems
    end = max(texts)
    problems.extend(_terminal_problems(texts, end, file, prefix))
    if problems:
        return None, problems
    problems.extend(_reachability_problems(texts, edges, end, file, prefix))
    if problems:
        return None, problems
    try:
        graph = TaskGraph(
            name=name,
            steps=[TaskStep(id=str(i), text=texts[i]) for i in sorted(texts)],
            edges=[(str(a), str(b)) for a, b in edges],
            start="0",
            end=str(end),
        )
    except ValidationError as error:  # a safety net: the checks above mirror the model's rules
        return None, _from_pydantic(file, prefix, error)
    return graph, []


def _step_texts(
    raw: RawTaskGraph, file: str, prefix: Location
) -> tuple[dict[int, str], list[Problem]]:
    texts: dict[int, str] = {}
    problems = []
    for key, text in raw.steps.items():
        if _LOCAL_ID.match(key):
            texts[int(key)] = text
        else:
            message = f'step id {key!r} is not a number; expected a non-negative integer like "3"'
            problems.append(Problem.at(file, [*prefix, "steps", key], message))
    if not raw.steps:
        message = 'no steps; expected at least "0": "START" and the END step'
        problems.append(Problem.at(file, [*prefix, "steps"], message))
    return texts, problems


def _terminal_problems(
    texts: dict[int, str], end: int, file: str, prefix: Location
) -> list[Problem]:
    problems = []
    if 0 not in texts:
        message = 'no step "0"; expected "0": "START"'
        problems.append(Problem.at(file, [*prefix, "steps"], message))
    elif texts[0] != START_TEXT:
        message = f'step 0 is {texts[0]!r}; expected "START" (0 is the START node)'
        problems.append(Problem.at(file, [*prefix, "steps", "0"], message))
    if end != 0 and texts[end] != END_TEXT:
        message = f'the highest id {end} is {texts[end]!r}; expected "END" (END has the highest id)'
        problems.append(Problem.at(file, [*prefix, "steps", str(end)], message))
    elif end == 0:
        message = "only START; expected an END step with the highest id"
        problems.append(Problem.at(file, [*prefix, "steps"], message))
    return problems


def _edges(
    raw: RawTaskGraph, texts: dict[int, str], file: str, prefix: Location
) -> tuple[list[tuple[int, int]], list[Problem]]:
    """The edges whose endpoints are steps; each other edge and each repeat is a problem."""
    edges: list[tuple[int, int]] = []
    first: dict[tuple[int, int], int] = {}
    problems = []
    for index, (a, b) in enumerate(raw.edges):
        location = [*prefix, "edges", index]
        unknown = [endpoint for endpoint in (a, b) if endpoint not in texts]
        if unknown:
            names = " and ".join(str(u) for u in unknown)
            message = f"edge [{a}, {b}] names unknown step id {names}; expected ids from steps"
            problems.append(Problem.at(file, location, message))
        elif (a, b) in first:
            message = f"edge [{a}, {b}] repeats edges[{first[(a, b)]}]; expected each edge once"
            problems.append(Problem.at(file, location, message))
        else:
            first[(a, b)] = index
            edges.append((a, b))
    return edges, problems


def _cycle_problems(
    raw: RawTaskGraph, edges: list[tuple[int, int]], file: str, prefix: Location
) -> list[Problem]:
    """One problem per strongly connected knot of edges, so every cycle's region is named."""
    graph = nx.DiGraph(edges)
    index_of = {tuple(edge): index for index, edge in reversed(list(enumerate(raw.edges)))}
    problems = []
    knots = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    knots += [{a} for a, b in edges if a == b]
    for knot in sorted(knots, key=min):
        cycle = nx.find_cycle(graph.subgraph(knot))
        path = " -> ".join(str(a) for a, _ in cycle) + f" -> {cycle[0][0]}"
        where = ", ".join(f"edges[{index_of[(a, b)]}]" for a, b in cycle)
        message = f"the edges form a cycle {path} ({where}); expected a DAG (a -> b: a before b)"
        problems.append(Problem.at(file, [*prefix, "edges"], message))
    return problems


def _reachability_problems(
    texts: dict[int, str], edges: list[tuple[int, int]], end: int, file: str, prefix: Location
) -> list[Problem]:
    # Runs only on graphs without edge problems, so ``edges`` still has the file's indices.
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(texts)
    after_start = nx.descendants(graph, 0)
    before_end = nx.ancestors(graph, end)
    problems = []
    for index, (a, b) in enumerate(edges):
        if b == 0 or a == end:
            where = "into START" if b == 0 else "out of END"
            message = f"edge [{a}, {b}] leads {where}; expected START first and END last"
            problems.append(Problem.at(file, [*prefix, "edges", index], message))
    for step in sorted(texts):
        reasons = []
        if step != 0 and step not in after_start:
            reasons.append("is not reachable from START (0)")
        if step != end and step not in before_end:
            reasons.append(f"does not lead to END ({end})")
        if reasons:
            message = (
                f"step {step} {' and '.join(reasons)}; expected every step on a START-END path"
            )
            problems.append(Problem.at(file, [*prefix, "steps", str(step)], message))
    return problems
