"""Write taskqa recordings as an EgoTaskQA / LEMMA annotation folder."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskqa.atomic import staged_directory, write_text
from taskqa.jsonio import dumps_compact, write_json
from taskqa.model import (
    ActionSegment,
    AgentRole,
    EntityTransition,
    Recording,
    Relation,
    RelationKind,
    Snapshot,
)
from taskqa.problems import InvalidInputError, Problem
from taskqa.sources.egotaskqa.actions import join_tasks, rename_slots, write_action_string
from taskqa.sources.egotaskqa.meta import (
    META_FORMAT,
    META_VERSION,
    ActionMeta,
    Moment,
    PersonMeta,
    RecordingMeta,
)
from taskqa.sources.egotaskqa.vocabulary import (
    HOIS,
    KIND_ORDER,
    LENGTHS,
    META,
    PARSED,
    PEOPLE,
    PER_ACT_INTERVALS,
    RELATION_KEYS,
    RELATION_NAMES_IN,
    RELATION_NAMES_OUT,
    encode_state,
)

# Problems with the recordings handed to the writer are located in this pseudo-file.
RECORDINGS = "recordings"
# EgoTaskQA's metadata loader builds its action list from verb tables taskqa does not ship unless
# hois.json exists; the list ends with the label LEMMA uses for "no action".
NULL_HOI = "NULL"


@dataclass
class _Folder:
    """The content of every file, filled one recording at a time."""

    parsed: dict[str, Any] = field(default_factory=dict)
    intervals: dict[str, Any] = field(default_factory=dict)
    lengths: dict[str, Any] = field(default_factory=dict)
    hois: set[str] = field(default_factory=set)
    meta: dict[str, Any] = field(default_factory=dict)


def write_egotaskqa(
    recordings: Sequence[Recording],
    out_dir: Path,
    templates: Mapping[str, str] | None = None,
) -> None:
    """Write ``recordings`` into ``out_dir``, replacing it whole or leaving it untouched.

    ``templates`` maps a verb to its action-string template (see
    :func:`taskqa.sources.lemma_actions.format_action`). Raises :class:`InvalidInputError` listing
    every recording that cannot be written (more than two agents, object names P1/P2, ...).
    """
    folder = _Folder()
    problems: list[Problem] = []
    first_index: dict[str, int] = {}
    for index, recording in enumerate(recordings):
        if recording.id in first_index:
            problems.append(
                Problem.at(
                    RECORDINGS,
                    [index, "id"],
                    f"repeats the id of recordings[{first_index[recording.id]}] "
                    f"({recording.id!r}); the id is the video key of every file",
                )
            )
            continue
        first_index[recording.id] = index
        _RecordingWriter(index, recording, templates, problems).add_to(folder)
    if problems:
        raise InvalidInputError(problems)
    with staged_directory(out_dir) as staging:
        # parsed.json is by far the largest file, so it is written without indentation.
        write_text(staging / PARSED, dumps_compact(folder.parsed))
        write_json(staging / PER_ACT_INTERVALS, folder.intervals)
        write_json(staging / LENGTHS, folder.lengths)
        write_json(staging / HOIS, [*sorted(folder.hois), NULL_HOI])
        meta = {"format": META_FORMAT, "format_version": META_VERSION, "recordings": folder.meta}
        write_json(staging / META, meta)


class _RecordingWriter:
    def __init__(
        self,
        index: int,
        recording: Recording,
        templates: Mapping[str, str] | None,
        problems: list[Problem],
    ) -> None:
        self.index = index
        self.recording = recording
        self.templates = templates
        self.problems = problems
        agents = agents_to_write(recording)
        self.too_many = len(agents) > len(PEOPLE)
        if self.too_many:
            self._problem(
                ["agents"],
                f"EgoTaskQA files hold at most two people (P1, P2); got {len(agents)}: "
                f"{', '.join(agent_id for agent_id, _, _ in agents)}",
            )
        self.people = [] if self.too_many else assign_people(agents)
        self.to_pid = {person.id: person.pid for person in self.people}

    def add_to(self, folder: _Folder) -> None:
        if self.too_many:
            return
        before = len(self.problems)
        self._check_names()
        if len(self.problems) > before:
            return
        recording, vid = self.recording, self.recording.id
        fps = recording.fps
        order = sorted(
            range(len(recording.actions)), key=lambda i: recording.actions[i].start_frame(fps)
        )
        blocks: list[list[Any]] = []
        intervals: dict[str, list[list[Any]]] = {p: [] for p in sorted(self.to_pid.values())}
        actions_meta: list[ActionMeta] = []
        # per_act_intervals.json gives tasks per (person, action text, start, end): two actions
        # alike in all four (the same step done twice in one frame) share one row there, so
        # their tasks go to the meta file
        rows = Counter(self._row_key(action) for action in recording.actions)
        for b_idx, position in enumerate(order):
            action = recording.actions[position]
            shared = rows[self._row_key(action)] > 1
            block, interval, action_meta = self._block(b_idx, action, shared)
            blocks.append(block)
            intervals[self.to_pid[action.agent]].append(interval)
            folder.hois.add(interval[0])
            actions_meta.append(action_meta)
        folder.parsed[vid] = {"all_segments": blocks}
        folder.intervals[vid] = intervals
        folder.lengths[vid] = {pid: round(recording.duration * fps) for pid in intervals}
        folder.meta[vid] = self._meta(actions_meta, order)

    def _row_key(self, action: ActionSegment) -> tuple[str, str, int, int]:
        """The key per_act_intervals.json's row of the action is read back by."""
        fps = self.recording.fps
        slots = rename_slots(action.slots, self.to_pid)
        text, _ = write_action_string(action.verb, slots, self.templates)
        return self.to_pid[action.agent], text, action.start_frame(fps), action.end_frame(fps)

    def _block(
        self, b_idx: int, action: ActionSegment, shared: bool = False
    ) -> tuple[list[Any], list[Any], ActionMeta]:
        """The action's parsed.json block, its per_act_intervals.json row and its meta entry;
        ``shared``: another action of the recording has the same row key (``_row_key``)."""
        fps = self.recording.fps
        pid = self.to_pid[action.agent]
        slots = rename_slots(action.slots, self.to_pid)
        text, text_lossless = write_action_string(action.verb, slots, self.templates)
        task_field, tasks_lossless = join_tasks(action.tasks)
        start, end = action.start_frame(fps), action.end_frame(fps)
        segments = [s for t in action.transitions for s in self._segments(t, pid)]
        header = [b_idx, pid, [text], start, end]
        action_meta = ActionMeta(
            id=action.id,
            step=action.step,
            start=None if start / fps == action.start else action.start,
            end=None if end / fps == action.end else action.end,
            verb=None if text_lossless else action.verb,
            slots=None if text_lossless else action.slots,
            tasks=None if tasks_lossless and not shared else list(action.tasks),
            outcome=action.outcome,
            relation_order=_relation_order(action.transitions),
        )
        # The second element of a block is unused by EgoTaskQA's code.
        return [header, None, segments], [text, start, end, task_field], action_meta

    def _segments(self, transition: EntityTransition, pid: str) -> list[dict[str, Any]]:
        obj = self.to_pid.get(transition.entity, transition.entity)
        moments = (("before", transition.before), ("after", transition.after))
        return [
            {
                "pid": pid,
                "obj": obj,
                "type": moment,
                # EgoTaskQA compares an object's before and after fluents key by key, so object
                # segments list every fluent; a person's segment lists only what applies.
                "state": encode_state(snapshot.attributes, pid, complete=not transition.is_agent),
                "rel": self._relations(snapshot.relations),
            }
            for moment, snapshot in moments
        ]

    def _relations(self, relations: list[Relation]) -> dict[str, list[dict[str, str]]]:
        grouped: dict[str, list[dict[str, str]]] = {RELATION_KEYS[kind]: [] for kind in KIND_ORDER}
        for relation in relations:
            entry = {
                "o1": self.to_pid.get(relation.subject, relation.subject),
                "rel": RELATION_NAMES_OUT.get(relation.relation, relation.relation),
            }
            if relation.object is not None:
                entry["o2"] = self.to_pid.get(relation.object, relation.object)
            grouped[RELATION_KEYS[relation.kind]].append(entry)
        return grouped

    def _meta(self, actions: list[ActionMeta], order: list[int]) -> dict[str, Any]:
        recording = self.recording
        # The block at index b holds action order[b]; action_order maps back the other way.
        action_order = sorted(range(len(order)), key=order.__getitem__)
        meta = RecordingMeta(
            source=recording.source,
            duration=recording.duration,
            fps=recording.fps,
            environment=recording.environment,
            people=self.people,
            videos=recording.videos,
            tasks=recording.tasks,
            metadata=recording.metadata,
            procedures=recording.procedures,
            physics=recording.physics,
            initial_state=recording.initial_state,
            actions=actions,
            action_order=None if order == list(range(len(order))) else action_order,
        )
        return meta.model_dump(mode="json", exclude_defaults=True)

    def _check_names(self) -> None:
        for a_idx, action in enumerate(self.recording.actions):
            for name in action.slots.objects():
                self._check_object_name(["actions", a_idx, "slots"], name)
            entities: set[str] = set()
            for t_idx, transition in enumerate(action.transitions):
                location: list[str | int] = ["actions", a_idx, "transitions", t_idx]
                self._check_transition(location, transition, entities)
                entities.add(transition.entity)

    def _check_transition(
        self, location: list[str | int], transition: EntityTransition, entities: set[str]
    ) -> None:
        entity = transition.entity
        if entity in entities:
            self._problem(
                location,
                f"a second transition of {entity!r} in one action; EgoTaskQA files hold one "
                "before and one after segment per entity and action",
            )
        if transition.is_agent and entity not in self.to_pid:
            self._problem(location, f"is_agent is true but {entity!r} is not an agent")
        elif not transition.is_agent and entity in self.to_pid:
            self._problem(location, f"{entity!r} is an agent but is_agent is false")
        elif not transition.is_agent:
            self._check_object_name([*location, "entity"], entity)
        for moment in ("before", "after"):
            snapshot = transition.before if moment == "before" else transition.after
            for r_idx, relation in enumerate(snapshot.relations):
                place = [*location, moment, "relations", r_idx]
                if relation.object is not None:
                    self._check_object_name([*place, "object"], relation.object)
                if relation.relation in RELATION_NAMES_IN:
                    name = RELATION_NAMES_IN[relation.relation]
                    self._problem(
                        [*place, "relation"],
                        f"{relation.relation!r} is how the files spell taskqa's {name!r}; "
                        f"use {name!r}",
                    )

    def _check_object_name(self, location: list[str | int], name: str) -> None:
        if name in PEOPLE and name not in self.to_pid:
            self._problem(
                location,
                f"{name!r} names a person in EgoTaskQA files but is not an agent of this recording",
            )

    def _problem(self, location: list[str | int], message: str) -> None:
        self.problems.append(Problem.at(RECORDINGS, [self.index, *location], message))


def agents_to_write(recording: Recording) -> list[tuple[str, AgentRole, bool]]:
    """(id, role, listed) of every agent; without an agent list, those the actions name."""
    if recording.agents:
        return [(a.id, a.role, True) for a in recording.agents]
    named = [a.agent for a in recording.actions]
    named += [t.entity for a in recording.actions for t in a.transitions if t.is_agent]
    return [(agent_id, AgentRole.ACTOR, False) for agent_id in dict.fromkeys(named)]


def assign_people(agents: list[tuple[str, AgentRole, bool]]) -> list[PersonMeta]:
    """Each of at most two agents with its EgoTaskQA person id, in the given order.

    Agents already called P1 and P2 keep their ids; otherwise actors come before helpers and take
    P1 first.
    """
    ids = [agent_id for agent_id, _, _ in agents]
    if set(ids) <= set(PEOPLE):
        pids = ids
    else:
        ranked = sorted(range(len(agents)), key=lambda i: agents[i][1] is not AgentRole.ACTOR)
        pids = [""] * len(agents)
        for rank, position in enumerate(ranked):
            pids[position] = PEOPLE[rank]
    return [
        PersonMeta.model_validate({"id": agent_id, "pid": pid, "role": role, "listed": listed})
        for (agent_id, role, listed), pid in zip(agents, pids, strict=True)
    ]


def _relation_order(
    transitions: list[EntityTransition],
) -> dict[str, dict[Moment, list[RelationKind]]]:
    """The relation kinds of each snapshot whose relations are not grouped in reading order."""
    orders: dict[str, dict[Moment, list[RelationKind]]] = {}
    for transition in transitions:
        moments: tuple[tuple[Moment, Snapshot], ...] = (
            ("before", transition.before),
            ("after", transition.after),
        )
        for moment, snapshot in moments:
            kinds = [relation.kind for relation in snapshot.relations]
            if kinds != sorted(kinds, key=KIND_ORDER.index):
                orders.setdefault(transition.entity, {})[moment] = kinds
    return orders
