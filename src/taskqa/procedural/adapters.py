"""Recordings of the foundation data model (raw CaptainCook4D through its reader, or the
simulated world with injected errors) turned into the inputs of the prefix rule.

Steps are laid out as ProMQA's cleaning lays them out: a START step ending where the first
performed step starts, then the missing steps (times -1), then the performed steps by start
time. Task graphs with non-numeric step ids (the simulated world's) get local ids in graph
order, START 0 and END last, so candidates read the same whatever the source.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from taskqa.procedural.annotations import (
    START_DESCRIPTION,
    START_STEP_ID,
    AnnotatedRecording,
    AnnotatedStep,
    StepError,
)
from taskqa.procedural.recipes import END_TEXT, START_TEXT, RecipeGraph

if TYPE_CHECKING:
    from taskqa.model import Procedure, Recording, TaskGraph


def local_ids(graph: TaskGraph) -> dict[str, int]:
    """Integer ids of a graph's steps: the ids themselves when they are numbers."""
    if all(step.id.isdigit() for step in graph.steps):
        return {step.id: int(step.id) for step in graph.steps}
    inner = [s.id for s in graph.steps if s.id not in (graph.start, graph.end)]
    ids = {graph.start: 0, **{step: n for n, step in enumerate(inner, start=1)}}
    ids[graph.end] = len(inner) + 1
    return ids


def recipe_graph(activity_id: int, graph: TaskGraph) -> RecipeGraph:
    ids = local_ids(graph)
    steps = {ids[s.id]: s.text for s in graph.steps}
    steps[ids[graph.start]] = START_TEXT
    steps[ids[graph.end]] = END_TEXT
    ordered = dict(sorted(steps.items()))
    edges = tuple((ids[a], ids[b]) for a, b in graph.edges)
    return RecipeGraph(activity_id, graph.name, ordered, edges)


def from_recordings(
    recordings: Sequence[Recording],
) -> tuple[list[AnnotatedRecording], dict[int, RecipeGraph]]:
    """Annotated recordings (one per procedure) and their recipe graphs keyed by activity id.

    Activity ids come from the recording's ``activity_id`` metadata (CaptainCook4D) or else
    number the recipes by name. A recording with several procedures (the simulated world's
    multi-task episodes) yields one entry per procedure, ``<id>/<recipe>``.
    """
    graphs: dict[int, RecipeGraph] = {}
    by_name: dict[str, int] = {}
    annotated = []
    names = sorted({p.task_graph.name for r in recordings for p in r.procedures})
    for recording in recordings:
        for procedure in recording.procedures:
            name = procedure.task_graph.name
            given = recording.metadata.get("activity_id")
            activity = int(given) if isinstance(given, int) else names.index(name) + 1
            activity = by_name.setdefault(name, activity)
            graphs.setdefault(activity, recipe_graph(activity, procedure.task_graph))
            several = len(recording.procedures) > 1
            recording_id = f"{recording.id}/{name}" if several else recording.id
            annotated.append(_annotated(recording_id, activity, procedure))
    return annotated, graphs


def _annotated(recording_id: str, activity: int, procedure: Procedure) -> AnnotatedRecording:
    ids = local_ids(procedure.task_graph)
    missing = [s for s in procedure.steps if s.is_missing]
    performed = procedure.performed_in_order()
    first_start = min((s.start for s in performed if s.start is not None), default=0.0)
    steps = [AnnotatedStep(START_STEP_ID, START_DESCRIPTION, 0.0, first_start)]
    for execution in [*missing, *performed]:
        is_missing = execution.is_missing
        steps.append(
            AnnotatedStep(
                ids[execution.step],
                execution.description,
                -1.0 if is_missing or execution.start is None else execution.start,
                -1.0 if is_missing or execution.end is None else execution.end,
                tuple(StepError(e.tag.value, e.description) for e in execution.errors),
                execution.modified_description,
            )
        )
    return AnnotatedRecording(recording_id, activity, procedure.task_graph.name, tuple(steps))
