"""Cutting recordings into question clips, EgoTaskQA style.

Each agent's timeline is split into windows of about ``seconds``. A clip takes the agent's
not-yet-used actions that start inside its window (an action running past the window's end
stretches the clip to include it), and the agent's next ``future`` actions become the unseen
future that predictive questions ask about. The clip shows ``[start, prediction_start)``; the
other agent's actions overlapping that span are kept for multi-agent questions.

The id ``recording|agent|start_frame|prediction_frame`` is the interval string of EgoTaskQA's
released files, so clips can be matched to its ``qa_videos/<interval>.mp4``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pydantic import BaseModel, ConfigDict, Field

from taskqa.model import ActionSegment, Recording


class ClipConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    seconds: float = Field(default=25.0, gt=0, description="Target clip length.")
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


def _agent_clips(recording: Recording, agent: str, config: ClipConfig) -> Iterator[Clip]:
    own = sorted(recording.actions_of(agent), key=lambda a: (a.start, a.end))
    if not own:
        return
    windows = max(1, round(recording.duration / config.seconds))
    width = recording.duration / windows
    cursor = 0
    for index in range(windows):
        window_start, window_end = index * width, (index + 1) * width
        members: list[ActionSegment] = []
        while cursor < len(own) and own[cursor].start < window_end:
            members.append(own[cursor])
            cursor += 1
        if not members:
            continue
        future = own[cursor : cursor + config.future]
        start = min(window_start, members[0].start)
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
    return tuple(a.id for a in actions if a.agent != agent and a.start < end and a.end > start)
