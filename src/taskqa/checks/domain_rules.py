"""Checking annotated actions against a domain's action schemas.

The world state an action found is rebuilt from its ``before`` snapshots; every precondition
must hold there, and applying the schema's effects must give the ``after`` snapshots.
"""

from __future__ import annotations

from collections.abc import Iterator

from taskqa.model import (
    UNKNOWN,
    VIEWPOINT_ATTRIBUTES,
    ActionSegment,
    Outcome,
    Recording,
    RelationKind,
)
from taskqa.problems import Location, Problem
from taskqa.simulation.domain import Domain
from taskqa.simulation.world import HELD_BY, WorldState


def check_against_domain(
    recording: Recording, domain: Domain, file: str, prefix: Location
) -> Iterator[Problem]:
    agents = [a.id for a in recording.agents]
    yield from _check_initial_state(recording, domain, file, prefix)
    for index, action in enumerate(recording.actions):
        where = [*prefix, "actions", index]
        schema = domain.schemas.get(action.verb)
        if schema is None:
            yield Problem.at(
                file, [*where, "verb"], f"{action.verb!r} is not an action of the domain"
            )
            continue
        if action.outcome is Outcome.FAILED and not schema.can_fail:
            yield Problem.at(
                file, [*where, "outcome"], f"{action.verb!r} cannot fail; its schema has no `fails`"
            )
        if action.outcome is Outcome.PARTIAL and schema.partial is None:
            yield Problem.at(
                file,
                [*where, "outcome"],
                f"{action.verb!r} cannot be partial; its schema has no `partial` effects",
            )
        found = _state_from(action, domain, agents, moment="before")
        for condition in found.violated(schema, action.slots, action.agent):
            yield Problem.at(
                file, where, f"precondition `{condition}` of {action.verb!r} did not hold"
            )
        yield from _check_effects(action, domain, agents, file, where)


def _check_initial_state(
    recording: Recording, domain: Domain, file: str, prefix: Location
) -> Iterator[Problem]:
    """Objects at the start must be the domain's, in the room, with values the domain allows."""
    objects = domain.spec.objects
    for name, snapshot in recording.initial_state.items():
        where = [*prefix, "initial_state", name]
        spec = objects.get(name)
        if spec is None or spec.room != recording.environment:
            yield Problem.at(
                file, where, f"expected an object of the domain in room {recording.environment!r}"
            )
            continue
        for attribute, value in snapshot.attributes.items():
            key = attribute.name.lower()
            allowed = {spec.attributes.get(key), *spec.vary.get(key, [])}
            if value not in allowed:
                yield Problem.at(
                    file,
                    [*where, "attributes", attribute.value],
                    f"{name} starts {value!r}; the domain allows {sorted(str(v) for v in allowed)}",
                )


def _state_from(
    action: ActionSegment, domain: Domain, agents: list[str], moment: str
) -> WorldState:
    """A world holding just the action's objects, as annotated at ``moment``."""
    state = WorldState(domain, room="", agents=agents)
    for transition in action.transitions:
        if transition.is_agent:
            continue
        snapshot = getattr(transition, moment)
        # unknown values stay, so that an effect copying one yields unknown, not a guess
        state.attributes[transition.entity] = {
            a: v for a, v in snapshot.attributes.items() if a not in VIEWPOINT_ATTRIBUTES
        }
        for relation in snapshot.relations_of(RelationKind.SPATIAL):
            if relation.object is not None:
                state.location[transition.entity] = relation.object
    return state


def _check_effects(
    action: ActionSegment, domain: Domain, agents: list[str], file: str, where: list[str | int]
) -> Iterator[Problem]:
    predicted = _state_from(action, domain, agents, moment="before")
    schema = domain.schemas[action.verb]
    if predicted.violated(schema, action.slots, action.agent):
        return  # already reported as a precondition failure
    # A failed action changes nothing and a partial one only its schema's `partial` effects.
    predicted.apply(schema, action.slots, action.agent, action.outcome)
    observed = _state_from(action, domain, agents, moment="after")
    for t_index, transition in enumerate(action.transitions):
        if transition.is_agent:
            continue
        name = transition.entity
        for attribute, value in observed.attributes[name].items():
            expected = predicted.attributes[name].get(attribute)
            if expected not in (None, UNKNOWN, value) and value != UNKNOWN:
                yield Problem.at(
                    file,
                    [*where, "transitions", t_index, "after", "attributes", attribute.value],
                    f"{name} is {value!r} after {action.verb!r}; its effects give {expected!r}",
                )
        place, expected_place = observed.location.get(name), predicted.location.get(name)
        if place is not None and expected_place is not None and place != expected_place:
            kind = HELD_BY if expected_place in agents else "in/on"
            yield Problem.at(
                file,
                [*where, "transitions", t_index, "after", "relations"],
                f"{name} is at {place!r} after {action.verb!r}; its effects put it {kind} "
                f"{expected_place!r}",
            )
