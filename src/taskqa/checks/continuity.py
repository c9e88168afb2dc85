"""Each object's state chain must be continuous: what one action leaves is what the next finds.

Visibility is exempt (it depends on where people look, not on what they did), ``unknown``
matches anything, and an attribute annotated on only one side of the gap is not compared.
"""

from __future__ import annotations

from collections.abc import Iterator

from taskqa.model import (
    UNKNOWN,
    VIEWPOINT_ATTRIBUTES,
    EntityTransition,
    Recording,
    RelationKind,
    Snapshot,
)
from taskqa.problems import Location, Problem

INITIAL = "initial_state"


def check_continuity(recording: Recording, file: str, prefix: Location) -> Iterator[Problem]:
    # An object's chain starts at the recording's initial state, where the source records one.
    last_seen: dict[str, tuple[str, Snapshot]] = {
        name: (INITIAL, snapshot) for name, snapshot in recording.initial_state.items()
    }
    order = sorted(range(len(recording.actions)), key=lambda i: recording.actions[i].start)
    for index in order:
        action = recording.actions[index]
        for t_index, transition in enumerate(action.transitions):
            if transition.is_agent:
                continue
            previous = last_seen.get(transition.entity)
            last_seen[transition.entity] = (f"action {action.id}", transition.after)
            if previous is None:
                if recording.initial_state:
                    yield Problem.at(
                        file,
                        [*prefix, "actions", index, "transitions", t_index, "entity"],
                        f"{transition.entity} is not in the recording's initial_state; "
                        "expected every object acted on to be there from the start",
                    )
                continue
            where = [*prefix, "actions", index, "transitions", t_index, "before"]
            yield from _compare(file, where, transition, previous[1], previous[0])


def _compare(
    file: str, where: list[str | int], current: EntityTransition, left: Snapshot, left_by: str
) -> Iterator[Problem]:
    found = current.before
    for attribute, value in found.attributes.items():
        if attribute in VIEWPOINT_ATTRIBUTES:
            continue
        earlier = left.attributes.get(attribute)
        if earlier is None or UNKNOWN in (earlier, value) or earlier == value:
            continue
        yield Problem.at(
            file,
            [*where, "attributes", attribute.value],
            f"{current.entity} is {value!r} here but {left_by} left it {earlier!r}; "
            "expected the state the previous action on this object ended with",
        )
    before = {str(r) for r in found.relations_of(RelationKind.SPATIAL)}
    after = {str(r) for r in left.relations_of(RelationKind.SPATIAL)}
    if before and after and before != after:
        yield Problem.at(
            file,
            [*where, "relations"],
            f"{current.entity} relations {sorted(before)} differ from {sorted(after)} left by "
            f"{left_by}",
        )
