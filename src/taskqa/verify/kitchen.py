"""A small simulated kitchen and a seeded randomized planner that acts out EgoTV tasks.

The world tracks, per object, where it is and four sticky states (clean, hot, cold, sliced;
heating clears cold and cooling clears hot, as in EgoTV's PDDL domain). The planner picks a
random topological order of the task's sub-tasks, a random appliance where there is a choice
(microwave or stove burner), and sometimes a detour that achieves nothing, so executions of one
task differ the way EgoTV's pick-one-of-several-plans does. Every action is checked against its
preconditions, including the ordering preconditions EgoTV compiles into ``then`` tasks: a
sub-task's action needs the states of all earlier blocks and the absence of the states of all
later blocks. A plan that breaks them raises, so every episode is a valid execution.

A segment is one high-level action; a sub-task's action sometimes spans two segments, as a
long action spans several fixed-length windows of a real video.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from taskqa.verify.graph import SubTask
from taskqa.verify.tasks import Task

AFFORDANCES: dict[str, frozenset[SubTask]] = {
    name: frozenset({SubTask.PICK, SubTask.PLACE, *extra})
    for name, extra in {
        "apple": {SubTask.CLEAN, SubTask.HEAT, SubTask.COOL, SubTask.SLICE},
        "tomato": {SubTask.CLEAN, SubTask.HEAT, SubTask.COOL, SubTask.SLICE},
        "potato": {SubTask.CLEAN, SubTask.HEAT, SubTask.COOL, SubTask.SLICE},
        "lettuce": {SubTask.CLEAN, SubTask.COOL, SubTask.SLICE},
        "bread": {SubTask.HEAT, SubTask.COOL, SubTask.SLICE},
        "egg": {SubTask.HEAT, SubTask.COOL, SubTask.CLEAN},
        "mug": {SubTask.CLEAN, SubTask.HEAT, SubTask.COOL},
        "cup": {SubTask.CLEAN, SubTask.HEAT, SubTask.COOL},
        "plate": {SubTask.CLEAN, SubTask.COOL},
        "knife": {SubTask.CLEAN},
        "fork": {SubTask.CLEAN},
        "spoon": {SubTask.CLEAN},
    }.items()
}
TARGET_OBJECTS = tuple(AFFORDANCES)
PLACE_RECEPTACLES = (
    "countertop", "diningtable", "fridge", "microwave", "sinkbasin", "cabinet", "shelf",
    "garbagecan", "sidetable", "drawer", "stoveburner",
)  # fmt: skip
ALWAYS_PRESENT = ("countertop", "sinkbasin", "fridge", "microwave", "stoveburner", "cabinet")
OPTIONAL = ("diningtable", "shelf", "garbagecan", "sidetable", "drawer")
OPENABLE = frozenset({"fridge", "microwave", "cabinet", "drawer"})
HEATERS = ("microwave", "stoveburner")
DISTRACTORS = ("saltshaker", "soapbottle", "pan", "pot", "bowl", "kettle", "dishsponge")
STATE_OF = {
    SubTask.CLEAN: "clean", SubTask.HEAT: "hot", SubTask.COOL: "cold", SubTask.SLICE: "sliced",
}  # fmt: skip


@dataclass(frozen=True)
class Scene:
    number: int
    receptacles: tuple[str, ...]
    contents: dict[str, tuple[str, ...]]  # distractor objects per receptacle
    knife_at: str

    @classmethod
    def generate(cls, number: int) -> Scene:
        rng = random.Random(f"kitchen-scene-{number}")
        optional = [r for r in OPTIONAL if rng.random() < 0.7]
        receptacles = (*ALWAYS_PRESENT, *optional)
        contents = {
            r: tuple(sorted(rng.sample(DISTRACTORS, rng.randint(0, 2)))) for r in receptacles
        }
        return cls(number, receptacles, contents, rng.choice(["countertop", *optional[:1]]))


@dataclass
class ObjectState:
    location: str  # a receptacle or "agent"
    states: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Segment:
    index: int
    action: str  # e.g. "GotoLocation fridge", "CoolObject apple fridge"
    subtask: SubTask | None  # the sub-task this segment carries out, if any
    obj: str | None
    receptacle: str | None
    objects_in_view: tuple[str, ...]
    state_after: dict[str, object]  # the target object's location and states after the segment

    def caption(self) -> str:
        activity = self.action.split(" ", 1)
        verb = {
            "GotoLocation": "go to", "PickupObject": "pick up", "PutObject": "put",
            "CleanObject": "clean", "HeatObject": "heat", "CoolObject": "cool",
            "SliceObject": "slice", "OpenObject": "open", "CloseObject": "close",
        }.get(activity[0], activity[0])  # fmt: skip
        rest = activity[1] if len(activity) > 1 else ""
        return (
            f"Segment: {self.index + 1}. Location: kitchen. Objects: "
            f"{', '.join(self.objects_in_view)}. Activity: {verb} {rest}".rstrip()
        )


@dataclass(frozen=True)
class Episode:
    episode_id: str
    task: str
    obj: str
    receptacle: str | None  # the place target, when the task places
    scene: int
    order: tuple[SubTask, ...]  # the order the sub-tasks were carried out in
    segments: tuple[Segment, ...]


class PreconditionError(RuntimeError):
    """A planned action is not executable: a planner bug, never a property of the data."""


class Kitchen:
    """The mutable world while one episode is acted out; records a segment per action."""

    def __init__(self, scene: Scene, task: Task, obj: str, rng: random.Random) -> None:
        self.scene = scene
        self.task = task
        self.obj = obj
        self.rng = rng
        self.agent_at = "countertop"
        start = rng.choice([r for r in scene.receptacles if r not in {"sinkbasin", "microwave"}])
        self.target = ObjectState(start)
        self.knife = ObjectState(scene.knife_at)
        self.opened: set[str] = set()
        self.segments: list[Segment] = []

    # --- recording ------------------------------------------------------------------------------
    def _view(self) -> tuple[str, ...]:
        here = [self.agent_at, *self.scene.contents.get(self.agent_at, ())]
        for name, state in (("knife", self.knife), (self.obj, self.target)):
            if state.location in {self.agent_at, "agent"} and name not in here:
                here.append(name)
        return tuple(here)

    def _record(
        self, action: str, subtask: SubTask | None = None, receptacle: str | None = None,
        windows: int = 1,
    ) -> None:  # fmt: skip
        state = {"location": self.target.location, "states": sorted(self.target.states)}
        for _ in range(windows):
            self.segments.append(
                Segment(
                    len(self.segments), action, subtask, self.obj if subtask else None,
                    receptacle, self._view(), dict(state),
                )
            )  # fmt: skip

    def _windows(self) -> int:
        return self.rng.choice((1, 1, 2))

    # --- actions --------------------------------------------------------------------------------
    def goto(self, place: str) -> None:
        if self.opened:
            raise PreconditionError(f"goto {place} with {sorted(self.opened)} open")
        if place != self.agent_at:
            self.agent_at = place
            self._record(f"GotoLocation {place}")

    def open(self, place: str) -> None:
        if place in OPENABLE and place not in self.opened:
            self.opened.add(place)
            self._record(f"OpenObject {place}")

    def close(self, place: str) -> None:
        if place in self.opened:
            self.opened.discard(place)
            self._record(f"CloseObject {place}")

    def pickup(self, name: str) -> None:
        state = self.target if name == self.obj else self.knife
        if state.location != self.agent_at:
            raise PreconditionError(f"pick up {name} at {state.location} from {self.agent_at}")
        state.location = "agent"
        subtask = SubTask.PICK if name == self.obj else None
        self._record(f"PickupObject {name}", subtask)

    def put(self, name: str, place: str) -> None:
        state = self.target if name == self.obj else self.knife
        if state.location != "agent" or self.agent_at != place:
            raise PreconditionError(f"put {name} into {place}")
        if name == self.obj:
            self._check_order(SubTask.PLACE)
        state.location = place
        subtask = SubTask.PLACE if name == self.obj else None
        self._record(f"PutObject {name} {place}", subtask, place if subtask else None)

    def change_state(self, subtask: SubTask, appliance: str) -> None:
        if subtask not in AFFORDANCES[self.obj]:
            raise PreconditionError(f"{self.obj} cannot be {STATE_OF[subtask]}")
        held = self.target.location == "agent"
        if self.agent_at != appliance or held == (subtask is SubTask.SLICE):
            raise PreconditionError(f"{subtask} {self.obj} at {self.agent_at}")
        if subtask is SubTask.SLICE and self.knife.location != "agent":
            raise PreconditionError("slicing needs the knife in hand")
        self._check_order(subtask)
        self.target.states.add(STATE_OF[subtask])
        if subtask is SubTask.HEAT:
            self.target.states.discard("cold")
        if subtask is SubTask.COOL:
            self.target.states.discard("hot")
        verb = {SubTask.CLEAN: "Clean", SubTask.HEAT: "Heat", SubTask.COOL: "Cool"}
        action = f"{verb.get(subtask, 'Slice')}Object {self.obj} {appliance}"
        self._record(action, subtask, None, self._windows())

    def _check_order(self, subtask: SubTask) -> None:
        """EgoTV's compiled ``then`` preconditions (place gets none; its goal enforces it)."""
        if subtask is SubTask.PLACE:
            return
        position = next(i for i, block in enumerate(self.task.blocks) if subtask in block)
        for index, block in enumerate(self.task.blocks):
            for other in block:
                if other in (SubTask.PLACE, SubTask.PICK) or other is subtask:
                    continue
                has = STATE_OF[other] in self.target.states
                if index < position and not has:
                    raise PreconditionError(f"{subtask} before {other}")
                if index > position and has:
                    raise PreconditionError(f"{subtask} after {other}")


DETOUR_RATE = 0.25


def random_order(task: Task, rng: random.Random) -> tuple[SubTask, ...]:
    """A random topological order of the task; place goes last, since the goal holds it there."""
    order: list[SubTask] = []
    for block in task.blocks:
        inside = list(block)
        rng.shuffle(inside)
        inside.sort(key=lambda subtask: subtask is SubTask.PLACE)
        order.extend(inside)
    return tuple(order)


def act_out(
    episode_id: str, task: Task, obj: str, receptacle: str | None, scene: Scene, seed: str
) -> Episode:
    """Plan and execute one episode; the same arguments always give the same episode."""
    rng = random.Random(seed)
    kitchen = Kitchen(scene, task, obj, rng)
    start = kitchen.target.location
    kitchen.goto(start)
    kitchen.open(start)
    kitchen.pickup(obj)
    kitchen.close(start)
    order = random_order(task, rng)
    for subtask in order:
        if rng.random() < DETOUR_RATE:
            _detour(kitchen, rng)
        _perform(kitchen, subtask, receptacle, rng)
    return Episode(
        episode_id, task.name, obj, receptacle, scene.number, order, tuple(kitchen.segments)
    )


def _detour(kitchen: Kitchen, rng: random.Random) -> None:
    """A step that achieves nothing: look into a random receptacle on the way."""
    place = rng.choice([r for r in kitchen.scene.receptacles if r != kitchen.agent_at])
    kitchen.goto(place)
    if place in OPENABLE:
        kitchen.open(place)
        kitchen.close(place)


def _perform(
    kitchen: Kitchen, subtask: SubTask, receptacle: str | None, rng: random.Random
) -> None:
    if subtask is SubTask.PICK:
        return  # the object was picked up at the start
    if subtask is SubTask.PLACE:
        if receptacle is None:
            raise PreconditionError("a place task needs a receptacle")
        _into(kitchen, receptacle, lambda: kitchen.put(kitchen.obj, receptacle))
    elif subtask is SubTask.CLEAN:
        kitchen.goto("sinkbasin")
        kitchen.change_state(subtask, "sinkbasin")
    elif subtask in (SubTask.HEAT, SubTask.COOL):
        appliance = rng.choice(HEATERS) if subtask is SubTask.HEAT else "fridge"
        _into(kitchen, appliance, lambda: kitchen.change_state(subtask, appliance))
    else:
        _slice(kitchen)


def _into(kitchen: Kitchen, place: str, act: object) -> None:
    kitchen.goto(place)
    kitchen.open(place)
    assert callable(act)
    act()
    kitchen.close(place)


def _slice(kitchen: Kitchen) -> None:
    kitchen.goto("countertop")
    kitchen.put(kitchen.obj, "countertop")
    kitchen.goto(kitchen.scene.knife_at)
    kitchen.pickup("knife")
    kitchen.goto("countertop")
    kitchen.change_state(SubTask.SLICE, "countertop")
    kitchen.put("knife", "countertop")
    kitchen.pickup(kitchen.obj)
