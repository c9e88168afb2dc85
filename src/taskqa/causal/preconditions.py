"""Dependencies from a domain's action schemas: what a simulated recording really needed.

A simulated recording carries the full initial state of every object and each action's verb,
slots and outcome, and its domain says what every verb requires and changes. So the question
"could B still have been done without A?" has an exact answer: replay the recording's actions
in time order from the initial state, leaving A out, and check each later action's
preconditions against the replayed state, as the simulator does
(``WorldState.violated``/``apply``). An action whose preconditions fail is not executable and
its effects do not happen, so actions after it may fail in turn. A failed action has no
effects and a partial one only its schema's ``partial`` effects, as in the simulation.

Only real preconditions count this way: an opening undone by a closing is not what a later
opening needed, and a thing merely left where it was put is not a dependency unless a later
action requires it to be there (``get X from Y`` requires ``X in Y``).

``Replay.enablers`` says, for each action, which earlier action made each of its preconditions
true (the last action before it that turned the condition from false to true; nothing when the
condition held from the start). These are the direct links a structure draws; whether an action
depends on another, directly or through a chain, is decided by replay alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import cache

from taskqa.model import ActionSegment, Attribute, Outcome, Recording, RelationKind, Source
from taskqa.simulation.domain import Domain, Schema, load_domain
from taskqa.simulation.rules import AttributeIs, Condition, HeldByActor, LocatedIn
from taskqa.simulation.world import WorldState


@dataclass(frozen=True)
class Enabler:
    """``action`` made ``condition`` (said with its objects) true for a later action."""

    action: str
    condition: str


class Replay:
    """A recording's actions re-run from its initial state under a domain's schemas.

    ``order`` is the time order replays follow; ``states[i]`` is the world just before the
    ``i``-th action of the recording as it happened.
    """

    def __init__(self, domain: Domain, initial: WorldState, actions: Sequence[ActionSegment]):
        self.domain = domain
        self.actions = tuple(actions)
        self.order = [a.id for a in self.actions]
        self.position = {a.id: i for i, a in enumerate(self.actions)}
        self.states = [initial]
        self.consistent = True  # every action's preconditions held as recorded
        state = initial.copy()
        for action in self.actions:
            if not self._step(state, action):
                self.consistent = False
            self.states.append(state.copy())

    def _schema(self, action: ActionSegment) -> Schema:
        return self.domain.schemas[action.verb]

    def _step(self, state: WorldState, action: ActionSegment) -> bool:
        """Do ``action`` on ``state`` if it can be done; whether it could."""
        schema = self._schema(action)
        if state.violated(schema, action.slots, action.agent):
            return False
        state.apply(schema, action.slots, action.agent, action.outcome)
        return True

    def executable(self, removed: Collection[str]) -> dict[str, bool]:
        """Whether each action could still be done had the ``removed`` ones not happened."""
        gone = [self.position[a] for a in removed if a in self.position]
        if not gone:
            return dict.fromkeys(self.order, True)
        first = min(gone)
        verdict = {a: True for a in self.order[:first]}
        state = self.states[first].copy()
        for action in self.actions[first:]:
            verdict[action.id] = action.id not in removed and self._step(state, action)
        return verdict

    def inserted(self, copied: str, before: str) -> dict[str, bool] | None:
        """Whether each action from ``before`` on could still be done had the person also done
        ``copied`` (one of the recording's actions, done again) right before it; None when
        ``copied`` itself could not have been done then (the question has no premise)."""
        start = self.position[before]
        state = self.states[start].copy()
        added = self.actions[self.position[copied]].model_copy(
            update={"agent": self.actions[start].agent, "outcome": Outcome.DONE}
        )
        if not self._step(state, added):
            return None
        return {a.id: self._step(state, a) for a in self.actions[start:]}

    def dependants(self, root: str) -> list[str]:
        """The actions that could not be done without ``root`` (``root`` itself left out)."""
        verdict = self.executable([root])
        return [a for a in self.order if a != root and not verdict[a]]

    def enablers(self) -> dict[str, list[Enabler]]:
        """For each action, the earlier actions that made its preconditions true."""
        found: dict[str, list[Enabler]] = {}
        for index, action in enumerate(self.actions):
            schema = self._schema(action)
            for condition in schema.requires:
                if not getattr(action.slots, condition.slot):
                    continue
                probe = replace(schema, requires=(condition,))
                maker = self._made_true(probe, action, index)
                if maker is not None:
                    text = describe(condition, action)
                    found.setdefault(action.id, []).append(Enabler(maker, text))
        return found

    def _made_true(self, probe: Schema, action: ActionSegment, index: int) -> str | None:
        """The last action before ``index`` that turned ``probe``'s condition true."""

        def holds(state: WorldState) -> bool:
            return not state.violated(probe, action.slots, action.agent)

        if not holds(self.states[index]):
            return None  # not true when the action ran (only in an inconsistent replay)
        for k in range(index, 0, -1):
            if not holds(self.states[k - 1]):
                return self.order[k - 1]
        return None  # true from the start


def describe(condition: Condition, action: ActionSegment) -> str:
    """A condition with its objects: ``knife in drawer``, ``drawer.openness == open``."""

    def names(slot: str) -> str:
        return ", ".join(getattr(action.slots, slot))

    if isinstance(condition, AttributeIs):
        operator = "!=" if condition.negated else "=="
        attribute = condition.attribute.name.lower()
        return f"{names(condition.slot)}.{attribute} {operator} {condition.value}"
    if isinstance(condition, LocatedIn):
        return f"{names(condition.slot)} in {names(condition.container_slot)}"
    if isinstance(condition, HeldByActor):
        return f"{names(condition.slot)} held by {action.agent}"
    raise TypeError(condition)


@cache
def _builtin() -> Domain:
    return load_domain()


def schema_replay(recording: Recording, domain: Domain | None = None) -> Replay | None:
    """The replay of a simulated recording under its domain; None where that cannot be done.

    Without ``domain`` the built-in one is taken for a recording that names it (its
    ``metadata["domain"]``). None for recordings that are not simulated, carry no initial
    state, use verbs or objects the domain lacks, or whose recorded actions do not all pass
    the domain's preconditions in time order (the domain is not the one they came from).
    """
    if recording.source is not Source.SIMULATED or not recording.initial_state:
        return None
    if domain is None:
        domain = _builtin()
        if recording.metadata.get("domain", domain.name) != domain.name:
            return None
    if any(a.verb not in domain.schemas for a in recording.actions):
        return None
    known = domain.spec.objects
    if any(name not in known for name in recording.initial_state):
        return None
    actions = sorted(recording.actions, key=lambda a: (a.start, a.end, a.id))
    try:
        replay = Replay(domain, _initial_world(recording, domain), actions)
    except (IndexError, KeyError):  # an action without the slot an effect moves things to
        return None
    return replay if replay.consistent else None


def _initial_world(recording: Recording, domain: Domain) -> WorldState:
    start: dict[str, dict[Attribute, str]] = {
        name: dict(snapshot.attributes) for name, snapshot in recording.initial_state.items()
    }
    world = WorldState(domain, recording.environment or "", [a.id for a in recording.agents], start)
    world.location = {}
    for name, snapshot in recording.initial_state.items():
        for relation in snapshot.relations_of(RelationKind.SPATIAL):
            if relation.object is not None:
                world.location[name] = relation.object
    return world
