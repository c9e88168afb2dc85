"""Cutting recordings into question clips, EgoTaskQA style.

Each agent's timeline is split into windows of about ``seconds``. A clip takes the agent's
not-yet-used actions that start inside its window (an action running past the window's end
stretches the clip to include it), and the agent's next ``future`` actions become the unseen
future that predictive questions ask about. The clip shows ``[start, prediction_start)``; the
other agent's actions overlapping that span are kept for multi-agent questions.

The id ``recording|agent|start_frame|prediction_frame`` is the interval string of EgoTaskQA's
released files, so clips can be matched to its ``qa_videos/<interval>.mp4``.

Windows are cut once, by generation, and written out (``clip_record``): every later reader
(``taskqa check``, ``build``'s ``clips.jsonl`` and ``videos.csv``, the oracle, the chat adapter,
the exports) reads them back with ``read_clips`` instead of cutting again from a configuration
that could differ from the one that made the questions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.jsonio import read_jsonl_objects
from taskqa.model import ActionSegment, Recording
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error


class ClipConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # 20 s: EgoTaskQA's released code cuts int(frames / 15 s) windows, 15 to 30 s long; 25 s
    # (until issue 33's seventh part) left the default build with too few predictive questions
    # (one prediction point per clip) to keep 10% of a larger set
    seconds: float = Field(default=20.0, gt=0, description="Target clip length.")
    future: int = Field(default=3, ge=0, description="Actions kept as the unseen future.")


class Clip(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    recording: str
    agent: str
    start: float
    prediction_start: float
    observed: tuple[str, ...] = Field(description="The agent's actions shown in the clip.")
    future: tuple[str, ...] = Field(description="The agent's next actions, not shown.")
    others: tuple[str, ...] = Field(description="Other agents' actions overlapping the clip.")

    @property
    def duration(self) -> float:
        return self.prediction_start - self.start


def clip_id(recording: Recording, agent: str, start: float, prediction_start: float) -> str:
    fps = recording.fps
    return f"{recording.id}|{agent}|{round(start * fps)}|{round(prediction_start * fps)}"


def cut_clips(recording: Recording, config: ClipConfig | None = None) -> list[Clip]:
    config = config or ClipConfig()
    clips: list[Clip] = []
    for agent in recording.agents:
        clips += _agent_clips(recording, agent.id, config)
    return clips


def windows(recording: Recording, config: ClipConfig) -> tuple[int, float]:
    """How many equal windows a recording is cut into, and their width in seconds: a clip's
    window is its start over the width (the start never falls before its window's)."""
    count = max(1, round(recording.duration / config.seconds))
    return count, recording.duration / count


def _agent_clips(recording: Recording, agent: str, config: ClipConfig) -> Iterator[Clip]:
    own = sorted(recording.actions_of(agent), key=lambda a: (a.start, a.end))
    if not own:
        return
    count, width = windows(recording, config)
    cursor = 0
    for index in range(count):
        window_start, window_end = index * width, (index + 1) * width
        members: list[ActionSegment] = []
        first = cursor
        while cursor < len(own) and own[cursor].start < window_end:
            members.append(own[cursor])
            cursor += 1
        if not members:
            continue
        future = own[cursor : cursor + config.future]
        # the clip opens no earlier than the end of the person's previous action: a viewer
        # would otherwise see that action under way and count it as the clip's first
        previous_end = min(own[first - 1].end, members[0].start) if first else 0.0
        start = max(min(window_start, members[0].start), previous_end)
        prediction_start = future[0].start if future else members[-1].end
        yield Clip(
            id=clip_id(recording, agent, start, prediction_start),
            recording=recording.id,
            agent=agent,
            start=start,
            prediction_start=prediction_start,
            observed=tuple(a.id for a in members),
            future=tuple(a.id for a in future),
            others=_overlapping(recording.actions, agent, start, prediction_start),
        )


def _overlapping(
    actions: Sequence[ActionSegment], agent: str, start: float, end: float
) -> tuple[str, ...]:
    """The other people's actions the clip shows: under way in it and done by its last frame.
    One the clip cuts off ("did the other person turn off the juicer?" where the clip ends with
    their hand on the switch and the light still on) is not yet seen done (two reviews from the
    frames found such answers unanswerable)."""
    return tuple(
        a.id for a in actions if a.agent != agent and a.start < end and start < a.end <= end
    )


def clip_record(clip: Clip, generation: Mapping[str, Any]) -> dict[str, Any]:
    """One line of a clips file: the window, what it shows, and the generation settings that
    cut it (``generation``: a ``GenerationConfig`` as JSON, whose ``clips`` made the window)."""
    return {
        "id": clip.id,
        "recording": clip.recording,
        "agent": clip.agent,
        "start": clip.start,
        "end": clip.prediction_start,
        "observed": list(clip.observed),
        "future": list(clip.future),
        "others": list(clip.others),
        "generation": dict(generation),
    }


class ClipRecord(BaseModel):
    """A clips-file line read back: the clip and the generation settings that made it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    recording: str
    agent: str
    start: float
    end: float
    observed: tuple[str, ...]
    future: tuple[str, ...]
    others: tuple[str, ...]
    generation: dict[str, Any]

    @property
    def clip(self) -> Clip:
        return Clip(
            id=self.id,
            recording=self.recording,
            agent=self.agent,
            start=self.start,
            prediction_start=self.end,
            observed=self.observed,
            future=self.future,
            others=self.others,
        )


def read_clips(path: Path, name: str | None = None) -> dict[str, ClipRecord]:
    """Every clip of a clips file by id; a bad record raises naming the file and record."""
    label = str(path) if name is None else name
    clips: dict[str, ClipRecord] = {}
    for index, raw in read_jsonl_objects(path, label):
        try:
            record = ClipRecord.model_validate(raw)
        except ValidationError as error:
            raise InvalidInputError(problems_from_validation_error(label, [index], error)) from None
        if record.id in clips:
            raise InvalidInputError(
                [Problem.at(label, [index, "id"], f"clip {record.id!r} is listed twice")]
            )
        if record.end < record.start:
            raise InvalidInputError(
                [Problem.at(label, [index, "end"], f"ends ({record.end}) before it starts")]
            )
        clips[record.id] = record
    return clips
