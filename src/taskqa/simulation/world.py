"""The mutable state of one simulated room: attribute values and where every thing is."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from taskqa.model import UNKNOWN, ActionSlots, Attribute, Outcome, Relation
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
    def __init__(
        self,
        domain: Domain,
        room: str,
        agents: Iterable[str],
        start: Mapping[str, Mapping[Attribute, str]] | None = None,
        places: Mapping[str, str] | None = None,
    ) -> None:
        """The room as the domain describes it, or, given ``start``, just those objects in
        those states (one episode's draw of distractors and initial values); ``places`` puts
        things somewhere else than their domain ``at`` (one episode's draw of placements)."""
        self.domain = domain
        self.agents = set(agents)
        self.attributes: dict[str, dict[Attribute, str]] = {}
        self.location: dict[str, str] = {}
        names = list(start) if start is not None else domain.objects_in(room)
        for name in names:
            spec = domain.spec.objects[name]
            self.attributes[name] = (
                dict(start[name]) if start is not None else domain.initial_attributes(name)
            )
            place = (places or {}).get(name, spec.at)
            if place is not None:
                self.location[name] = place

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

    def apply(
        self, schema: Schema, slots: ActionSlots, actor: str, outcome: Outcome = Outcome.DONE
    ) -> None:
        failed = self.violated(schema, slots, actor)
        if failed:
            raise ActionNotPossible("; ".join(failed))
        for effect in effects_of(schema, outcome):
            for obj in getattr(slots, effect.slot):
                self._apply(effect, obj, slots, actor)

    def already_done(self, schema: Schema, slots: ActionSlots, actor: str) -> bool:
        """Whether the action would change no attribute: it has some that apply and all hold.

        A person skips such an action (no need to open an open fridge), which is what lets a
        step's actions stay fixed while the world starts in different states. Moving things is
        never skipped, nor an action that changes more than its patient (a transfer): a thing
        somewhere else than the step expects, or an empty jug, is not "already done".
        """
        changes = [e for e in schema.effects if not isinstance(e, MoveTo)]
        if len(changes) < len(schema.effects) or any(e.slot != "patient" for e in changes):
            return False
        # Only a precondition that the action's own result makes false may be what blocks it
        # (open needs closed); a tool not in hand is never "already done".
        produced = {(e.slot, e.attribute) for e in changes}
        for condition in schema.requires:
            holds = all(
                self._holds(condition, o, slots, actor) for o in getattr(slots, condition.slot)
            )
            if not holds and not (
                isinstance(condition, AttributeIs)
                and (condition.slot, condition.attribute) in produced
            ):
                return False
        scratch = self.copy()
        touched = False
        for effect in changes:
            for obj in getattr(slots, effect.slot):
                touched = touched or effect.attribute in self.attributes.get(obj, {})
                scratch._apply(effect, obj, slots, actor)
        return touched and scratch.attributes == self.attributes

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


def effects_of(schema: Schema, outcome: Outcome) -> tuple[Effect, ...]:
    """The effects that happen when an action of ``schema`` ends with ``outcome``."""
    if outcome is Outcome.FAILED:
        return ()
    if outcome is Outcome.PARTIAL:
        return schema.partial or ()
    return schema.effects


def _describe(condition: Condition) -> str:
    if isinstance(condition, AttributeIs):
        operator = "!=" if condition.negated else "=="
        return f"{condition.slot}.{condition.attribute.name.lower()} {operator} {condition.value}"
    if isinstance(condition, LocatedIn):
        return f"{condition.slot} in {condition.container_slot}"
    return f"{condition.slot} held"
