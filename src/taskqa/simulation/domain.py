"""Loading and checking a declarative domain file (see ``domains/household.yaml``)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.model import ActionSlots, Attribute, TaskGraph, TaskStep
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error
from taskqa.simulation.interruptions import (
    InterruptionSpec,
    WorldCondition,
    parse_world_condition,
)
from taskqa.simulation.rules import (
    SLOTS,
    Condition,
    Effect,
    RuleError,
    attribute_named,
    parse_condition,
    parse_effect,
)
from taskqa.sources.lemma_actions import ActionStringError, parse_action

BUILTIN_DOMAIN = "household"
ERROR_KINDS = ("preparation", "measurement", "timing", "technique", "temperature")
START, END = "START", "END"
PLACE = "at"  # the `vary` key that draws where a carried thing starts, not an attribute


class RoomSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    zones: dict[str, list[str]] = Field(min_length=1)
    handover: str | None = Field(
        default=None, description="Where one person leaves things for the other to pick up."
    )


class ObjectSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    room: str
    zone: str | None = None
    fixture: bool = False
    holds: Literal["in", "on-top-of"] | None = None
    at: str | None = None
    category: str | None = Field(
        default=None, description="The kind of thing (mug, plate); the object's id when absent."
    )
    color: str | None = Field(
        default=None, description="A plain colour word that tells apart things of one category."
    )
    attributes: dict[str, str] = Field(default_factory=dict)
    vary: dict[str, list[str]] = Field(
        default_factory=dict,
        description="attribute -> the values it may start with, drawn per episode (uniformly; "
        "repeat a value to weight it); `at: [holders]` draws where a carried thing starts.",
    )
    distractor: bool = Field(
        default=False,
        description="Present in only some episodes, and never used by a task.",
    )


class ActionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    template: str
    acting: str
    duration: tuple[float, float]
    requires: list[str] = Field(default_factory=list)
    effects: list[str] = Field(default_factory=list)
    fails: bool = Field(
        default=False, description="May fail: nothing changes and the person tries again."
    )
    partial: list[str] | None = Field(
        default=None,
        description="May be done only partly: just these effects happen (a subset of effects).",
    )


class StepSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    actions: list[str] = Field(min_length=1)
    after: list[str] = Field(default_factory=list)
    skippable: bool = False
    errors: dict[str, str] = Field(default_factory=dict)
    when: str | None = Field(
        default=None,
        description="Done only where this holds as the step comes up ('cup.cleanliness == "
        "dirty', of an object or a role); elsewhere the thing is already as the task wants "
        "and the step takes no time (a clean cup is not washed).",
    )


class TaskSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    room: str
    roles: dict[str, list[str]] = Field(
        default_factory=dict,
        description="role -> the objects that can play it; steps name the role in brackets "
        "([mug]) and their text as {mug}, and each episode binds it to one of the objects.",
    )
    steps: dict[str, StepSpec] = Field(min_length=1)
    said: str | None = Field(
        default=None,
        description="The task as a person names what someone is doing ('making juice'); "
        "default: its id's verb in -ing form and the rest with hyphens as spaces.",
    )


class DomainSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    fps: float = Field(gt=0)
    rooms: dict[str, RoomSpec]
    lookalike: list[list[str]] = Field(
        default_factory=list,
        description="Groups of categories a viewer cannot tell apart (cup, mug, glass): within "
        "a group, and within one category, each colour may appear at most once.",
    )
    objects: dict[str, ObjectSpec]
    actions: dict[str, ActionSpec]
    tasks: dict[str, TaskSpec]
    interruptions: list[InterruptionSpec] = Field(
        default_factory=list,
        description="What a person of a two-person episode does about a thing the other left "
        "(see taskqa.simulation.interruptions).",
    )


@dataclass(frozen=True)
class GroundAction:
    verb: str
    slots: ActionSlots
    text: str
    optional: bool = False  # written with a trailing "?": a person may leave it out


@dataclass(frozen=True)
class Schema:
    verb: str
    template: str
    acting: str
    duration: tuple[float, float]
    requires: tuple[Condition, ...]
    effects: tuple[Effect, ...]
    can_fail: bool = False
    partial: tuple[Effect, ...] | None = None


@dataclass(frozen=True)
class Step:
    id: str
    text: str
    actions: tuple[GroundAction, ...]
    after: tuple[str, ...]
    skippable: bool
    errors: dict[str, str]
    when: WorldCondition | None = None  # done only where it holds (StepSpec.when)

    def objects(self) -> set[str]:
        return {name for action in self.actions for name in action.slots.objects()}

    def wanted(
        self, attributes: Mapping[str, Mapping[Attribute, str]], location: Mapping[str, str]
    ) -> bool:
        """Whether the step is to be done in a world of these values: always, unless its
        ``when`` fails there (then it is already as the task wants)."""
        return self.when is None or self.when.holds(attributes, location)

    def bound(self, binding: Mapping[str, str]) -> Step:
        """This step with each role replaced by the object bound to it."""
        actions = tuple(bind_action(action, binding) for action in self.actions)
        errors = {kind: _bind_text(text, binding) for kind, text in self.errors.items()}
        when = self.when
        if when is not None:
            when = replace(when, obj=binding.get(when.obj, when.obj))
        return replace(
            self, actions=actions, text=_bind_text(self.text, binding), errors=errors, when=when
        )


_ROLE_IN_TEXT = re.compile(r"\{([a-z0-9-]+)\}")
_OBJECT_GROUP = re.compile(r"\[([^\[\]]*)\]")


def _bind_text(text: str, binding: Mapping[str, str]) -> str:
    """``{mug}`` -> ``blue mug``: hyphenated ids read as words in step descriptions."""
    return _ROLE_IN_TEXT.sub(lambda m: binding[m.group(1)].replace("-", " "), text)


def bind_action(action: GroundAction, binding: Mapping[str, str]) -> GroundAction:
    """``action`` with every object named in ``binding`` replaced, in its slots and its text."""
    if not any(name in binding for name in action.slots.objects()):
        return action
    slots = action.slots.model_copy(
        update={
            slot: [binding.get(name, name) for name in getattr(action.slots, slot)]
            for slot in SLOTS
        }
    )
    text = _OBJECT_GROUP.sub(
        lambda m: "[" + ", ".join(binding.get(n.strip(), n.strip()) for n in m[1].split(",")) + "]",
        action.text,
    )
    return replace(action, slots=slots, text=text)


@dataclass(frozen=True)
class Interruption:
    """One declared interruption, compiled: when it applies, what is done, in which room."""

    index: int  # its place in the file's list
    when: WorldCondition
    actions: tuple[GroundAction, ...]
    room: str

    def objects(self) -> set[str]:
        return {self.when.obj} | {o for action in self.actions for o in action.slots.objects()}


@dataclass(frozen=True)
class Task:
    name: str
    room: str
    steps: dict[str, Step]
    roles: dict[str, tuple[str, ...]]

    def bound(self, binding: Mapping[str, str]) -> Task:
        """The task as one episode does it, each role played by the object ``binding`` names."""
        steps = {step_id: step.bound(binding) for step_id, step in self.steps.items()}
        return Task(name=self.name, room=self.room, steps=steps, roles={})

    @cached_property
    def graph(self) -> TaskGraph:
        """The task as a task graph with START and END around its partial order."""
        edges = [(before, step.id) for step in self.steps.values() for before in step.after]
        has_successor = {before for before, _ in edges}
        edges += [(START, s.id) for s in self.steps.values() if not s.after]
        edges += [(s, END) for s in self.steps if s not in has_successor]
        nodes = [TaskStep(id=START, text="START")]
        nodes += [TaskStep(id=s.id, text=s.text) for s in self.steps.values()]
        nodes.append(TaskStep(id=END, text="END"))
        return TaskGraph(name=self.name, steps=nodes, edges=edges, start=START, end=END)


class Domain:
    """A checked domain: objects with initial states, action schemas and tasks."""

    def __init__(self, spec: DomainSpec, source_text: str, file_name: str) -> None:
        self.spec = spec
        self.source_text = source_text
        self.file_name = file_name
        self.schemas = {verb: _compile_schema(verb, a) for verb, a in spec.actions.items()}
        self.tasks = {name: _compile_task(name, t) for name, t in spec.tasks.items()}
        self.interruptions = tuple(
            Interruption(
                index=index,
                when=(when := parse_world_condition(entry.when)),
                actions=tuple(ground_action(text) for text in entry.do),
                room=spec.objects[when.obj].room,
            )
            for index, entry in enumerate(spec.interruptions)
        )
        self._bound: dict[tuple[str, tuple[tuple[str, str], ...]], Task] = {}

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def fps(self) -> float:
        return self.spec.fps

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.source_text.encode("utf-8")).hexdigest()

    @cached_property
    def templates(self) -> dict[str, str]:
        return {verb: schema.template for verb, schema in self.schemas.items()}

    def initial_attributes(self, obj: str) -> dict[Attribute, str]:
        return {attribute_named(k): v for k, v in self.spec.objects[obj].attributes.items()}

    def places(self, obj: str) -> list[str]:
        """The holders a carried thing may start at (``vary: {at: [...]}``), with repeats."""
        return list(self.spec.objects[obj].vary.get(PLACE, []))

    def objects_in(self, room: str) -> list[str]:
        return [name for name, spec in self.spec.objects.items() if spec.room == room]

    def tasks_in(self, room: str) -> list[str]:
        return [name for name, task in self.tasks.items() if task.room == room]

    def bound_task(self, name: str, binding: Mapping[str, str]) -> Task:
        """Task ``name`` with its roles bound; cached, so that its graph is built once."""
        key = (name, tuple(sorted(binding.items())))
        if key not in self._bound:
            self._bound[key] = self.tasks[name].bound(binding)
        return self._bound[key]

    def task_objects(self, task: Task) -> set[str]:
        """The carried things a (bound) task touches; fixtures are shared by design."""
        used = {o for step in task.steps.values() for o in step.objects()}
        return {o for o in used if o in self.spec.objects and not self.spec.objects[o].fixture}

    def category(self, obj: str) -> str:
        return self.spec.objects[obj].category or obj

    @cached_property
    def lookalikes(self) -> tuple[frozenset[str], ...]:
        """The file's groups of categories a viewer cannot tell apart (``lookalike``)."""
        return tuple(frozenset(group) for group in self.spec.lookalike)

    def twins(
        self,
        obj: str,
        among: Iterable[str],
        groups: Iterable[frozenset[str]] | None = None,
    ) -> list[str]:
        """The objects of ``among`` a viewer may take for ``obj`` (sorted): another object of
        the same colour whose category is ``obj``'s or looks like it (one of ``groups``;
        default: the file's own ``lookalike``). Objects without a colour, or that the domain
        does not know, have none."""
        chosen = self.lookalikes if groups is None else tuple(groups)
        return sorted(
            other
            for other in set(among)
            if other != obj and _look_alike(self.spec.objects, obj, other, chosen)
        )


def _look_alike(
    objects: Mapping[str, ObjectSpec], first: str, second: str, groups: Iterable[frozenset[str]]
) -> bool:
    """Whether two objects of a domain look alike: one colour, and one category or two of a
    look-alike group."""
    one, two = objects.get(first), objects.get(second)
    if one is None or two is None or one.color is None or one.color != two.color:
        return False
    kinds = (one.category or first, two.category or second)
    return kinds[0] == kinds[1] or any(kinds[0] in g and kinds[1] in g for g in groups)


def load_domain(path: Path | None = None) -> Domain:
    """Load the built-in domain, or a user's domain file, and check it thoroughly."""
    if path is None:
        text = resources.files("taskqa.simulation").joinpath(f"domains/{BUILTIN_DOMAIN}.yaml")
        source, name = text.read_text(encoding="utf-8"), f"{BUILTIN_DOMAIN}.yaml"
    else:
        source, name = path.read_text(encoding="utf-8"), path.name
    return parse_domain(source, name)


@lru_cache(maxsize=8)
def parse_domain(source: str, file_name: str) -> Domain:
    """Parse and check a domain; cached, since worker processes each receive the source text."""
    try:
        raw: Any = yaml.safe_load(source)
    except yaml.YAMLError as error:
        raise InvalidInputError([Problem(file_name, "", f"invalid YAML: {error}")]) from None
    try:
        spec = DomainSpec.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(file_name, [], error)) from None
    problems = list(_check_domain(spec, file_name))
    if problems:
        raise InvalidInputError(problems)
    return Domain(spec, source, file_name)


def _compile_schema(verb: str, spec: ActionSpec) -> Schema:
    return Schema(
        verb=verb,
        template=spec.template,
        acting=spec.acting,
        duration=spec.duration,
        requires=tuple(parse_condition(c) for c in spec.requires),
        effects=tuple(parse_effect(e) for e in spec.effects),
        can_fail=spec.fails,
        partial=None if spec.partial is None else tuple(parse_effect(e) for e in spec.partial),
    )


def _compile_task(name: str, spec: TaskSpec) -> Task:
    steps = {
        step_id: Step(
            id=step_id,
            text=step.text,
            actions=tuple(ground_action(text) for text in step.actions),
            after=tuple(step.after),
            skippable=step.skippable,
            errors=dict(step.errors),
            when=None if step.when is None else parse_world_condition(step.when),
        )
        for step_id, step in spec.steps.items()
    }
    roles = {role: tuple(options) for role, options in spec.roles.items()}
    return Task(name=name, room=spec.room, steps=steps, roles=roles)


def ground_action(text: str) -> GroundAction:
    """``Close [fridge]``; ``Close [fridge]?`` is an action a person may leave out."""
    text, optional = _optional(text)
    verb, slots = parse_action(text)
    return GroundAction(verb=verb, slots=slots, text=text, optional=optional)


def _optional(text: str) -> tuple[str, bool]:
    text = text.strip()
    return (text[:-1].rstrip(), True) if text.endswith("?") else (text, False)


def _check_domain(spec: DomainSpec, file: str) -> Iterator[Problem]:
    yield from _check_rooms(spec, file)
    yield from _check_objects(spec, file)
    yield from _check_lookalikes(spec, file)
    yield from _check_actions(spec, file)
    for name, task in spec.tasks.items():
        yield from _check_task(spec, name, task, file)
    yield from _check_distractors(spec, file)
    yield from _check_interruptions(spec, file)


def _check_rooms(spec: DomainSpec, file: str) -> Iterator[Problem]:
    for name, room in spec.rooms.items():
        for zone, neighbours in room.zones.items():
            for index, other in enumerate(neighbours):
                if other not in room.zones:
                    yield Problem.at(
                        file, ["rooms", name, "zones", zone, index], f"unknown zone {other!r}"
                    )
        spot = spec.objects.get(room.handover or "")
        if room.handover is not None and (spot is None or spot.holds is None or spot.room != name):
            yield Problem.at(
                file,
                ["rooms", name, "handover"],
                "expected a receptacle (with `holds`) in this room",
            )


def _check_objects(spec: DomainSpec, file: str) -> Iterator[Problem]:
    for name, obj in spec.objects.items():
        where = ["objects", name]
        if obj.room not in spec.rooms:
            yield Problem.at(file, [*where, "room"], f"unknown room {obj.room!r}")
            continue
        zones = spec.rooms[obj.room].zones
        if obj.fixture and obj.zone not in zones:
            yield Problem.at(file, [*where, "zone"], f"a fixture needs a zone of {list(zones)}")
        if not obj.fixture:
            holder = spec.objects.get(obj.at or "")
            if holder is None or holder.holds is None or holder.room != obj.room:
                yield Problem.at(
                    file,
                    [*where, "at"],
                    "expected a receptacle (an object with `holds`) in the same room",
                )
        for key, value in obj.attributes.items():
            try:
                parse_condition(f"patient.{key} == {value}")
            except RuleError as error:
                yield Problem.at(file, [*where, "attributes", key], str(error))
        for key, values in obj.vary.items():
            if key == PLACE:
                yield from _check_places(spec, name, obj, values, file)
                continue
            if key not in obj.attributes:
                yield Problem.at(
                    file, [*where, "vary", key], "expected an attribute the object lists"
                )
            if not values:
                yield Problem.at(file, [*where, "vary", key], "expected at least one value")
            for index, value in enumerate(values):
                try:
                    parse_condition(f"patient.{key} == {value}")
                except RuleError as error:
                    yield Problem.at(file, [*where, "vary", key, index], str(error))
        if obj.color is not None and not re.fullmatch(r"[a-z]+", obj.color):
            yield Problem.at(file, [*where, "color"], "expected one plain lower-case colour word")
        if obj.category is not None and not re.fullmatch(r"[a-z]+(-[a-z]+)*", obj.category):
            yield Problem.at(file, [*where, "category"], "expected a hyphenated lower-case name")
        if obj.distractor and obj.fixture:
            yield Problem.at(
                file, [*where, "distractor"], "expected a carried thing, not a fixture"
            )
        holder = spec.objects.get(obj.at or "")
        if holder is not None and holder.distractor:
            yield Problem.at(file, [*where, "at"], "expected a receptacle present in every episode")


def _check_lookalikes(spec: DomainSpec, file: str) -> Iterator[Problem]:
    """Each ``lookalike`` group names two or more known categories, and no two objects a viewer
    cannot tell apart (one colour; one category, or two of a group) share a colour: a question
    naming one of them would be about either."""
    kinds = {obj.category or name for name, obj in spec.objects.items()}
    for index, group in enumerate(spec.lookalike):
        if len(set(group)) < 2:
            yield Problem.at(file, ["lookalike", index], "expected two or more categories")
        for position, kind in enumerate(group):
            if kind not in kinds:
                yield Problem.at(
                    file,
                    ["lookalike", index, position],
                    f"unknown category {kind!r}; expected an object's category (or id)",
                )
    groups = [frozenset(group) for group in spec.lookalike]
    names = list(spec.objects)
    for position, second in enumerate(names):
        for first in names[:position]:
            if not _look_alike(spec.objects, first, second, groups):
                continue
            one, two = spec.objects[first], spec.objects[second]
            kind, other_kind = one.category or first, two.category or second
            alike = (
                f"both {kind}s"
                if kind == other_kind
                else f"a {kind} and a {other_kind} look alike (lookalike)"
            )
            yield Problem.at(
                file,
                ["objects", second, "color"],
                f"{first!r} and {second!r} are both {one.color}, and {alike}: a viewer cannot "
                f"tell which one a question names; give one of them another colour",
            )


def _check_actions(spec: DomainSpec, file: str) -> Iterator[Problem]:
    for verb, action in spec.actions.items():
        low, high = action.duration
        if not 0 < low <= high:
            yield Problem.at(file, ["actions", verb, "duration"], "expected 0 < min <= max")
        for field, parse in (("requires", parse_condition), ("effects", parse_effect)):
            for index, text in enumerate(getattr(action, field)):
                try:
                    parse(text)
                except RuleError as error:
                    yield Problem.at(file, ["actions", verb, field, index], str(error))
        effects = {" ".join(e.split()) for e in action.effects}
        for index, text in enumerate(action.partial or []):
            if " ".join(text.split()) not in effects:
                yield Problem.at(
                    file,
                    ["actions", verb, "partial", index],
                    "expected one of the action's effects",
                )


def _check_task(spec: DomainSpec, name: str, task: TaskSpec, file: str) -> Iterator[Problem]:
    where: list[str | int] = ["tasks", name]
    if task.room not in spec.rooms:
        yield Problem.at(file, [*where, "room"], f"unknown room {task.room!r}")
    for role, options in task.roles.items():
        if role in spec.objects:
            yield Problem.at(file, [*where, "roles", role], "a role must not have an object's name")
        if not options:
            yield Problem.at(file, [*where, "roles", role], "expected at least one object")
        for index, obj in enumerate(options):
            known = spec.objects.get(obj)
            if known is None or known.room != task.room:
                yield Problem.at(
                    file, [*where, "roles", role, index], f"unknown object {obj!r} in {task.room!r}"
                )
        # a step's "Get [role] from [cupboard]" names one place for whichever object plays it
        places = {spec.objects[o].at for o in options if o in spec.objects}
        if len(places) > 1:
            yield Problem.at(
                file,
                [*where, "roles", role],
                f"expected objects that start in one place; got {sorted(map(str, places))}",
            )
    for step_id, step in task.steps.items():
        texts = {("text",): step.text} | {("errors", k): v for k, v in step.errors.items()}
        for place, text in texts.items():
            for role in _ROLE_IN_TEXT.findall(text):
                if role not in task.roles:
                    yield Problem.at(
                        file,
                        [*where, "steps", step_id, *place],
                        f"{{{role}}} is not a role of the task",
                    )
        for index, before in enumerate(step.after):
            if before not in task.steps:
                yield Problem.at(
                    file, [*where, "steps", step_id, "after", index], f"unknown step {before!r}"
                )
        for kind in step.errors:
            if kind not in ERROR_KINDS:
                yield Problem.at(
                    file,
                    [*where, "steps", step_id, "errors", kind],
                    f"expected one of {', '.join(ERROR_KINDS)}",
                )
        for index, text in enumerate(step.actions):
            location = [*where, "steps", step_id, "actions", index]
            yield from _check_ground_action(spec, task.room, task.roles, text, file, location)
        if step.when is not None:
            yield from _check_step_when(spec, task, step.when, file, [*where, "steps", step_id])
    graph = nx.DiGraph([(b, s) for s, step in task.steps.items() for b in step.after])
    if not nx.is_directed_acyclic_graph(graph):
        cycle = " -> ".join(a for a, _ in nx.find_cycle(graph))
        yield Problem.at(file, [*where, "steps"], f"the steps' `after` lists form a cycle: {cycle}")


def _check_step_when(
    spec: DomainSpec, task: TaskSpec, text: str, file: str, where: list[str | int]
) -> Iterator[Problem]:
    """A step's ``when``: a condition on an attribute every object it may name has."""
    try:
        when = parse_world_condition(text)
    except RuleError as error:
        yield Problem.at(file, [*where, "when"], str(error))
        return
    names = task.roles.get(when.obj, [when.obj])
    for name in names:
        obj = spec.objects.get(name)
        if obj is None:
            yield Problem.at(file, [*where, "when"], f"unknown object or role {when.obj!r}")
            return
        if when.attribute is not None and when.attribute.name.lower() not in obj.attributes:
            yield Problem.at(
                file,
                [*where, "when"],
                f"{name!r} has no {when.attribute.name.lower()!r}; expected an attribute "
                "every object it may name lists",
            )
            return


def _check_distractors(spec: DomainSpec, file: str) -> Iterator[Problem]:
    used: set[str] = set()
    for task in spec.tasks.values():
        for options in task.roles.values():
            used.update(options)
        for step in task.steps.values():
            for text in step.actions:
                try:
                    used.update(parse_action(_optional(text)[0])[1].objects())
                except ActionStringError:
                    continue  # reported with the task
    for name, obj in spec.objects.items():
        if obj.distractor and name in used:
            yield Problem.at(
                file, ["objects", name, "distractor"], "a distractor must not be used by a task"
            )


def _check_ground_action(
    spec: DomainSpec,
    room: str,
    roles: Mapping[str, list[str]],
    text: str,
    file: str,
    location: list[str | int],
) -> Iterator[Problem]:
    try:
        verb, slots = parse_action(_optional(text)[0])
    except ActionStringError as error:
        yield Problem.at(file, location, str(error))
        return
    if verb not in spec.actions:
        yield Problem.at(file, location, f"unknown verb {verb!r}; expected one of the actions")
        return
    template = spec.actions[verb].template
    for slot in SLOTS:
        names = getattr(slots, slot)
        if names and f"{{{slot}}}" not in template:
            yield Problem.at(file, location, f"{verb!r} has no {slot} slot (template {template!r})")
        if not names and slot != "instrument" and f"{{{slot}}}" in template:
            yield Problem.at(file, location, f"{verb!r} needs a {slot}")
        for obj in names:
            if obj in roles:
                continue
            if obj not in spec.objects or spec.objects[obj].room != room:
                yield Problem.at(file, location, f"unknown object {obj!r} in room {room!r}")


def _check_places(
    spec: DomainSpec, name: str, obj: ObjectSpec, holders: list[str], file: str
) -> Iterator[Problem]:
    """``vary: {at: [...]}``: a carried thing, drawn among receptacles present in its room."""
    where: list[str | int] = ["objects", name, "vary", PLACE]
    if obj.fixture:
        yield Problem.at(file, where, "a fixture never moves; expected a carried thing")
    if not holders:
        yield Problem.at(file, where, "expected at least one holder")
    for index, holder in enumerate(holders):
        found = spec.objects.get(holder)
        if (
            found is None
            or found.holds is None
            or found.room != obj.room
            or found.distractor
            or holder == name
        ):
            yield Problem.at(
                file,
                [*where, index],
                f"unknown holder {holder!r}; expected a receptacle (an object with `holds`) "
                "present in every episode of the same room",
            )


def _check_interruptions(spec: DomainSpec, file: str) -> Iterator[Problem]:
    for index, entry in enumerate(spec.interruptions):
        where: list[str | int] = ["interruptions", index]
        try:
            when = parse_world_condition(entry.when)
        except RuleError as error:
            yield Problem.at(file, [*where, "when"], str(error))
            continue
        obj = spec.objects.get(when.obj)
        if obj is None:
            yield Problem.at(file, [*where, "when"], f"unknown object {when.obj!r}")
            continue
        if when.attribute is not None and when.attribute.name.lower() not in obj.attributes:
            yield Problem.at(
                file,
                [*where, "when"],
                f"{when.obj!r} has no {when.attribute.name.lower()!r}; expected an attribute "
                "the object lists",
            )
        holder = spec.objects.get(when.value)
        if when.attribute is None and (holder is None or holder.holds is None):
            yield Problem.at(
                file, [*where, "when"], f"unknown holder {when.value!r}; expected a receptacle"
            )
        for position, text in enumerate(entry.do):
            yield from _check_ground_action(
                spec, obj.room, {}, text, file, [*where, "do", position]
            )
