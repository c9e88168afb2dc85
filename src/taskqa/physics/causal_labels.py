"""Two machine definitions of "A is responsible for B" to set against human judgments.

The trace heuristic is CLEVRER's: every object has a time-ordered trace of its events; the
direct causes of an event are the events just before it in the traces of its objects, and the
causes of an event are the transitive closure of direct causes. The counterfactual label needs
the simulator: A is responsible for B when B no longer happens after the objects that take part
in A, but not in B, are removed and the scene is simulated again. When A involves only objects
of B there is nothing to remove and the label is "not responsible".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from taskqa.model.physics import EventKind
from taskqa.physics.clevrer_format import ClevrerAnnotation
from taskqa.physics.engine import simulate_scene
from taskqa.physics.events import (
    DetectorConfig,
    Event,
    detect_object_events,
    ground_truth_events,
)
from taskqa.physics.scene import SceneSpec

# Which events become graph nodes first when a scene has more than the cap.
NODE_PRIORITY = (
    EventKind.COLLISION,
    EventKind.ENTER,
    EventKind.START_MOVING,
    EventKind.TURN,
    EventKind.SPIN,
    EventKind.STOP_MOVING,
    EventKind.SLOW_DOWN,
    EventKind.SPEED_UP,
    EventKind.EXIT,
    EventKind.MOVE_TOGETHER,
)
SINGLE_OBJECT_KINDS = frozenset(NODE_PRIORITY) - {
    EventKind.COLLISION,
    EventKind.ENTER,
    EventKind.EXIT,
    EventKind.MOVE_TOGETHER,
}


def scene_events(
    annotation: ClevrerAnnotation, config: DetectorConfig | None = None
) -> list[Event]:
    """The simulator's enter, exit and collision events plus detected single-object events."""
    config = config or DetectorConfig()
    events = ground_truth_events(annotation)
    for object_id in range(len(annotation.object_property)):
        events.extend(
            e
            for e in detect_object_events(annotation, object_id, config)
            if e.kind in SINGLE_OBJECT_KINDS
        )
    return sorted(set(events))


def select_nodes(events: Sequence[Event], limit: int) -> list[Event]:
    """At most ``limit`` events, by kind priority then time, returned in time order."""
    ranked = sorted(events, key=lambda e: (NODE_PRIORITY.index(e.kind), e.frame, e))
    return sorted(ranked[:limit])


def heuristic_causes(events: Sequence[Event]) -> list[set[int]]:
    """For each event (by index, events in time order), the indices of all its causes."""
    direct: list[set[int]] = [set() for _ in events]
    last_in_trace: dict[int, int] = {}
    for index, event in enumerate(events):
        for object_id in event.objects:
            if object_id in last_in_trace:
                direct[index].add(last_in_trace[object_id])
            last_in_trace[object_id] = index
    closure: list[set[int]] = []
    for index in range(len(events)):
        # Causes come earlier in the list, so their closures are already complete.
        ancestors = set(direct[index])
        for cause in direct[index]:
            ancestors |= closure[cause]
        closure.append(ancestors)
    return closure


@dataclass
class CounterfactualOracle:
    """Answers "would B still happen without A's other objects?" by simulating again."""

    spec: SceneSpec
    events_of: Callable[[ClevrerAnnotation], list[Event]]
    tolerance: int | None = None  # frames; None: the effect may happen at any time
    runs: int = 0

    def __post_init__(self) -> None:
        self._cache: dict[frozenset[int], list[Event]] = {}

    def responsible(self, cause: Event, effect: Event) -> bool:
        removed = frozenset(cause.objects) - frozenset(effect.objects)
        if not removed:
            return False
        return not any(e.same_happening(effect, self.tolerance) for e in self._events(removed))

    def _events(self, removed: frozenset[int]) -> list[Event]:
        if removed not in self._cache:
            self.runs += 1
            self._cache[removed] = self.events_of(simulate_scene(self.spec, removed))
        return self._cache[removed]


@dataclass(frozen=True)
class PairLabels:
    cause: int  # event indices
    effect: int
    heuristic: bool
    counterfactual: bool


def label_pairs(
    nodes: Sequence[Event], all_events: Sequence[Event], oracle: CounterfactualOracle
) -> list[PairLabels]:
    """Both machine labels for every ordered pair of nodes, the cause strictly first.

    Traces run over ``all_events`` (every event of the scene, in time order), so a chain of
    causes through events that are not nodes still counts.
    """
    causes = heuristic_causes(all_events)
    position = {event: index for index, event in enumerate(all_events)}
    labels = []
    for effect_index, effect in enumerate(nodes):
        for cause_index, cause in enumerate(nodes):
            if cause.frame >= effect.frame:
                continue  # simultaneous events do not cause each other
            labels.append(
                PairLabels(
                    cause_index,
                    effect_index,
                    heuristic=position[cause] in causes[position[effect]],
                    counterfactual=oracle.responsible(cause, effect),
                )
            )
    return labels
