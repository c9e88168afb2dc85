"""One segment of a block: an entity's fluents and relations before or after the action."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taskqa.model import Attribute, Relation, RelationKind
from taskqa.problems import Location
from taskqa.sources.egotaskqa.checks import Checker
from taskqa.sources.egotaskqa.vocabulary import (
    BINARY_VALUES,
    PEOPLE,
    PLAIN_VISIBILITY,
    RELATION_NAMES_IN,
    WRITTEN_FLUENTS,
    decode_value,
    fluent_attribute,
    raw_values,
    relation_kind,
)

MOMENTS = ("before", "after")


@dataclass
class Segment:
    obj: str
    moment: str
    attributes: dict[Attribute, str]
    relations: list[Relation]


@dataclass
class SegmentReader:
    """Reads segments of one video, naming people by ``names`` (P1/P2 -> agent id)."""

    check: Checker
    names: Mapping[str, str]
    people_seen: set[str] = field(default_factory=set)

    def read(self, raw: object, location: list[str | int], pid: str) -> Segment | None:
        check = self.check
        fields = check.mapping(raw, location, "a segment object")
        if fields is None:
            return None
        segment_pid = check.choice(check.get(fields, "pid", location), [*location, "pid"], PEOPLE)
        if segment_pid is not None and segment_pid != pid:
            check.problem(
                [*location, "pid"], f"expected the block's person {pid} (got {segment_pid})"
            )
        obj = check.text(check.get(fields, "obj", location), [*location, "obj"])
        moment = check.choice(check.get(fields, "type", location), [*location, "type"], MOMENTS)
        state = check.mapping(
            check.get(fields, "state", location), [*location, "state"], "an object of fluents"
        )
        rel = check.mapping(
            check.get(fields, "rel", location), [*location, "rel"], "an object of relation lists"
        )
        attributes = None if state is None else self._state(state, [*location, "state"], pid)
        relations = None
        if rel is not None and obj is not None:
            relations = self._relations(rel, [*location, "rel"], obj)
        if obj is None or moment is None or attributes is None or relations is None:
            return None
        if obj in PEOPLE:
            self.people_seen.add(obj)
        return Segment(obj, moment, attributes, relations)

    def _state(
        self, state: dict[str, Any], location: Location, pid: str
    ) -> dict[Attribute, str] | None:
        attributes: dict[Attribute, str] = {}
        given_as: dict[Attribute, str] = {}
        plain: str | None = None
        failed = False
        for key, value in state.items():
            if key == PLAIN_VISIBILITY:
                plain = self.check.choice(value, [*location, key], BINARY_VALUES)
                failed |= plain is None
                continue
            attribute = fluent_attribute(key, pid)
            if attribute is None or attribute in given_as:
                self.check.problem([*location, key], _fluent_key_problem(attribute, given_as))
                failed = True
                continue
            given_as[attribute] = key
            raw = self.check.choice(value, [*location, key], raw_values(attribute))
            if raw is None:
                failed = True
            elif (decoded := decode_value(attribute, raw)) is not None:
                attributes[attribute] = decoded
        # The plain key has no viewer; it fills in the acting person's own view when missing.
        seen = None if plain is None else decode_value(Attribute.VISIBILITY_TO_ME, plain)
        if seen is not None:
            attributes.setdefault(Attribute.VISIBILITY_TO_ME, seen)
        return None if failed else attributes

    def _relations(
        self, rel: dict[str, Any], location: Location, obj: str
    ) -> list[Relation] | None:
        """The relations of every list, in the order the lists and their entries come."""
        relations: list[Relation] = []
        failed = False
        for key, entries in rel.items():
            kind = relation_kind(key)
            if kind is None:
                self.check.problem(
                    [*location, key],
                    "unknown relation list; expected a_rel, s_rel or m_rel "
                    "(another *_rel list is read as multi-agent relations)",
                )
                failed = True
                continue
            listed = self.check.sequence(entries, [*location, key], "a list of relations")
            for position, entry in enumerate(listed or []):
                relation = self._relation(entry, [*location, key, position], obj, kind)
                failed |= relation is None
                relations += [] if relation is None else [relation]
            failed |= listed is None
        return None if failed else relations

    def _relation(
        self, raw: object, location: Location, obj: str, kind: RelationKind
    ) -> Relation | None:
        fields = self.check.mapping(raw, location, 'a relation {"o1", "rel", "o2"}')
        if fields is None:
            return None
        subject = self.check.text(self.check.get(fields, "o1", location), [*location, "o1"])
        name = self.check.text(self.check.get(fields, "rel", location), [*location, "rel"])
        target = fields.get("o2")
        if target is not None:
            target = self.check.text(target, [*location, "o2"])
            if target is None:
                return None
        if subject is not None and subject != obj:
            self.check.problem(
                [*location, "o1"], f"expected the segment's obj {obj!r} (got {subject!r})"
            )
            return None
        if subject is None or name is None:
            return None
        self.people_seen.update(p for p in (subject, target) if p in PEOPLE)
        return Relation(
            subject=self.names.get(subject, subject),
            relation=RELATION_NAMES_IN.get(name, name),
            object=None if target is None else self.names.get(target, target),
            kind=kind,
        )


def _fluent_key_problem(attribute: Attribute | None, given_as: dict[Attribute, str]) -> str:
    if attribute is None:
        return f"unknown fluent; expected one of {', '.join(WRITTEN_FLUENTS)}, {PLAIN_VISIBILITY}"
    return f"repeats {attribute.value!r}, already given as {given_as[attribute]!r}"
