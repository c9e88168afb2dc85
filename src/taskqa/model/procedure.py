"""Procedures: a recipe's task graph and how one recording executed it (CaptainCook4D style)."""

from __future__ import annotations

from enum import StrEnum

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, model_validator


class ErrorTag(StrEnum):
    """CaptainCook4D's eight error tags, spelled as in its annotation files."""

    PREPARATION = "Preparation Error"
    MEASUREMENT = "Measurement Error"
    ORDER = "Order Error"
    TIMING = "Timing Error"
    TECHNIQUE = "Technique Error"
    TEMPERATURE = "Temperature Error"
    MISSING_STEP = "Missing Step"
    OTHER = "Other"


class TaskStep(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    id: str = Field(min_length=1)
    text: str


class TaskGraph(BaseModel):
    """A recipe as a DAG of steps; an edge (a, b) means a must happen before b."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str
    steps: list[TaskStep]
    edges: list[tuple[str, str]] = Field(default_factory=list)
    start: str = Field(description="Id of the START node.")
    end: str = Field(description="Id of the END node.")

    @model_validator(mode="after")
    def _is_rooted_dag(self) -> TaskGraph:
        ids = [s.id for s in self.steps]
        if len(set(ids)) != len(ids):
            raise ValueError(f"step ids repeat: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
        known = set(ids)
        for terminal, value in (("start", self.start), ("end", self.end)):
            if value not in known:
                raise ValueError(f"{terminal} node {value!r} is not one of the steps")
        for index, (a, b) in enumerate(self.edges):
            for endpoint in (a, b):
                if endpoint not in known:
                    raise ValueError(f"edges[{index}] = [{a}, {b}]: unknown step id {endpoint!r}")
        cycle = _find_cycle(self.edges)
        if cycle:
            raise ValueError(f"the task graph has a cycle: {' -> '.join(cycle)}")
        return self

    def digraph(self) -> nx.DiGraph:
        graph = nx.DiGraph()
        graph.add_nodes_from(s.id for s in self.steps)
        graph.add_edges_from(self.edges)
        return graph

    def text(self, step_id: str) -> str:
        return next(s.text for s in self.steps if s.id == step_id)

    def real_steps(self) -> list[TaskStep]:
        """Every step but START and END."""
        return [s for s in self.steps if s.id not in (self.start, self.end)]


def _find_cycle(edges: list[tuple[str, str]]) -> list[str]:
    graph = nx.DiGraph(edges)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return []
    return [str(a) for a, _ in cycle] + [str(cycle[0][0])]


class StepError(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    tag: ErrorTag
    description: str = ""


class StepExecution(BaseModel):
    """One annotated step of a recording; missing steps have no times."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    step: str = Field(description="Task-graph id of the step.")
    description: str
    start: float | None = Field(default=None, ge=0)
    end: float | None = Field(default=None, ge=0)
    errors: list[StepError] = Field(default_factory=list)
    modified_description: str | None = None
    source_step_id: int | None = Field(
        default=None, description="The id the source dataset used (CaptainCook4D global id)."
    )
    agent: str | None = None

    @model_validator(mode="after")
    def _times(self) -> StepExecution:
        if (self.start is None) != (self.end is None):
            raise ValueError("start and end must both be set or both be missing")
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}; expected end >= start")
        return self

    @property
    def is_missing(self) -> bool:
        return self.start is None or any(e.tag is ErrorTag.MISSING_STEP for e in self.errors)

    @property
    def tags(self) -> list[ErrorTag]:
        return [e.tag for e in self.errors]


class Procedure(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    task_graph: TaskGraph
    steps: list[StepExecution] = Field(default_factory=list)

    @model_validator(mode="after")
    def _steps_in_graph(self) -> Procedure:
        known = {s.id for s in self.task_graph.steps}
        for index, execution in enumerate(self.steps):
            if execution.step not in known:
                raise ValueError(
                    f"steps[{index}].step {execution.step!r} is not a step of task graph "
                    f"{self.task_graph.name!r}"
                )
        return self

    @property
    def has_errors(self) -> bool:
        return any(s.errors for s in self.steps)

    def missing_steps(self) -> list[StepExecution]:
        return [s for s in self.steps if s.is_missing]

    def performed_in_order(self) -> list[StepExecution]:
        performed = [s for s in self.steps if not s.is_missing]
        return sorted(performed, key=lambda s: (s.start or 0.0, s.end or 0.0))
