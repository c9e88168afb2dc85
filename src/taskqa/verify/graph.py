"""Queries and the partial-order DAG a description asks for, in EgoTV's DSL notation.

A graph serialises as one line: ``"Step k Query(args)";`` for every node in step order, then
``"Step a ..." -> "Step b ...";`` for every edge, sorted by (source step, target step). That is
the third column of EgoTV's ``proscript_data.tsv``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import networkx as nx


class SubTask(StrEnum):
    PICK = "pick"
    PLACE = "place"
    CLEAN = "clean"
    HEAT = "heat"
    COOL = "cool"
    SLICE = "slice"


STATE_SUBTASKS = frozenset({SubTask.CLEAN, SubTask.HEAT, SubTask.COOL, SubTask.SLICE})
ANY_RECEPTACLE = "any"  # a place query whose description names no receptacle (abstraction)


@dataclass(frozen=True, order=True)
class Query:
    """One node: a sub-task on an object; ``receptacle`` only for place."""

    subtask: SubTask
    obj: str
    receptacle: str | None = None

    def __post_init__(self) -> None:
        if (self.subtask is SubTask.PLACE) != (self.receptacle is not None):
            raise ValueError(f"{self.subtask} query with receptacle {self.receptacle!r}")

    def dsl(self) -> str:
        if self.subtask in STATE_SUBTASKS:
            return f"StateQuery({self.obj},{self.subtask})"
        if self.subtask is SubTask.PICK:
            return f"RelationQuery({self.obj},agent,pick)"
        return f"RelationQuery({self.obj},{self.receptacle},place)"


@dataclass(frozen=True)
class QueryGraph:
    """Queries in step order (step k is ``queries[k-1]``) and ordering edges between indices."""

    queries: tuple[Query, ...]
    edges: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        for source, target in self.edges:
            if not (0 <= source < len(self.queries) and 0 <= target < len(self.queries)):
                raise ValueError(f"edge {source}->{target} outside {len(self.queries)} queries")
        if not nx.is_directed_acyclic_graph(self.to_networkx()):
            raise ValueError("the ordering edges form a cycle")

    @classmethod
    def from_blocks(cls, blocks: Sequence[Sequence[Query]]) -> QueryGraph:
        """Consecutive blocks are ordered: every query of a block precedes every one of the next."""
        queries: list[Query] = []
        edges: list[tuple[int, int]] = []
        previous: list[int] = []
        for block in blocks:
            current = list(range(len(queries), len(queries) + len(block)))
            queries.extend(block)
            edges.extend((a, b) for a in previous for b in current)
            previous = current
        return cls(tuple(queries), tuple(sorted(edges)))

    def label(self, index: int) -> str:
        return f"Step {index + 1} {self.queries[index].dsl()}"

    def to_dsl(self) -> str:
        nodes = "".join(f'"{self.label(i)}";' for i in range(len(self.queries)))
        edges = "".join(f'"{self.label(a)}" -> "{self.label(b)}";' for a, b in sorted(self.edges))
        return nodes + edges

    def to_networkx(self) -> nx.DiGraph:
        graph = nx.DiGraph()
        for index, query in enumerate(self.queries):
            graph.add_node(index, query=query.dsl())
        graph.add_edges_from(self.edges)
        return graph


_STATEMENT = re.compile(r'\s*"([^"]*)"\s*(?:->\s*"([^"]*)"\s*)?;')
_LABEL = re.compile(r"^Step (\d+) (StateQuery|RelationQuery)\(([^()]*)\)$")


def parse_dsl(text: str) -> QueryGraph:
    """Read one DSL line back into a graph; raises ValueError naming what is malformed."""
    nodes: dict[str, Query] = {}
    edge_labels: list[tuple[str, str]] = []
    position = 0
    stripped = text.strip()
    while position < len(stripped):
        match = _STATEMENT.match(stripped, position)
        if match is None:
            raise ValueError(f"expected '\"Step k Query(...)\";' at character {position}")
        source, target = match.group(1), match.group(2)
        for label in (source, target):
            if label is not None and label not in nodes:
                nodes[label] = _query_from_label(label)
        if target is not None:
            edge_labels.append((source, target))
        position = match.end()
    ordered = sorted(nodes, key=_step_number)
    steps = [_step_number(label) for label in ordered]
    if steps != list(range(1, len(steps) + 1)):
        raise ValueError(f"step numbers {steps} are not 1..{len(steps)}")
    index = {label: i for i, label in enumerate(ordered)}
    edges = tuple(sorted((index[a], index[b]) for a, b in edge_labels))
    return QueryGraph(tuple(nodes[label] for label in ordered), edges)


def _step_number(label: str) -> int:
    match = _LABEL.match(label)
    assert match is not None  # every label went through _query_from_label first
    return int(match.group(1))


def _query_from_label(label: str) -> Query:
    match = _LABEL.match(label)
    if match is None:
        raise ValueError(f"node {label!r} is not 'Step k StateQuery(...)' or 'RelationQuery(...)'")
    kind, args = match.group(2), match.group(3).split(",")
    if kind == "StateQuery" and len(args) == 2 and args[1] in STATE_SUBTASKS:
        return Query(SubTask(args[1]), args[0])
    if kind == "RelationQuery" and len(args) == 3 and args[2] == "pick":
        return Query(SubTask.PICK, args[0])
    if kind == "RelationQuery" and len(args) == 3 and args[2] == "place":
        return Query(SubTask.PLACE, args[0], args[1])
    raise ValueError(f"node {label!r} has unknown query arguments")


def graph_edit_distance(predicted: QueryGraph, expected: QueryGraph) -> float:
    """Exact unit-cost graph edit distance: inserting, deleting or relabelling a node costs 1,
    inserting or deleting an edge costs 1; nodes are labelled by their query (not their step).

    Exhaustive over node mappings, which is exact and fast for task graphs (a handful of nodes);
    it avoids networkx's solver, which needs scipy.
    """
    if max(len(predicted.queries), len(expected.queries)) > 8:
        raise ValueError("graph edit distance is only computed for graphs of at most 8 nodes")
    left = [q.dsl() for q in predicted.queries]
    right = [q.dsl() for q in expected.queries]
    right_edges = set(expected.edges)
    best = float("inf")

    def extend(mapping: list[int | None], used: set[int]) -> None:
        nonlocal best
        if len(mapping) == len(left):
            best = min(best, _mapping_cost(mapping, left, right, predicted.edges, right_edges))
            return
        for target in [*(t for t in range(len(right)) if t not in used), None]:
            mapping.append(target)
            if target is not None:
                used.add(target)
            extend(mapping, used)
            mapping.pop()
            if target is not None:
                used.discard(target)

    extend([], set())
    return best


def _mapping_cost(
    mapping: list[int | None],
    left: list[str],
    right: list[str],
    left_edges: tuple[tuple[int, int], ...],
    right_edges: set[tuple[int, int]],
) -> float:
    cost = 0
    for source, target in enumerate(mapping):
        cost += 1 if target is None or left[source] != right[target] else 0
    cost += len(right) - sum(target is not None for target in mapping)  # inserted nodes
    kept = 0
    for a, b in left_edges:
        image = (mapping[a], mapping[b])
        if image in right_edges:
            kept += 1
        else:
            cost += 1  # deleted edge
    return float(cost + len(right_edges) - kept)  # plus inserted edges
