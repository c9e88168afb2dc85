"""Candidate examples: one question per (prefix, type), by the prefix rule of ProMQA's release.

A prefix ends at a performed step; the clip runs from 0 to the latest end time seen so far.
A prefix yields questions only if no later performed step overlaps its clip (beyond a small
margin) and its step id was not asked about before. START yields only a *next* question;
other steps yield *next* and *missing*, plus one question per error type the step carries.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from taskqa.problems import InvalidInputError, Problem
from taskqa.procedural.annotations import AnnotatedRecording, AnnotatedStep
from taskqa.procedural.recipes import START_ID, RecipeGraph

MIN_CLIP_SECONDS = 5.0
OVERLAP_MARGIN_SECONDS = 2.0
SHORT_STEP_FRACTION = 0.9  # steps no longer than the margin may overlap by 90% of themselves

# In the order the release emits them for one step, which fixes the order of the output file
# and therefore what a seeded sampler draws.
ERROR_TYPES: dict[str, str] = {
    "order": "Order Error",
    "preparation": "Preparation Error",
    "measurement": "Measurement Error",
    "timing": "Timing Error",
    "technique": "Technique Error",
    "temperature": "Temperature Error",
}
QUESTION_TYPES: tuple[str, ...] = ("next", "missing", *ERROR_TYPES)
TARGET_FIELDS = {"next": "next_steps", "missing": "missing_steps"}
# Tags that do not make a history noisy for a question type: a missing-step question is about
# skipped steps, an order question about order, so those tags are its subject, not noise.
IGNORED_NOISE_TAGS: dict[str, frozenset[str]] = {
    "missing": frozenset({"Missing Step"}),
    "order": frozenset({"Order Error", "Missing Step"}),
}

Candidate = dict[str, Any]


def build_candidates(
    recordings: Sequence[AnnotatedRecording], graphs: dict[int, RecipeGraph]
) -> list[Candidate]:
    """Every candidate of every recording, in recording order, in the released record format."""
    unknown = [
        Problem.at(
            "annotations", [index, "activity_id"], f"no task graph for activity {r.activity_id}"
        )
        for index, r in enumerate(recordings)
        if r.activity_id not in graphs
    ]
    if unknown:
        raise InvalidInputError(unknown)
    tables = {activity: _TargetTable(graph) for activity, graph in graphs.items()}
    return [
        candidate
        for recording in recordings
        for candidate in _candidates(recording, tables[recording.activity_id])
    ]


def recording_candidates(recording: AnnotatedRecording, graph: RecipeGraph) -> Iterator[Candidate]:
    """The candidates of one recording, in the order the release writes them."""
    return _candidates(recording, _TargetTable(graph))


def _candidates(recording: AnnotatedRecording, table: _TargetTable) -> Iterator[Candidate]:
    performed = [step for step in recording.steps if not step.is_missing]
    history = _History()
    asked: set[str] = set()
    overlap_from = _earliest_overlap_after(performed)
    clip_end = 0.0
    for index, step in enumerate(performed):
        if step.end_time < MIN_CLIP_SECONDS:
            continue
        clip_end = max(clip_end, step.end_time)
        if clip_end <= overlap_from[index]:
            # A step done twice (A, B, A) is asked about once, at its first clear prefix; the
            # check is per question so a repeat can still bring an error type the first lacked.
            for candidate in _step_candidates(recording, table, history, step, clip_end):
                if candidate["question_id"] not in asked:
                    asked.add(candidate["question_id"])
                    yield candidate
        if step.step_id > START_ID:
            history.add(step)


class _History:
    """The steps done so far, with their records and error tags kept as they grow.

    Step records are built once and shared by every candidate whose history holds the step;
    records are plain data that nothing mutates after construction.
    """

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.passed = 1 << START_ID  # the steps done, as a bit mask
        self.tags: set[str] = set()

    def add(self, step: AnnotatedStep) -> None:
        self.records.append(step_record(step))
        self.passed |= 1 << step.step_id
        self.tags.update(error.tag for error in step.errors)

    def is_noisy(self, question_type: str) -> bool:
        ignored = IGNORED_NOISE_TAGS.get(question_type)
        return bool(self.tags - ignored if ignored else self.tags)


def overlaps(step: AnnotatedStep, clip_end: float) -> bool:
    """Whether ``step`` lies inside [0, clip_end] beyond the tolerated margin."""
    return overlap_threshold(step) < min(clip_end, step.end_time)


def overlap_threshold(step: AnnotatedStep) -> float:
    """The time past which a clip overlaps ``step``: its start plus the tolerated margin."""
    duration = step.end_time - step.start_time
    short = duration <= OVERLAP_MARGIN_SECONDS
    margin = SHORT_STEP_FRACTION * duration if short else OVERLAP_MARGIN_SECONDS
    return max(0.0, step.start_time + margin)


def _earliest_overlap_after(steps: Sequence[AnnotatedStep]) -> list[float]:
    """For each position, the clip end beyond which some later step is overlapped.

    ``overlaps(later, clip_end)`` holds iff threshold < end and threshold < clip_end, so a clip
    is clear of every later step iff it ends at or before the least threshold among later steps
    whose threshold lies before their end. A suffix minimum makes the rule linear per recording.
    """
    bounds = [math.inf] * len(steps)
    least = math.inf
    for index in range(len(steps) - 1, -1, -1):
        bounds[index] = least
        threshold = overlap_threshold(steps[index])
        if threshold < steps[index].end_time:
            least = min(least, threshold)
    return bounds


def _step_candidates(
    recording: AnnotatedRecording,
    table: _TargetTable,
    history: _History,
    step: AnnotatedStep,
    clip_end: float,
) -> Iterator[Candidate]:
    is_start = step.step_id <= START_ID
    passed = history.passed if is_start else history.passed | 1 << step.step_id
    example_id = f"{recording.recording_id}_{step.step_id}"
    common = {
        "recording_id": recording.recording_id,
        "example_id": example_id,
        "end_time": clock(clip_end),
        "activity_name": recording.activity_name,
        "previous_steps": list(history.records),
        "current_step": step_record(step),
    }

    def record(question_type: str, target: dict[str, Any]) -> Candidate:
        return {
            **common,
            "type": question_type,
            **target,
            "question_id": f"{example_id}_{question_type}",
            "is_noisy": history.is_noisy(question_type),
        }

    yield record("next", {"next_steps": table.next_records(passed)})
    if is_start:
        return
    yield record("missing", {"missing_steps": table.missing_records(passed)})
    tags = step.tags()
    for question_type, tag in ERROR_TYPES.items():
        if tag in tags:
            description = next(e.description for e in step.errors if e.tag == tag)
            yield record(question_type, {"error_description": description})


def next_steps(graph: RecipeGraph, passed: set[int]) -> list[int]:
    """Steps that may come next: all predecessors done, nothing after them done yet."""
    return _TargetTable(graph).next_ids(_mask(passed))


def missing_steps(graph: RecipeGraph, passed: set[int]) -> list[int]:
    """Steps skipped so far: something before them and something after them is done."""
    return _TargetTable(graph).missing_ids(_mask(passed))


def _mask(steps: Iterable[int]) -> int:
    mask = 0
    for step in steps:
        mask |= 1 << step
    return mask


class _TargetTable:
    """A graph's precedence as bit masks (bit n = step n), with target lists cached per set of
    steps done: the rule runs once per prefix, and prefixes of one recipe often coincide.
    The cached target records are shared between candidates, like history steps."""

    def __init__(self, graph: RecipeGraph) -> None:
        end = graph.end_id
        self.graph = graph
        self.rows = [
            (
                node,
                1 << node,
                _mask(graph.predecessors[node]),
                _mask(graph.ancestors[node]),
                _mask(graph.descendants[node]),
            )
            for node in graph.node_order
            if node != end
        ]
        self.records = {
            node: {"step_id": node, "description": graph.steps[node]} for node in graph.steps
        }
        self._next: dict[int, list[dict[str, Any]]] = {}
        self._missing: dict[int, list[dict[str, Any]]] = {}

    def next_ids(self, passed: int) -> list[int]:
        return [
            node
            for node, bit, before, _, after in self.rows
            if not passed & bit and before & ~passed == 0 and not after & passed
        ]

    def missing_ids(self, passed: int) -> list[int]:
        return [
            node
            for node, bit, _, above, after in self.rows
            if not passed & bit and above & passed and after & passed
        ]

    def next_records(self, passed: int) -> list[dict[str, Any]]:
        found = self._next.get(passed)
        if found is None:
            found = self._next[passed] = [self.records[n] for n in self.next_ids(passed)]
        return found

    def missing_records(self, passed: int) -> list[dict[str, Any]]:
        found = self._missing.get(passed)
        if found is None:
            found = self._missing[passed] = [self.records[n] for n in self.missing_ids(passed)]
        return found


def step_record(step: AnnotatedStep) -> dict[str, Any]:
    record: dict[str, Any] = {"step_id": step.step_id, "description": step.shown_description}
    if step.errors:
        record["errors"] = [error.as_json() for error in step.errors]
    return record


def clock(seconds: float) -> str:
    """Seconds truncated to whole seconds, as ``HH:MM:SS``."""
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def count_by_type(records: Sequence[Candidate]) -> dict[str, int]:
    """Records per question type, in the canonical type order, types with none left out."""
    counts = dict.fromkeys(QUESTION_TYPES, 0)
    for record in records:
        counts[record["type"]] = counts.get(record["type"], 0) + 1
    return {name: count for name, count in counts.items() if count}
