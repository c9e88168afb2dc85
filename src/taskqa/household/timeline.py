"""The full world state of a recording at any moment, rebuilt from its actions.

A recording stores before/after snapshots only of the things each action involves. The state
of everything at time ``t`` is the initial state (the recording's ``initial_state``, else what
the first action on a thing found, else the domain's defaults) updated by every action so far:
an action's ``before`` holds from its start and its ``after`` from its middle on, so a change
shows while the action happens. A thing whose place differs before and after an action moves
during it (from where it rested, through the hand, to where it ends up). ``unknown`` values
in annotations are annotators' gaps, not states: they are skipped, never drawn.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from taskqa.model import UNKNOWN, Attribute, Recording, RelationKind, Snapshot
from taskqa.simulation.domain import Domain

HELD_BY = "held-by"
RESTING = ("in", "on-top-of", "inside", "under", "next-to", "attached-to", HELD_BY)


@dataclass(frozen=True)
class Placement:
    """Where a thing rests: in or on another thing, in an agent's hand, or (None) at its own
    spot (a fixture)."""

    holder: str | None = None
    relation: str | None = None

    @property
    def held(self) -> bool:
        return self.relation == HELD_BY


@dataclass(frozen=True)
class Move:
    """A thing carried during an action: from ``source`` to ``target`` over [start, end]."""

    start: float
    end: float
    source: Placement
    target: Placement
    agent: str

    def progress(self, t: float) -> float:
        span = self.end - self.start
        return 1.0 if span <= 0 else min(1.0, max(0.0, (t - self.start) / span))


@dataclass(frozen=True)
class ThingState:
    attributes: dict[Attribute, str]
    placement: Placement
    move: Move | None = None


@dataclass
class _Track:
    """Known values of one thing's attribute (or place) in time order."""

    times: list[float] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    first_is_before: bool = False

    def add(self, time: float, value: str, before: bool) -> None:
        if not self.times:
            self.first_is_before = before
        self.times.append(time)
        self.values.append(value)

    def at(self, t: float, initial: str | None) -> str | None:
        index = bisect_right(self.times, t) - 1
        if index >= 0:
            return self.values[index]
        if initial is not None:
            return initial
        return self.values[0] if self.values and self.first_is_before else None


class Timeline:
    """The state of every thing in a recording at any time (seconds)."""

    def __init__(self, recording: Recording, domain: Domain | None = None) -> None:
        self.recording = recording
        self.domain = domain
        self.agents = [a.id for a in recording.agents] or sorted(
            {a.agent for a in recording.actions}
        )
        self._initial_attributes: dict[str, dict[Attribute, str]] = {}
        self._initial_place: dict[str, Placement] = {}
        self._attributes: dict[tuple[str, Attribute], _Track] = {}
        self._places: dict[str, _Track] = {}
        self._moves: dict[str, list[Move]] = {}
        self._expected: dict[str, dict[Attribute, set[str]]] = {}
        self._start_initial_state(recording, domain)
        self._read_actions(recording)
        self.things = sorted(
            set(self._initial_attributes)
            | set(self._initial_place)
            | {name for name, _ in self._attributes}
            | set(self._places)
        )

    # --- building ----------------------------------------------------------------------------
    def _start_initial_state(self, recording: Recording, domain: Domain | None) -> None:
        if recording.initial_state:
            for name, snapshot in recording.initial_state.items():
                self._initial_attributes[name] = _known(snapshot.attributes)
                self._initial_place[name] = _placement(snapshot)
            return
        if domain is None or recording.environment is None:
            return
        for name in domain.objects_in(recording.environment):
            spec = domain.spec.objects[name]
            if spec.distractor:
                continue  # present in only some episodes: drawn only when an action names it
            self._initial_attributes[name] = {}  # defaults come from the domain, see below
            if spec.at is not None:
                holds = domain.spec.objects[spec.at].holds or "on-top-of"
                self._initial_place[name] = Placement(spec.at, holds)
            else:
                self._initial_place[name] = Placement()

    def _defaults(self, name: str) -> dict[Attribute, str]:
        if self.recording.initial_state or self.domain is None:
            return {}
        if name not in self.domain.spec.objects:
            return {}
        return self.domain.initial_attributes(name)

    def _read_actions(self, recording: Recording) -> None:
        for action in sorted(recording.actions, key=lambda a: (a.start, a.end, a.id)):
            middle = (action.start + action.end) / 2
            for transition in action.transitions:
                if transition.is_agent or transition.entity in self.agents:
                    continue
                name = transition.entity
                for attribute, value in transition.before.attributes.items():
                    if value != UNKNOWN:
                        self._track(name, attribute).add(action.start, value, before=True)
                for attribute, value in transition.after.attributes.items():
                    if value != UNKNOWN:
                        self._track(name, attribute).add(middle, value, before=False)
                before, after = _placement(transition.before), _placement(transition.after)
                places = self._places.setdefault(name, _Track())
                if _has_place(transition.before):
                    places.add(action.start, _encode(before), before=True)
                if _has_place(transition.after):
                    places.add(action.end, _encode(after), before=False)
                if (
                    _has_place(transition.before)
                    and _has_place(transition.after)
                    and before != after
                ):
                    move = Move(action.start, action.end, before, after, action.agent)
                    self._moves.setdefault(name, []).append(move)

    def _track(self, name: str, attribute: Attribute) -> _Track:
        return self._attributes.setdefault((name, attribute), _Track())

    def set_initial(self, name: str, attributes: dict[Attribute, str]) -> None:
        """Change what a thing starts as (stills such as the contact sheet draw one state)."""
        self._initial_attributes.setdefault(name, {}).update(attributes)

    # --- reading -------------------------------------------------------------------------------
    def attributes_at(self, name: str, t: float) -> dict[Attribute, str]:
        values = dict(self._defaults(name))
        values.update(self._initial_attributes.get(name, {}))
        known = {a for (n, a) in self._attributes if n == name} | set(values)
        result: dict[Attribute, str] = {}
        for attribute in sorted(known, key=list(Attribute).index):
            track = self._attributes.get((name, attribute))
            initial = values.get(attribute)
            if track is None:
                if initial is not None:
                    result[attribute] = initial
                continue
            value = track.at(t, initial if self.recording.initial_state else None)
            if value is None:
                value = initial
            if value is not None:
                result[attribute] = value
        return result

    def placement_at(self, name: str, t: float) -> Placement:
        track = self._places.get(name)
        initial = self._initial_place.get(name)
        if track is None:
            return initial or Placement()
        code = track.at(
            t, _encode(initial) if initial is not None and self.recording.initial_state else None
        )
        if code is None:
            return initial or Placement()
        return _decode(code)

    def move_at(self, name: str, t: float) -> Move | None:
        for move in self._moves.get(name, ()):
            if move.start <= t < move.end:
                return move
        return None

    def values_ever(self, name: str) -> dict[Attribute, set[str]]:
        """Every value each attribute of the thing takes at some moment of the recording."""
        found: dict[Attribute, set[str]] = {}
        for source in (self._defaults(name), self._initial_attributes.get(name, {})):
            for attribute, value in source.items():
                found.setdefault(attribute, set()).add(value)
        for (thing, attribute), track in self._attributes.items():
            if thing == name:
                found.setdefault(attribute, set()).update(track.values)
        for attribute, values in self._expected.get(name, {}).items():
            found.setdefault(attribute, set()).update(values)
        return found

    def expect(self, name: str, attribute: Attribute, values: list[str]) -> None:
        """Declare values a thing will be shown in although the recording never has them
        (stills such as the contact sheet change a thing's state after the scene is built)."""
        self._expected.setdefault(name, {}).setdefault(attribute, set()).update(values)

    def holders_ever(self, name: str) -> list[str]:
        """Every thing or agent ``name`` rests in or on at some moment."""
        holders = set()
        initial = self._initial_place.get(name)
        if initial is not None and initial.holder is not None:
            holders.add(initial.holder)
        track = self._places.get(name)
        for code in track.values if track is not None else ():
            holder = _decode(code).holder
            if holder is not None:
                holders.add(holder)
        return sorted(holders)

    def state_at(self, name: str, t: float) -> ThingState:
        return ThingState(
            self.attributes_at(name, t), self.placement_at(name, t), self.move_at(name, t)
        )

    def holder_chain(self, name: str, t: float) -> list[str]:
        """The things (and finally the agent) ``name`` rests in or on, innermost first."""
        chain: list[str] = []
        current: str | None = name
        while current is not None and current not in chain and len(chain) < 16:
            place = self.placement_at(current, t)
            current = place.holder
            if current is not None:
                chain.append(current)
            if current in self.agents:
                break
        return chain

    def enclosed(self, name: str, t: float) -> bool:
        """Inside something closed (a shut fridge hides what is in it)."""
        for holder in self.holder_chain(name, t):
            if holder in self.agents:
                return False
            if self.attributes_at(holder, t).get(Attribute.OPENNESS) == "closed":
                return True
        return False

    def held_by(self, agent: str, t: float) -> list[str]:
        return [n for n in self.things if self.placement_at(n, t) == Placement(agent, HELD_BY)]

    def zone_of(self, name: str, t: float) -> str | None:
        """The zone of the fixture a thing ultimately rests in; None when carried or unknown."""
        if self.domain is None:
            return None
        for candidate in (name, *self.holder_chain(name, t)):
            if candidate in self.agents:
                return None
            spec = self.domain.spec.objects.get(candidate)
            if spec is not None and spec.fixture:
                return spec.zone
        return None


def _known(attributes: dict[Attribute, str]) -> dict[Attribute, str]:
    return {a: v for a, v in attributes.items() if v != UNKNOWN}


def _has_place(snapshot: Snapshot) -> bool:
    return any(r.relation in RESTING for r in snapshot.relations if r.kind == RelationKind.SPATIAL)


def _placement(snapshot: Snapshot) -> Placement:
    for relation in snapshot.relations:
        if relation.kind == RelationKind.SPATIAL and relation.relation in RESTING:
            return Placement(relation.object, relation.relation)
    return Placement()


def _encode(place: Placement) -> str:
    return f"{place.relation or ''}|{place.holder or ''}"


def _decode(code: str) -> Placement:
    relation, holder = code.split("|", 1)
    return Placement(holder or None, relation or None)


def action_zone(timeline: Timeline, names: Iterable[str], t: float) -> str | None:
    """Where a person stands to act on ``names`` (the first one resting in a fixture's zone)."""
    for name in names:
        zone = timeline.zone_of(name, t)
        if zone is not None:
            return zone
    return None
