"""Every name a recording uses must resolve: objects to its initial state, steps to its
procedures, step times to within the recording.

A misspelt object would otherwise become a new object that no question can resolve, and a step
time past the end would point clips at frames that do not exist. The object check needs an
initial state to check against, which simulated recordings always have; sources without one
(EgoTaskQA, CaptainCook4D) name objects only where they act on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from taskqa.model import Recording
from taskqa.problems import Location, Problem, shorten

DURATION_SLACK = 1e-6  # seconds; times are stored rounded


def check_references(recording: Recording, file: str, prefix: Location) -> Iterator[Problem]:
    yield from _step_problems(recording, file, prefix)
    if recording.initial_state:
        yield from _object_problems(recording, file, prefix)


def _step_problems(recording: Recording, file: str, prefix: Location) -> Iterator[Problem]:
    for p_index, procedure in enumerate(recording.procedures):
        for s_index, execution in enumerate(procedure.steps):
            if execution.end is not None and execution.end > recording.duration + DURATION_SLACK:
                yield Problem.at(
                    file,
                    [*prefix, "procedures", p_index, "steps", s_index, "end"],
                    f"{execution.end} is after the recording's end ({recording.duration} s)",
                )
    if not recording.procedures:
        return
    steps = {s.id for p in recording.procedures for s in p.task_graph.steps}
    for index, action in enumerate(recording.actions):
        if action.step is not None and action.step not in steps:
            yield Problem.at(
                file,
                [*prefix, "actions", index, "step"],
                f"{shorten(action.step)!r} is not a step of the recording's procedures",
            )


def _object_problems(recording: Recording, file: str, prefix: Location) -> Iterator[Problem]:
    known = set(recording.initial_state) | {a.id for a in recording.agents}

    def unknown(names: Iterable[tuple[Location, str | None]]) -> Iterator[Problem]:
        for where, name in names:
            if name is not None and name not in known:
                yield Problem.at(
                    file,
                    [*prefix, *where],
                    f"{shorten(name)!r} is neither in the recording's initial_state nor an agent",
                )

    for name, snapshot in recording.initial_state.items():
        yield from unknown(
            (["initial_state", name, "relations", r_index, "object"], relation.object)
            for r_index, relation in enumerate(snapshot.relations)
        )
    for index, action in enumerate(recording.actions):
        slots = action.slots
        for slot in ("patient", "source", "destination", "instrument"):
            yield from unknown(
                (["actions", index, "slots", slot, n_index], name)
                for n_index, name in enumerate(getattr(slots, slot))
            )
        for t_index, transition in enumerate(action.transitions):
            where: Location = ["actions", index, "transitions", t_index]
            for moment in ("before", "after"):
                relations = getattr(transition, moment).relations
                yield from unknown(
                    ([*where, moment, "relations", r_index, "object"], relation.object)
                    for r_index, relation in enumerate(relations)
                )
