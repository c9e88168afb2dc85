"""Recipe task graphs as small plain-Python DAGs.

The foundation loader (``taskqa.sources.captaincook4d.load_task_graphs``) builds pydantic models
and networkx graphs, which costs a third of a second of imports; candidate construction is a hot
path, so this module reads the same files with the standard library only and gives the graph
queries the prefix rule needs (ancestors, descendants, predecessors). ``from_task_graph`` accepts
the foundation model, so simulated recipes go through the same code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskqa.jsonio import load_json
from taskqa.problems import InvalidInputError, Problem

if TYPE_CHECKING:
    from taskqa.model import TaskGraph

START_TEXT = "START"
END_TEXT = "END"
START_ID = 0
_LOCAL_ID = re.compile(r"^(0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class RecipeGraph:
    """One recipe: step texts by local id (0 = START, highest = END) and precedence edges."""

    activity_id: int
    name: str
    steps: dict[int, str]
    edges: tuple[tuple[int, int], ...]
    _order: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Nodes in the order they first appear in the edge list, then edge-less steps: the
        # released code lists targets in the node order of a networkx graph built from edges.
        seen: dict[int, None] = {}
        for a, b in self.edges:
            seen.setdefault(a)
            seen.setdefault(b)
        for step in self.steps:
            seen.setdefault(step)
        object.__setattr__(self, "_order", tuple(seen))

    @property
    def end_id(self) -> int:
        return max(self.steps)

    @property
    def node_order(self) -> tuple[int, ...]:
        return self._order

    @cached_property
    def predecessors(self) -> dict[int, frozenset[int]]:
        found: dict[int, set[int]] = {step: set() for step in self.steps}
        for a, b in self.edges:
            found[b].add(a)
        return {step: frozenset(before) for step, before in found.items()}

    @cached_property
    def successors(self) -> dict[int, frozenset[int]]:
        found: dict[int, set[int]] = {step: set() for step in self.steps}
        for a, b in self.edges:
            found[a].add(b)
        return {step: frozenset(after) for step, after in found.items()}

    @cached_property
    def ancestors(self) -> dict[int, frozenset[int]]:
        return {step: _reach(step, self.predecessors) for step in self.steps}

    @cached_property
    def descendants(self) -> dict[int, frozenset[int]]:
        return {step: _reach(step, self.successors) for step in self.steps}

    def topological_order(self) -> list[int]:
        """Kahn's order, ties broken by id, so layouts and listings are stable."""
        remaining = {step: len(before) for step, before in self.predecessors.items()}
        ready = sorted(step for step, count in remaining.items() if count == 0)
        order: list[int] = []
        while ready:
            step = ready.pop(0)
            order.append(step)
            for after in sorted(self.successors[step]):
                remaining[after] -= 1
                if remaining[after] == 0:
                    ready.append(after)
            ready.sort()
        return order

    def as_json(self) -> dict[str, Any]:
        """The ``graphs.json`` entry: ``{name, steps, edges}``."""
        return {
            "name": self.name,
            "steps": {str(step): text for step, text in self.steps.items()},
            "edges": [[a, b] for a, b in self.edges],
        }

    @classmethod
    def from_task_graph(cls, activity_id: int, graph: TaskGraph) -> RecipeGraph:
        """The foundation model's graph (real or simulated); its ids must be integers."""
        ids = {step.id: int(step.id) for step in graph.steps}
        steps = {ids[step.id]: step.text for step in graph.steps}
        steps[ids[graph.start]] = START_TEXT
        steps[ids[graph.end]] = END_TEXT
        return cls(activity_id, graph.name, steps, tuple((ids[a], ids[b]) for a, b in graph.edges))


def _reach(origin: int, neighbours: Mapping[int, Iterable[int]]) -> frozenset[int]:
    found: set[int] = set()
    stack = list(neighbours[origin])
    while stack:
        step = stack.pop()
        if step not in found:
            found.add(step)
            stack.extend(neighbours[step])
    return frozenset(found)


def load_recipe_graphs(path: Path) -> dict[int, RecipeGraph]:
    """ProMQA's ``graphs.json``, or CaptainCook4D's ``task_graphs/`` (or the folder holding it).

    A task-graph folder names files after recipes, so ids and names come from
    ``annotation_json/complete_step_annotations.json`` beside it, as in the release.
    """
    if path.is_file():
        return graphs_from_json(load_json(path), str(path))
    if not path.is_dir():
        raise InvalidInputError([Problem(str(path), "", "file or folder not found")])
    folder = path / "task_graphs" if (path / "task_graphs").is_dir() else path
    return graphs_from_folder(folder, _activity_names(folder))


def graphs_from_json(data: Any, file: str) -> dict[int, RecipeGraph]:
    problems: list[Problem] = []
    graphs: dict[int, RecipeGraph] = {}
    if not isinstance(data, dict):
        raise InvalidInputError([Problem(file, "", "expected an object keyed by activity id")])
    for key, entry in data.items():
        if not _LOCAL_ID.match(key):
            problems.append(Problem.at(file, [key], "expected an activity id (an integer) as key"))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            problems.append(Problem.at(file, [key], "expected {name, steps, edges}"))
            continue
        graph = _check_graph(int(key), entry["name"], entry, file, [key], problems)
        if graph is not None:
            graphs[graph.activity_id] = graph
    if problems:
        raise InvalidInputError(problems)
    return graphs


def graphs_from_folder(folder: Path, activities: Mapping[int, str]) -> dict[int, RecipeGraph]:
    problems: list[Problem] = []
    graphs: dict[int, RecipeGraph] = {}
    for activity_id, name in sorted(activities.items()):
        path = folder / (name.lower().replace(" ", "") + ".json")
        try:
            data = load_json(path)
        except InvalidInputError as error:
            problems.extend(error.problems)
            continue
        graph = _check_graph(activity_id, name, data, str(path), [], problems)
        if graph is not None:
            graphs[activity_id] = graph
    if problems:
        raise InvalidInputError(problems)
    return graphs


def _activity_names(folder: Path) -> dict[int, str]:
    path = folder.parent / "annotation_json" / "complete_step_annotations.json"
    if not path.is_file():
        message = (
            f"cannot name the task graphs in {folder}: expected {path} "
            "(the CaptainCook4D layout, annotation_json/ beside task_graphs/)"
        )
        raise InvalidInputError([Problem(str(path), "", message)])
    data = load_json(path)
    names: dict[int, str] = {}
    if isinstance(data, dict):
        for entry in data.values():
            if isinstance(entry, dict) and "activity_id" in entry and "activity_name" in entry:
                names[int(entry["activity_id"])] = str(entry["activity_name"])
    if not names:
        raise InvalidInputError([Problem(str(path), "", "expected recordings naming activities")])
    return names


def _check_graph(
    activity_id: int,
    name: str,
    data: Any,
    file: str,
    prefix: list[str | int],
    problems: list[Problem],
) -> RecipeGraph | None:
    """Check ids, terminals, edges and acyclicity; report each problem with its record path."""
    before = len(problems)
    steps_data = data.get("steps") if isinstance(data, dict) else None
    edges_data = data.get("edges") if isinstance(data, dict) else None
    if not isinstance(steps_data, dict) or not isinstance(edges_data, list):
        problems.append(Problem.at(file, prefix, "expected {steps: {id: text}, edges: [[a, b]]}"))
        return None
    steps: dict[int, str] = {}
    for key, text in steps_data.items():
        if not _LOCAL_ID.match(key) or not isinstance(text, str):
            message = f"expected a numeric step id with a text (got {key!r}: {text!r})"
            problems.append(Problem.at(file, [*prefix, "steps", key], message))
        else:
            steps[int(key)] = text
    edges: list[tuple[int, int]] = []
    for index, edge in enumerate(edges_data):
        location = [*prefix, "edges", index]
        if not (isinstance(edge, list) and len(edge) == 2 and all(type(e) is int for e in edge)):
            problems.append(Problem.at(file, location, f"expected [a, b] step ids (got {edge!r})"))
        elif edge[0] not in steps or edge[1] not in steps:
            problems.append(Problem.at(file, location, f"edge {edge} names an unknown step id"))
        else:
            edges.append((edge[0], edge[1]))
    if steps and (steps.get(START_ID) != START_TEXT or steps[max(steps)] != END_TEXT):
        message = 'expected "0": "START" and END as the highest id'
        problems.append(Problem.at(file, [*prefix, "steps"], message))
    if len(problems) > before:
        return None
    graph = RecipeGraph(activity_id, name, steps, tuple(edges))
    if len(graph.topological_order()) != len(steps):
        problems.append(Problem.at(file, [*prefix, "edges"], "the edges form a cycle"))
        return None
    return graph
