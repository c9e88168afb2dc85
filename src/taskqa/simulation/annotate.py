"""Turning a simulated trace into an annotated Recording: states, relations and what each
agent could see, with a configurable share of annotations left as ``unknown``.

The perception model is deliberately simple: every fixture sits in a zone of the room; an agent
stands in the zone of its latest action and sees its own zone and, facing one way or another,
each zone listed beside it in the domain with chance ``look_around_rate`` (drawn once per
action of that agent, so whether the other person noticed something is not given by the room's
layout alone); things inside something closed are seen by nobody; a carried thing is where its
carrier is. An agent is aware of the other's action when it can see the zone that action is in.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass

from taskqa.model import (
    UNKNOWN,
    ActionSegment,
    Agent,
    AgentRole,
    Attribute,
    EntityTransition,
    Procedure,
    Recording,
    Relation,
    RelationKind,
    Snapshot,
    Source,
    StepError,
    StepExecution,
    VideoRef,
    View,
)
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.domain import Domain
from taskqa.simulation.episode import ActionRecord, EpisodeTrace, ObjectView, StepRecord


@dataclass(frozen=True)
class _Whereabouts:
    """One agent's zones over time, and the neighbouring zones it faces, for asking where it
    stood and what it could see at a frame."""

    starts: list[int]
    ends: list[int]
    zones: list[str]
    initial: str
    faces: list[frozenset[str]]  # neighbouring zones in view during (and after) each action
    initial_faces: frozenset[str]

    def zone_at(self, frame: int) -> str:
        index = bisect_right(self.starts, frame) - 1
        return self.zones[index] if index >= 0 else self.initial

    def faces_at(self, frame: int) -> frozenset[str]:
        index = bisect_right(self.starts, frame) - 1
        return self.faces[index] if index >= 0 else self.initial_faces

    def busy_at(self, frame: int) -> bool:
        index = bisect_right(self.starts, frame) - 1
        return index >= 0 and self.starts[index] <= frame < self.ends[index]


Faces = Mapping[tuple[str, int | None], frozenset[str]]  # (agent, action start or None) -> zones


class Annotator:
    def __init__(
        self,
        domain: Domain,
        config: SimulationConfig,
        trace: EpisodeTrace,
        rng: random.Random,
        faces: Faces | None = None,
    ) -> None:
        """``faces`` fixes which neighbouring zones a person faces during the action starting at
        a frame (None: before their first action) instead of drawing it: a minimal pair's second
        recording sees the world as the first did, except where the intervention says."""
        self.domain = domain
        self.config = config
        self.trace = trace
        self.rng = rng
        self._fixed_faces = faces or {}
        self.sees = {
            zone: {zone, *neighbours}
            for zone, neighbours in domain.spec.rooms[trace.plan.room].zones.items()
        }
        self.agent_ids = [a.id for a in trace.plan.agents]
        self.where = {agent: self._whereabouts(agent) for agent in self.agent_ids}

    def _whereabouts(self, agent: str) -> _Whereabouts:
        own = [a for a in self.trace.actions if a.agent == agent]
        initial = self.trace.initial_zones[agent]
        return _Whereabouts(
            starts=[a.start for a in own],
            ends=[a.end for a in own],
            zones=[a.zone for a in own],
            initial=initial,
            faces=[self._faces(agent, a.start, a.zone) for a in own],
            initial_faces=self._faces(agent, None, initial),
        )

    def _faces(self, agent: str, start: int | None, zone: str) -> frozenset[str]:
        fixed = self._fixed_faces.get((agent, start))
        return fixed if fixed is not None else self._glance(zone)

    def faces(self) -> dict[tuple[str, int | None], frozenset[str]]:
        """Every person's faced zones by action start (None: before their first action)."""
        found: dict[tuple[str, int | None], frozenset[str]] = {}
        for agent, where in self.where.items():
            found[(agent, None)] = where.initial_faces
            for start, faces in zip(where.starts, where.faces, strict=True):
                found[(agent, start)] = faces
        return found

    def _glance(self, zone: str) -> frozenset[str]:
        """The neighbouring zones a person standing in ``zone`` happens to face."""
        rate = self.config.look_around_rate
        return frozenset(z for z in sorted(self.sees[zone] - {zone}) if self.rng.random() < rate)

    def _in_view(self, agent: str, record: ActionRecord, frame: int) -> frozenset[str]:
        """The zones ``agent`` sees at ``frame``; the actor faces its action's zone as it acts."""
        zone = self._zone_at(agent, record, frame)
        # at an action's first frame the actor still stands where it was: keep what borders it
        return (self.where[agent].faces_at(frame) & self.sees[zone]) | {zone}

    def recording(self, recording_id: str) -> Recording:
        fps = self.domain.fps
        ordered = sorted(self.trace.actions, key=lambda a: (a.start, self.agent_ids.index(a.agent)))
        actions = [self._segment(f"a{i:03d}", a) for i, a in enumerate(ordered)]
        last = max((a.end for a in ordered), default=0)
        tail = round(2 * fps)
        plan = self.trace.plan
        return Recording(
            id=recording_id,
            source=Source.SIMULATED,
            duration=_seconds(last + tail, fps),
            fps=fps,
            environment=plan.room,
            agents=[
                Agent(id=agent, role=AgentRole.ACTOR if i == 0 else AgentRole.HELPER)
                for i, agent in enumerate(self.agent_ids)
            ],
            videos=[
                VideoRef(uri=f"sim://{recording_id}/{agent}", view=View.FIRST_PERSON, agent=agent)
                for agent in self.agent_ids
            ],
            tasks=list(plan.tasks),
            actions=actions,
            procedures=[self._procedure(task) for task in plan.tasks],
            initial_state={
                name: _initial_snapshot(name, view) for name, view in self.trace.initial.items()
            },
            metadata={
                "episode_type": plan.kind,
                "domain": self.domain.name,
                **self._interruption_metadata(ordered),
            },
        )

    def _interruption_metadata(self, ordered: list[ActionRecord]) -> dict[str, str | int]:
        """``interruptions``: how many; ``interruption_actions``: their actions' ids (space
        separated), told apart from detours, which also belong to no task."""
        if not self.trace.interruptions:
            return {}
        ids = [
            f"a{i:03d}"
            for i, record in enumerate(ordered)
            if record.task is None
            and any(
                record.agent == done.agent and done.start <= record.start < done.end
                for done in self.trace.interruptions
            )
        ]
        count = len(self.trace.interruptions)
        return {"interruptions": count, "interruption_actions": " ".join(ids)}

    # --- actions ---------------------------------------------------------------------------
    def _segment(self, segment_id: str, record: ActionRecord) -> ActionSegment:
        fps = self.domain.fps
        transitions = [
            EntityTransition(
                entity=obj,
                before=self._object_snapshot(obj, record.before[obj], record, record.start),
                after=self._object_snapshot(obj, record.after[obj], record, record.end),
            )
            for obj in record.action.slots.objects()
        ]
        transitions.append(self._actor_transition(record))
        transitions += [
            self._witness_transition(record, other) for other in self._others(record.agent)
        ]
        return ActionSegment(
            id=segment_id,
            agent=record.agent,
            start=_seconds(record.start, fps),
            end=_seconds(record.end, fps),
            verb=record.action.verb,
            slots=record.action.slots,
            tasks=[record.task] if record.task else [],
            step=record.step,
            transitions=transitions,
            outcome=record.outcome,
        )

    def _others(self, agent: str) -> list[str]:
        return [a for a in self.agent_ids if a != agent]

    def _zone_at(self, agent: str, record: ActionRecord, frame: int) -> str:
        """Where ``agent`` stands at ``frame``; the actor moves to the action's zone as it acts."""
        if agent == record.agent:
            return record.previous_zone if frame == record.start else record.zone
        return self.where[agent].zone_at(frame)

    def _object_snapshot(
        self, obj: str, view: ObjectView, record: ActionRecord, frame: int
    ) -> Snapshot:
        attributes: dict[Attribute, str] = {}
        location = view.zone
        if view.place in self.agent_ids:
            location = self._zone_at(view.place, record, frame)
        attributes[Attribute.VISIBILITY_TO_ME] = self._visibility(
            view, location, record.agent, self._in_view(record.agent, record, frame)
        )
        for other in self._others(record.agent):
            attributes[Attribute.VISIBILITY_TO_OTHER] = self._visibility(
                view, location, other, self._in_view(other, record, frame)
            )
        attributes.update(view.attributes)
        attributes = {a: self._maybe_unknown(v) for a, v in attributes.items()}
        relations = []
        if view.place is not None and view.relation is not None:
            relations.append(Relation(subject=obj, relation=view.relation, object=view.place))
        return Snapshot(attributes=attributes, relations=relations)

    def _maybe_unknown(self, value: str) -> str:
        return UNKNOWN if self.rng.random() < self.config.unknown_rate else value

    def _visibility(
        self, view: ObjectView, location: str | None, viewer: str, in_view: frozenset[str]
    ) -> str:
        if view.place == viewer:
            return "visible"
        if view.enclosed or location is None:
            return "invisible"
        return "visible" if location in in_view else "invisible"

    # --- agents ----------------------------------------------------------------------------
    def _actor_transition(self, record: ActionRecord) -> EntityTransition:
        acting = self._acting_relations(record)
        return EntityTransition(
            entity=record.agent,
            is_agent=True,
            before=Snapshot(relations=acting + self._social(record.agent, record, record.start)),
            after=Snapshot(relations=acting + self._social(record.agent, record, record.end)),
        )

    def _witness_transition(self, record: ActionRecord, other: str) -> EntityTransition:
        return EntityTransition(
            entity=other,
            is_agent=True,
            before=Snapshot(relations=self._social(other, record, record.start)),
            after=Snapshot(relations=self._social(other, record, record.end)),
        )

    def _acting_relations(self, record: ActionRecord) -> list[Relation]:
        slots = record.action.slots
        targets = slots.patient or slots.destination or slots.source
        relations = [
            Relation(
                subject=record.agent, relation=record.acting, object=o, kind=RelationKind.ACTING
            )
            for o in targets
        ]
        relations += [
            Relation(
                subject=record.agent,
                relation=f"{record.acting}-with",
                object=o,
                kind=RelationKind.ACTING,
            )
            for o in slots.instrument
        ]
        return relations

    def _social(self, agent: str, record: ActionRecord, frame: int) -> list[Relation]:
        """Multi-agent relations of ``agent`` towards each other agent at ``frame``."""
        relations = []
        own_zone = self._zone_at(agent, record, frame)
        own_view = self._in_view(agent, record, frame)
        for other in self._others(agent):
            other_zone = self._zone_at(other, record, frame)
            other_busy = other == record.agent or self.where[other].busy_at(frame)
            sees_other = other_zone in own_view
            if other_busy and sees_other:
                relations.append(_social(agent, "aware-of-other-action", other))
            if sees_other and other_zone == own_zone:
                relations.append(_social(agent, "looking-at", other))
            if own_zone in self._in_view(other, record, frame):
                relations.append(_social(agent, "visible-to", other))
        return relations

    # --- procedures ------------------------------------------------------------------------
    def _procedure(self, task: str) -> Procedure:
        records = [s for s in self.trace.steps if s.task == task]
        return Procedure(
            task_graph=self.trace.plan.bound[task].graph,
            steps=[self._execution(s) for s in records],
        )

    def _execution(self, record: StepRecord) -> StepExecution:
        fps = self.domain.fps
        return StepExecution(
            step=record.step.id,
            description=record.step.text,
            start=None if record.start is None else _seconds(record.start, fps),
            end=None if record.end is None else _seconds(record.end, fps),
            errors=[StepError(tag=tag, description=text) for tag, text in record.errors],
            modified_description=record.modified,
            agent=record.agent,
        )


def _initial_snapshot(obj: str, view: ObjectView) -> Snapshot:
    """The simulated truth at the start (no annotation noise): what a renderer draws."""
    relations = []
    if view.place is not None and view.relation is not None:
        relations.append(Relation(subject=obj, relation=view.relation, object=view.place))
    return Snapshot(attributes=dict(view.attributes), relations=relations)


def _social(subject: str, relation: str, other: str) -> Relation:
    return Relation(subject=subject, relation=relation, object=other, kind=RelationKind.MULTI_AGENT)


def _seconds(frame: int, fps: float) -> float:
    # Four decimals keep the JSON readable and still map back to the same frame at any fps <= 1000.
    return round(frame / fps, 4)
