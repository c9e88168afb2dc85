"""The mutable state of one simulated room: attribute values and where every thing is."""

from __future__ import annotations

from collections.abc import Iterable

from taskqa.model import UNKNOWN, ActionSlots, Attribute, Relation
from taskqa.simulation.domain import Domain, Schema
from taskqa.simulation.rules import (
    AttributeIs,
    Condition,
    CopyAttribute,
    Effect,
    HeldByActor,
    LocatedIn,
    MoveTo,
    SetAttribute,
)

HELD_BY = "held-by"


class ActionNotPossible(Exception):
    """A precondition of an action does not hold in the current state."""


class WorldState:
    def __init__(self, domain: Domain, room: str, agents: Iterable[str]) -> None:
        self.domain = domain
        self.agents = set(agents)
        self.attributes: dict[str, dict[Attribute, str]] = {}
        self.location: dict[str, str] = {}
        for name in domain.objects_in(room):
            spec = domain.spec.objects[name]
            self.attributes[name] = domain.initial_attributes(name)
            if spec.at is not None:
                self.location[name] = spec.at

    def copy(self) -> WorldState:
        clone = object.__new__(WorldState)
        clone.domain = self.domain
        clone.agents = self.agents
        clone.attributes = {name: dict(values) for name, values in self.attributes.items()}
        clone.location = dict(self.location)
        return clone

    # --- reading ---------------------------------------------------------------------------
    def relation_of(self, obj: str) -> Relation | None:
        place = self.location.get(obj)
        if place is None:
            return None
        if place in self.agents:
            return Relation(subject=obj, relation=HELD_BY, object=place)
        holds = self.domain.spec.objects[place].holds or "on-top-of"
        return Relation(subject=obj, relation=holds, object=place)

    def holder(self, obj: str) -> str | None:
        place = self.location.get(obj)
        return place if place in self.agents else None

    def enclosed(self, obj: str) -> bool:
        """Inside something closed (a shut fridge hides the orange in it)."""
        place = self.location.get(obj)
        seen: set[str] = set()
        while place is not None and place not in self.agents and place not in seen:
            seen.add(place)
            if self.attributes.get(place, {}).get(Attribute.OPENNESS) == "closed":
                return True
            place = self.location.get(place)
        return False

    def zone_of(self, obj: str) -> str | None:
        """The zone of the fixture an object ultimately rests in; None when carried."""
        place: str | None = obj
        seen: set[str] = set()
        while place is not None and place not in self.agents and place not in seen:
            seen.add(place)
            spec = self.domain.spec.objects[place]
            if spec.fixture:
                return spec.zone
            place = self.location.get(place)
        return None

    # --- acting ----------------------------------------------------------------------------
    def violated(self, schema: Schema, slots: ActionSlots, actor: str) -> list[str]:
        """The preconditions of ``schema`` that fail; an empty list means the action can run."""
        return [
            _describe(c)
            for c in schema.requires
            if not all(self._holds(c, obj, slots, actor) for obj in getattr(slots, c.slot))
        ]

    def apply(self, schema: Schema, slots: ActionSlots, actor: str) -> None:
        failed = self.violated(schema, slots, actor)
        if failed:
            raise ActionNotPossible("; ".join(failed))
        for effect in schema.effects:
            for obj in getattr(slots, effect.slot):
                self._apply(effect, obj, slots, actor)

    def _holds(self, condition: Condition, obj: str, slots: ActionSlots, actor: str) -> bool:
        if isinstance(condition, AttributeIs):
            current = self.attributes.get(obj, {}).get(condition.attribute)
            if current is None or current == UNKNOWN:  # not applicable, or not annotated
                return True
            return (current == condition.value) != condition.negated
        if isinstance(condition, LocatedIn):
            return self.location.get(obj) in getattr(slots, condition.container_slot)
        if isinstance(condition, HeldByActor):
            return self.location.get(obj) == actor
        raise TypeError(condition)

    def _apply(self, effect: Effect, obj: str, slots: ActionSlots, actor: str) -> None:
        values = self.attributes.setdefault(obj, {})
        if isinstance(effect, SetAttribute):
            if effect.attribute in values:
                values[effect.attribute] = effect.value
        elif isinstance(effect, CopyAttribute):
            sources = getattr(slots, effect.from_slot)
            copied = [self.attributes.get(s, {}).get(effect.from_attribute) for s in sources]
            if effect.attribute in values and copied and copied[0] is not None:
                values[effect.attribute] = copied[0]
        elif isinstance(effect, MoveTo):
            if effect.target_slot == "hand":
                self.location[obj] = actor
            else:
                self.location[obj] = getattr(slots, effect.target_slot)[0]
        else:
            raise TypeError(effect)


def _describe(condition: Condition) -> str:
    if isinstance(condition, AttributeIs):
        operator = "!=" if condition.negated else "=="
        return f"{condition.slot}.{condition.attribute.name.lower()} {operator} {condition.value}"
    if isinstance(condition, LocatedIn):
        return f"{condition.slot} in {condition.container_slot}"
    return f"{condition.slot} held"
