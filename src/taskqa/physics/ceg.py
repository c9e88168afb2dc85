"""Causal event graphs (CEGs): event descriptions linked by graded responsibility scores.

An edge points from cause to effect, as in the CLEVRER-Humans QA loader, where the correct
answers to "which is responsible for n?" are the predecessors of n. Every edge keeps the 1-5
scores of all raters; the aggregated score (mean by default) is binarized with an inclusive
threshold, 4 by default: edges at or above it form the positive graph, the rest the negative.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx

DEFAULT_THRESHOLD = 4.0
Aggregate = Literal["mean", "median"]


@dataclass
class CausalEventGraph:
    scene_index: int
    nodes: list[str]
    scores: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (cause, effect)

    def add_score(self, cause: str, effect: str, score: int) -> None:
        if not 1 <= score <= 5:
            raise ValueError(f"a causal score runs from 1 to 5 (got {score})")
        for node in (cause, effect):
            if node not in self.nodes:
                self.nodes.append(node)
        self.scores.setdefault((cause, effect), []).append(score)

    def edge_score(self, cause: str, effect: str, aggregate: Aggregate = "mean") -> float:
        values = self.scores[(cause, effect)]
        return float(statistics.mean(values) if aggregate == "mean" else statistics.median(values))

    def full(self, aggregate: Aggregate = "mean") -> nx.DiGraph:
        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        for cause, effect in sorted(self.scores):
            graph.add_edge(cause, effect, weight=self.edge_score(cause, effect, aggregate))
        return graph

    def positive(
        self, threshold: float = DEFAULT_THRESHOLD, aggregate: Aggregate = "mean"
    ) -> nx.DiGraph:
        return _keep_edges(self.full(aggregate), lambda weight: weight >= threshold)

    def negative(
        self, threshold: float = DEFAULT_THRESHOLD, aggregate: Aggregate = "mean"
    ) -> nx.DiGraph:
        return _keep_edges(self.full(aggregate), lambda weight: weight < threshold)


def _keep_edges(graph: nx.DiGraph, keep: Callable[[float], bool]) -> nx.DiGraph:
    kept = nx.DiGraph()
    kept.add_nodes_from(graph.nodes)
    kept.add_edges_from(
        (u, v, data) for u, v, data in graph.edges(data=True) if keep(data["weight"])
    )
    return kept


@dataclass(frozen=True)
class GraphStatistics:
    graphs: int
    mean_nodes: float
    mean_edges: float
    mean_positive_edges: float
    mean_negative_edges: float
    mean_score: float | None  # None when the graphs carry only binary labels
    score_histogram: dict[int, int]  # raw rater scores 1..5
    node_histogram: dict[int, int]
    edge_histogram: dict[int, int]


def graph_statistics(
    graphs: Sequence[CausalEventGraph], threshold: float = DEFAULT_THRESHOLD
) -> GraphStatistics:
    if not graphs:
        raise ValueError("no graphs to describe")
    raw = [score for graph in graphs for scores in graph.scores.values() for score in scores]
    positives = [graph.positive(threshold).number_of_edges() for graph in graphs]
    edges = [len(graph.scores) for graph in graphs]
    return GraphStatistics(
        graphs=len(graphs),
        mean_nodes=statistics.mean(len(graph.nodes) for graph in graphs),
        mean_edges=statistics.mean(edges),
        mean_positive_edges=statistics.mean(positives),
        mean_negative_edges=statistics.mean(e - p for e, p in zip(edges, positives, strict=True)),
        mean_score=statistics.mean(raw) if raw else None,
        score_histogram=dict(sorted(Counter(raw).items())),
        node_histogram=dict(sorted(Counter(len(graph.nodes) for graph in graphs).items())),
        edge_histogram=dict(sorted(Counter(edges).items())),
    )
