"""The files beside ``parsed.json``: action intervals with tasks, video lengths, taskqa's meta."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from taskqa.problems import Problem, problems_from_validation_error
from taskqa.sources.egotaskqa.checks import Checker, Missing, load
from taskqa.sources.egotaskqa.meta import MetaFile, RecordingMeta
from taskqa.sources.egotaskqa.vocabulary import LENGTHS, META, PEOPLE, PER_ACT_INTERVALS

# (pid, action string, start frame, end frame): how EgoTaskQA matches an interval to its block.
IntervalKey = tuple[str, str, int, int]


@dataclass
class SideFiles:
    """What the side files say, per video id: tasks by interval, length, people, taskqa meta."""

    tasks: dict[str, dict[IntervalKey, str]] = field(default_factory=dict)
    frames: dict[str, int] = field(default_factory=dict)
    people: dict[str, set[str]] = field(default_factory=dict)
    meta: dict[str, RecordingMeta] = field(default_factory=dict)


def read_side_files(folder: Path, problems: list[Problem]) -> SideFiles:
    """Whatever side files ``folder`` has; each one is optional."""
    files = SideFiles()
    intervals = load(folder / PER_ACT_INTERVALS, PER_ACT_INTERVALS, problems, required=False)
    _read_intervals(intervals, Checker(PER_ACT_INTERVALS, problems), files)
    lengths = load(folder / LENGTHS, LENGTHS, problems, required=False)
    _read_lengths(lengths, Checker(LENGTHS, problems), files)
    meta = load(folder / META, META, problems, required=False)
    if not isinstance(meta, Missing):
        try:
            files.meta = MetaFile.model_validate(meta).recordings
        except ValidationError as error:
            problems.extend(problems_from_validation_error(META, [], error))
    return files


def _read_intervals(raw: object, check: Checker, files: SideFiles) -> None:
    videos = check.mapping(raw, [], "an object keyed by video id")
    for vid, people in (videos or {}).items():
        by_person = check.mapping(people, [vid], "an object keyed by person (P1, P2)")
        for pid, rows in (by_person or {}).items():
            if check.choice(pid, [vid, pid], PEOPLE) is None:
                continue
            files.people.setdefault(vid, set()).add(pid)
            for index, row in enumerate(check.sequence(rows, [vid, pid], "a list") or []):
                key_task = _interval(row, [vid, pid, index], pid, check)
                if key_task is not None:
                    files.tasks.setdefault(vid, {})[key_task[0]] = key_task[1]


def _interval(
    row: object, location: list[str | int], pid: str, check: Checker
) -> tuple[IntervalKey, str] | None:
    fields = check.sequence(row, location, "[action string, start frame, end frame, task]")
    if fields is None:
        return None
    if len(fields) != 4:
        check.problem(
            location, f"expected 4 entries: action string, start, end, task (got {len(fields)})"
        )
        return None
    text = check.text(fields[0], [*location, 0])
    start = check.frame(fields[1], [*location, 1])
    end = check.frame(fields[2], [*location, 2])
    task = fields[3]
    if not isinstance(task, str):
        check.problem([*location, 3], "expected a string of comma-separated tasks")
        return None
    if text is None or start is None or end is None:
        return None
    return (pid, text, start, end), task


def _read_lengths(raw: object, check: Checker, files: SideFiles) -> None:
    """``{vid: {pid: frames}}`` as EgoTaskQA's code writes it; ``{vid: frames}`` is accepted too."""
    videos = check.mapping(raw, [], "an object keyed by video id")
    for vid, value in (videos or {}).items():
        if isinstance(value, dict):
            counts: list[int] = []
            for pid, frames in value.items():
                if check.choice(pid, [vid, pid], PEOPLE) is None:
                    continue
                files.people.setdefault(vid, set()).add(pid)
                count = check.frame(frames, [vid, pid])
                counts += [] if count is None else [count]
            if counts:
                files.frames[vid] = max(counts)
        else:
            count = check.frame(value, [vid])
            if count is not None:
                files.frames[vid] = count
