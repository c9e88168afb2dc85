"""What a domain's action schemas say about states, in the terms questions use.

A schema says what an action needs (``patient.openness == closed``) and what it does
(``patient.openness = open``, ``patient -> hand``). From these alone, without the video, one
can tell the state of an object an action names before or after it, which attributes the
domain never changes, which actions can make an attribute take a value, and whether one action
sets up what another needs. ``taskqa.questions.wellposed`` rejects questions whose answer
follows from such knowledge and the question's own text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from taskqa.model import ATTRIBUTE_VALUES, VIEWPOINT_ATTRIBUTES, Attribute, AttributeKind
from taskqa.model.attributes import attribute_kind
from taskqa.simulation.domain import Domain
from taskqa.simulation.rules import (
    AttributeIs,
    CopyAttribute,
    HeldByActor,
    LocatedIn,
    MoveTo,
    SetAttribute,
)

Key = tuple[str, str]  # (slot, attribute name as facts write it)


@dataclass(frozen=True)
class VerbFacts:
    """One schema as lookups: what it needs and what it writes, per (slot, attribute)."""

    needs: dict[Key, str]  # the value the slot's attribute must have before
    writes: dict[Key, str | None]  # the value set afterwards; None: copied, so not known
    held: frozenset[str]  # slots the actor must hold
    located: frozenset[tuple[str, str]]  # (slot, container slot) that must be in it
    moves: frozenset[tuple[str, str]]  # (slot, target slot or "hand")


def _complement(attribute: str, value: str) -> str | None:
    values = ATTRIBUTE_VALUES.get(Attribute(attribute), ())
    others = [v for v in values if v != value]
    return others[0] if len(others) == 1 else None


def _verb_facts(domain: Domain, verb: str) -> VerbFacts:
    schema = domain.schemas[verb]
    needs: dict[Key, str] = {}
    held: set[str] = set()
    located: set[tuple[str, str]] = set()
    for condition in schema.requires:
        if isinstance(condition, AttributeIs):
            key = (condition.slot, condition.attribute.value)
            value = condition.value
            if condition.negated:
                # "!= off" pins the value only where the attribute has two values
                complement = _complement(key[1], value)
                if complement is None:
                    continue
                value = complement
            needs[key] = value
        elif isinstance(condition, HeldByActor):
            held.add(condition.slot)
        elif isinstance(condition, LocatedIn):
            located.add((condition.slot, condition.container_slot))
    writes: dict[Key, str | None] = {}
    moves: set[tuple[str, str]] = set()
    for effect in schema.effects:
        if isinstance(effect, SetAttribute):
            writes[(effect.slot, effect.attribute.value)] = effect.value
        elif isinstance(effect, CopyAttribute):
            writes[(effect.slot, effect.attribute.value)] = None
        elif isinstance(effect, MoveTo):
            moves.add((effect.slot, effect.target_slot))
    return VerbFacts(needs, writes, frozenset(held), frozenset(located), frozenset(moves))


@dataclass
class SchemaKnowledge:
    """The schemas of a domain, plus the verbs that failed or were partial in the corpus.

    An action that failed did not apply its effects, so the state after a verb that has failed
    somewhere in the corpus is not known from its schema; a change it made still is.
    """

    verbs: dict[str, VerbFacts]
    fallible: frozenset[str] = frozenset()
    fixed: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, domain: Domain, fallible: Iterable[str] = ()) -> SchemaKnowledge:
        verbs = {verb: _verb_facts(domain, verb) for verb in domain.schemas}
        written = {attribute for facts in verbs.values() for _, attribute in facts.writes}
        fixed = {
            a.value for a in Attribute if a not in VIEWPOINT_ATTRIBUTES and a.value not in written
        }
        return cls(verbs, frozenset(fallible), frozenset(fixed))

    def state(
        self, verb: str, slot: str, attribute: str, moment: str, *, compared: bool = False
    ) -> str | None:
        """The value a ``state`` fact of the action must have at ``moment``, if pinned.

        ``compared``: the question is asked only where before and after differ (a moment
        parameter, see the degenerate rule), so a failed action, which changed nothing, never
        reaches it and the effect holds even for verbs that can fail.
        """
        facts = self.verbs.get(verb)
        if facts is None:
            return None
        key = (slot, attribute)
        if moment == "before":
            return facts.needs.get(key)
        if key in facts.writes:
            return None if verb in self.fallible and not compared else facts.writes[key]
        return facts.needs.get(key)  # untouched: as it was, which the schema pinned

    def change(self, verb: str, slot: str, attribute: str, side: str) -> str | None:
        """The ``before``/``after`` value of a change the action made, if pinned."""
        facts = self.verbs.get(verb)
        if facts is None:
            return None
        key = (slot, attribute)
        after = facts.writes.get(key)
        if side == "after":
            return after
        before = facts.needs.get(key)
        if before is None and after is not None:
            before = _complement(attribute, after)  # a change of a two-valued attribute
        return before

    def possible(self, attribute: str, side: str) -> set[str]:
        """Every ``before``/``after`` value a change of ``attribute`` can have, by any verb."""
        found: set[str] = set()
        every = set(ATTRIBUTE_VALUES.get(Attribute(attribute), ()))
        for verb, facts in self.verbs.items():
            for slot, name in facts.writes:
                if name != attribute:
                    continue
                value = self.change(verb, slot, attribute, side)
                found |= every if value is None else {value}
        return found

    def changed_attributes(self, verb: str, slot: str, owned: Iterable[str]) -> set[str]:
        """The attributes among ``owned`` that the verb may change on ``slot``."""
        facts = self.verbs.get(verb)
        if facts is None:
            return set()
        return {a for a in owned if (slot, a) in facts.writes}

    def surely_changes(self, verb: str, slot: str, attribute: str) -> bool:
        """Whether doing the verb always changes the attribute (needs one value, sets another)."""
        facts = self.verbs.get(verb)
        if facts is None or verb in self.fallible:
            return False
        after = facts.writes.get((slot, attribute))
        before = facts.needs.get((slot, attribute))
        return after is not None and before is not None and before != after

    def verbs_setting(self, attribute: str, value: str | None) -> set[str]:
        """Verbs whose schema can give ``attribute`` the ``value`` (any value when None)."""
        found = set()
        for verb, facts in self.verbs.items():
            for (_, name), written in facts.writes.items():
                if name == attribute and (value is None or written in (value, None)):
                    found.add(verb)
        return found

    def sets_up(self, cause: ActionParts, effect: ActionParts) -> bool:
        """Whether ``cause`` establishes, on an object both name, something ``effect`` needs."""
        before = self.verbs.get(cause.verb)
        after = self.verbs.get(effect.verb)
        if before is None or after is None:
            return False
        for (slot, attribute), value in after.needs.items():
            for obj in effect.slots.get(slot, ()):
                for cause_slot in cause.slots_of(obj):
                    written = before.writes.get((cause_slot, attribute), "")
                    if written == value:
                        return True
        for slot in after.held:
            for obj in effect.slots.get(slot, ()):
                if any((s, "hand") in before.moves for s in cause.slots_of(obj)):
                    return True
        for slot, container in after.located:
            for obj in effect.slots.get(slot, ()):
                for place in effect.slots.get(container, ()):
                    for moved, target in before.moves:
                        if obj in cause.slots.get(moved, ()) and place in cause.slots.get(
                            target, ()
                        ):
                            return True
        return False


@dataclass(frozen=True)
class ActionParts:
    """An action's verb and its objects per slot."""

    verb: str
    slots: dict[str, tuple[str, ...]]

    def slots_of(self, obj: str) -> list[str]:
        return [slot for slot, names in self.slots.items() if obj in names]


def affordances() -> frozenset[str]:
    """Attributes that never change where no domain says so: EgoTaskQA's affordances."""
    return frozenset(a.value for a in Attribute if attribute_kind(a) is AttributeKind.AFFORDANCE)
