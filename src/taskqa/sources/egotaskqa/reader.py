"""Read an EgoTaskQA / LEMMA annotation folder, or a bare ``parsed.json``, into recordings."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from pydantic import ValidationError

from taskqa.model import (
    ActionSegment,
    Agent,
    AgentRole,
    EntityTransition,
    Outcome,
    Recording,
    Snapshot,
    Source,
)
from taskqa.problems import InvalidInputError, Location, Problem, problems_from_validation_error
from taskqa.sources.egotaskqa.actions import read_action_string, rename_slots, split_tasks
from taskqa.sources.egotaskqa.checks import Checker, load
from taskqa.sources.egotaskqa.meta import Moment, RecordingMeta
from taskqa.sources.egotaskqa.segments import MOMENTS, Segment, SegmentReader
from taskqa.sources.egotaskqa.side_files import SideFiles, read_side_files
from taskqa.sources.egotaskqa.vocabulary import (
    LEMMA_FPS,
    META,
    PARSED,
    PEOPLE,
)

# LEMMA video ids: "27k-22-11-2"; the letter after the leading number names the room.
_LEMMA_ID = re.compile(r"^\d+([kl])-\d")
_ROOMS = {"k": "kitchen", "l": "living room"}


def read_egotaskqa(in_dir: Path) -> list[Recording]:
    """Read a folder written by :func:`write_egotaskqa` or released with EgoTaskQA.

    ``in_dir`` may also be a ``parsed.json`` file; side files beside it are used when present.
    Raises :class:`InvalidInputError` with every problem found in any of the files.
    """
    recordings, problems = _read(in_dir)
    if problems:
        raise InvalidInputError(problems)
    return recordings


def validate_egotaskqa(path: Path) -> list[Problem]:
    """Every problem :func:`read_egotaskqa` would raise for ``path``; empty when it reads."""
    return _read(path)[1]


def detect_egotaskqa(path: Path) -> bool:
    """Whether ``path`` looks like EgoTaskQA world-state annotations (a folder or the file)."""
    if path.is_dir():
        return (path / PARSED).is_file()
    if not path.is_file() or path.suffix != ".json":
        return False
    if path.name == PARSED:
        return True
    # Other names: sniff the start rather than parse what may be a large file.
    with path.open("rb") as stream:
        return b'"all_segments"' in stream.read(4096)


def lemma_environment(vid: str) -> str | None:
    match = _LEMMA_ID.match(vid)
    return _ROOMS[match.group(1)] if match else None


def _read(path: Path) -> tuple[list[Recording], list[Problem]]:
    parsed_path = path if path.is_file() else path / PARSED
    problems: list[Problem] = []
    raw = load(parsed_path, str(parsed_path), problems, required=True)
    side = read_side_files(parsed_path.parent, problems)
    check = Checker(str(parsed_path), problems)
    videos = check.mapping(raw, [], "an object keyed by video id")
    if videos is None:
        return [], problems
    recordings = [_VideoReader(vid, check, side).read(video) for vid, video in videos.items()]
    for vid in side.meta:
        if vid not in videos:
            problems.append(
                Problem.at(META, ["recordings", vid], f"no video {vid!r} in {parsed_path.name}")
            )
    return [r for r in recordings if r is not None], problems


@dataclass
class _Block:
    pid: str
    text: str
    start: int
    end: int
    transitions: list[EntityTransition]


class _VideoReader:
    """Reads one video of ``parsed.json``; with its taskqa meta when the folder has one."""

    def __init__(self, vid: str, check: Checker, side: SideFiles) -> None:
        self.vid = vid
        self.check = check
        self.meta_check = Checker(META, check.problems)
        self.side = side
        self.meta: RecordingMeta | None = side.meta.get(vid)
        # EgoTaskQA names people P1/P2; taskqa_meta.json says which agent each one was.
        self.names: dict[str, str] = {pid: pid for pid in PEOPLE}
        if self.meta is not None:
            self.names = {person.pid: person.id for person in self.meta.people}
        self.fps = self.meta.fps if self.meta else LEMMA_FPS
        self.segments = SegmentReader(check, self.names, set(side.people.get(vid, ())))

    def read(self, video: object) -> Recording | None:
        problems = self.check.problems
        before = len(problems)
        body = self.check.mapping(video, [self.vid], 'an object with "all_segments"')
        if body is None:
            return None
        location = [self.vid, "all_segments"]
        raw_blocks = self.check.sequence(
            self.check.get(body, "all_segments", [self.vid]), location, "a list of blocks"
        )
        if raw_blocks is None or not self._meta_fits(len(raw_blocks)):
            return None
        read = [self._block(index, raw) for index, raw in enumerate(raw_blocks)]
        blocks = [block for block in read if block is not None]
        if len(problems) > before or len(blocks) < len(read):
            return None
        actions = [self._action(index, block) for index, block in enumerate(blocks)]
        self._check_people()
        if len(problems) > before:
            return None
        return self._recording([a for a in actions if a is not None])

    def _meta_fits(self, blocks: int) -> bool:
        if self.meta is None or len(self.meta.actions) == blocks:
            return True
        self.meta_check.problem(
            ["recordings", self.vid, "actions"],
            f"has {len(self.meta.actions)} entries; {self.check.file} has {blocks} blocks "
            "for this video (one entry per block expected)",
        )
        return False

    # -- blocks and segments ------------------------------------------------------------------

    def _block(self, index: int, raw: object) -> _Block | None:
        location: list[str | int] = [self.vid, "all_segments", index]
        parts = self.check.sequence(raw, location, "a block [header, _, segments]")
        if parts is None:
            return None
        if len(parts) != 3:
            self.check.problem(
                location, f"expected 3 entries [header, _, segments] (got {len(parts)})"
            )
            return None
        header = self._header(parts[0], [*location, 0])
        raw_segments = self.check.sequence(parts[2], [*location, 2], "a list of segments")
        if header is None or raw_segments is None:
            return None
        pid, text, start, end = header
        segments = [
            self.segments.read(raw_segment, [*location, 2, position], pid)
            for position, raw_segment in enumerate(raw_segments)
        ]
        known = [s for s in segments if s is not None]
        if len(known) < len(segments):
            return None
        transitions = self._transitions(index, known, [*location, 2])
        return _Block(pid, text, start, end, transitions)

    def _header(self, raw: object, location: Location) -> tuple[str, str, int, int] | None:
        shape = "a header [index, person, [action string], start frame, end frame]"
        fields = self.check.sequence(raw, location, shape)
        if fields is None:
            return None
        if len(fields) != 5:
            self.check.problem(location, f"expected {shape} (got {len(fields)} entries)")
            return None
        pid = self.check.choice(fields[1], [*location, 1], PEOPLE)
        hois = self.check.sequence(fields[2], [*location, 2], "a list of action strings")
        text = None
        if hois == []:
            self.check.problem([*location, 2], "expected the action string as the first entry")
        elif hois is not None:
            text = self.check.text(hois[0], [*location, 2, 0])
        start = self.check.frame(fields[3], [*location, 3])
        end = self.check.frame(fields[4], [*location, 4])
        if start is not None and end is not None and end < start:
            self.check.problem([*location, 4], f"end frame {end} is before start frame {start}")
            return None
        if pid is None or text is None or start is None or end is None:
            return None
        return pid, text, start, end

    def _transitions(
        self, index: int, segments: list[Segment], location: Location
    ) -> list[EntityTransition]:
        """One transition per obj, in the order objs first appear; a missing moment is empty."""
        groups: dict[str, dict[str, tuple[int, Segment]]] = {}
        for position, segment in enumerate(segments):
            moments = groups.setdefault(segment.obj, {})
            if segment.moment in moments:
                first = moments[segment.moment][0]
                self.check.problem(
                    [*location, position, "type"],
                    f"a second {segment.moment!r} segment of {segment.obj!r} in this block "
                    f"(the first is segment {first})",
                )
                continue
            moments[segment.moment] = (position, segment)
        transitions = []
        for obj, moments in groups.items():
            entity = self._name(obj)
            snapshots = {
                moment: self._snapshot(index, entity, moment, moments[moment][1])
                if moment in moments
                else Snapshot()
                for moment in MOMENTS
            }
            transitions.append(
                EntityTransition(
                    entity=entity,
                    is_agent=obj in PEOPLE,
                    before=snapshots["before"],
                    after=snapshots["after"],
                )
            )
        return transitions

    def _snapshot(self, index: int, entity: str, moment: str, segment: Segment) -> Snapshot:
        relations = segment.relations
        kinds = None
        if self.meta is not None:
            kinds = (
                self.meta.actions[index].relation_order.get(entity, {}).get(cast(Moment, moment))
            )
        if kinds is not None:
            if Counter(kinds) == Counter(r.kind for r in relations):
                queues = {kind: iter([r for r in relations if r.kind == kind]) for kind in kinds}
                relations = [next(queues[kind]) for kind in kinds]
            else:
                self.meta_check.problem(
                    ["recordings", self.vid, "actions", index, "relation_order", entity, moment],
                    f"the kinds listed do not match {entity!r}'s relations in {self.check.file}",
                )
        return Snapshot(attributes=segment.attributes, relations=relations)

    def _name(self, raw: str) -> str:
        return self.names.get(raw, raw)

    # -- actions and the recording ------------------------------------------------------------

    def _action(self, index: int, block: _Block) -> ActionSegment | None:
        meta = self.meta.actions[index] if self.meta else None
        if meta is not None and meta.verb is not None and meta.slots is not None:
            verb, slots = meta.verb, meta.slots
        else:
            try:
                verb, raw_slots = read_action_string(block.text)
            except ValueError as error:
                self.check.problem([self.vid, "all_segments", index, 0, 2, 0], str(error))
                return None
            slots = rename_slots(raw_slots, self.names)
        key = (block.pid, block.text, block.start, block.end)
        task_field = self.side.tasks.get(self.vid, {}).get(key, "")
        start = block.start / self.fps
        end = block.end / self.fps
        try:
            return ActionSegment(
                id=meta.id if meta else f"a{index}",
                agent=self._name(block.pid),
                start=meta.start if meta and meta.start is not None else start,
                end=meta.end if meta and meta.end is not None else end,
                verb=verb,
                slots=slots,
                tasks=meta.tasks if meta and meta.tasks is not None else split_tasks(task_field),
                step=meta.step if meta else None,
                transitions=block.transitions,
                outcome=meta.outcome if meta else Outcome.DONE,
            )
        except ValidationError as error:
            location: list[str | int] = [self.vid, "all_segments", index]
            self.check.problems.extend(
                problems_from_validation_error(self.check.file, location, error)
            )
            return None

    def _check_people(self) -> None:
        unnamed = sorted(self.segments.people_seen - set(self.names))
        if unnamed:
            self.meta_check.problem(
                ["recordings", self.vid, "people"],
                f"no agent for {', '.join(unnamed)}, who appear in the LEMMA files",
            )

    def _recording(self, actions: list[ActionSegment]) -> Recording | None:
        try:
            if self.meta is None:
                return self._plain_recording(actions)
            return self._restored_recording(self.meta, actions)
        except ValidationError as error:
            self.check.problems.extend(
                problems_from_validation_error(self.check.file, [self.vid], error)
            )
            return None

    def _plain_recording(self, actions: list[ActionSegment]) -> Recording:
        """A recording from the LEMMA files alone, as for EgoTaskQA's released annotations."""
        people = sorted(self.segments.people_seen | {a.agent for a in actions})
        agents = [
            Agent(id=pid, role=AgentRole.ACTOR if pid == PEOPLE[0] else AgentRole.HELPER)
            for pid in people
        ]
        frames = self.side.frames.get(self.vid)
        duration = (
            frames / LEMMA_FPS if frames is not None else max((a.end for a in actions), default=0.0)
        )
        return Recording(
            id=self.vid,
            source=Source.EGOTASKQA,
            duration=duration,
            fps=LEMMA_FPS,
            environment=lemma_environment(self.vid),
            agents=agents,
            tasks=list(dict.fromkeys(task for a in actions for task in a.tasks)),
            actions=actions,
        )

    def _restored_recording(self, meta: RecordingMeta, actions: list[ActionSegment]) -> Recording:
        order = meta.action_order
        if order is not None:
            if sorted(order) != list(range(len(actions))):
                self.meta_check.problem(
                    ["recordings", self.vid, "action_order"],
                    f"expected each block index 0..{len(actions) - 1} exactly once",
                )
            else:
                actions = [actions[index] for index in order]
        return Recording(
            id=self.vid,
            source=meta.source,
            duration=meta.duration,
            fps=meta.fps,
            environment=meta.environment,
            agents=[Agent(id=p.id, role=p.role) for p in meta.people if p.listed],
            videos=meta.videos,
            tasks=meta.tasks,
            actions=actions,
            procedures=meta.procedures,
            physics=meta.physics,
            initial_state=meta.initial_state,
            metadata=meta.metadata,
        )
