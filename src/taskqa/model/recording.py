"""Recordings and their action segments: the unit every benchmark family builds on."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taskqa.model.physics import PhysicalScene
from taskqa.model.procedure import Procedure
from taskqa.model.state import EntityTransition, Snapshot

# Plausibility limits: larger values are typing errors, and would make clip cutting and frame
# arithmetic loop for ages or overflow.
MAX_DURATION = 7 * 24 * 3600.0
MAX_FPS = 1000.0


class Source(StrEnum):
    SIMULATED = "simulated"
    EGOTASKQA = "egotaskqa"
    CAPTAINCOOK4D = "captaincook4d"
    EGOTV = "egotv"
    CLEVRER = "clevrer"


class Outcome(StrEnum):
    """How an action turned out; its ``after`` snapshots always say what it really left."""

    DONE = "done"  # every effect happened
    FAILED = "failed"  # nothing changed (a stuck lid, a switch that did not catch)
    PARTIAL = "partial"  # some effects happened (poured some, drank a sip)


class AgentRole(StrEnum):
    ACTOR = "actor"
    HELPER = "helper"


class View(StrEnum):
    FIRST_PERSON = "first-person"
    THIRD_PERSON = "third-person"


class Agent(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str = Field(min_length=1)
    role: AgentRole = AgentRole.ACTOR


class VideoRef(BaseModel):
    """Where the pixels of one view live; taskqa never needs them to build a benchmark."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    uri: str = Field(min_length=1, description="A path relative to the corpus, or a URL.")
    view: View = View.FIRST_PERSON
    agent: str | None = Field(default=None, description="The agent wearing the camera.")


class ActionSlots(BaseModel):
    """Objects in their semantic roles, LEMMA style: Put [juicer] to [juicer-base] using [hand]."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    patient: list[str] = Field(default_factory=list)
    source: list[str] = Field(default_factory=list)
    destination: list[str] = Field(default_factory=list)
    instrument: list[str] = Field(default_factory=list)

    def objects(self) -> list[str]:
        """Every object named in any slot, in slot order, without repeats."""
        seen: dict[str, None] = {}
        for name in (*self.patient, *self.source, *self.destination, *self.instrument):
            seen.setdefault(name, None)
        return list(seen)


class ActionSegment(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str = Field(min_length=1)
    agent: str = Field(min_length=1)
    start: float = Field(ge=0, description="Seconds from the start of the recording.")
    end: float = Field(ge=0, description="Seconds from the start of the recording.")
    verb: str = Field(min_length=1)
    slots: ActionSlots = Field(default_factory=ActionSlots)
    tasks: list[str] = Field(default_factory=list)
    step: str | None = Field(default=None, description="The procedure step this action serves.")
    transitions: list[EntityTransition] = Field(
        default_factory=list, description="Before/after snapshots of each involved entity."
    )
    outcome: Outcome = Field(
        default=Outcome.DONE, description="done, failed (no effect) or partial (some effects)."
    )

    @model_validator(mode="after")
    def _ordered_times(self) -> ActionSegment:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}; expected end >= start")
        return self

    def start_frame(self, fps: float) -> int:
        return round(self.start * fps)

    def end_frame(self, fps: float) -> int:
        return round(self.end * fps)

    def transition(self, entity: str) -> EntityTransition | None:
        return next((t for t in self.transitions if t.entity == entity), None)


class Recording(BaseModel):
    """One recorded (or simulated) episode, whichever benchmark family it came from."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str = Field(min_length=1)
    source: Source
    duration: float = Field(ge=0, le=MAX_DURATION, description="Seconds (at most a week).")
    fps: float = Field(gt=0, le=MAX_FPS)
    environment: str | None = Field(default=None, description="Room, kitchen or scene id.")
    agents: list[Agent] = Field(default_factory=list)
    videos: list[VideoRef] = Field(default_factory=list)
    tasks: list[str] = Field(default_factory=list, description="Task labels of the recording.")
    actions: list[ActionSegment] = Field(default_factory=list)
    procedures: list[Procedure] = Field(
        default_factory=list, description="One per task graph the recording executes."
    )
    physics: PhysicalScene | None = None
    initial_state: dict[str, Snapshot] = Field(
        default_factory=dict,
        description="Every object present when the recording starts: its attribute values and "
        "where it rests (spatial relations); empty when the source does not know it.",
    )
    metadata: dict[str, str | int | float | bool] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _references_resolve(self) -> Recording:
        agent_ids = [a.id for a in self.agents]
        if len(set(agent_ids)) != len(agent_ids):
            raise ValueError(f"agent ids repeat: {agent_ids}")
        for index, action in enumerate(self.actions):
            if self.agents and action.agent not in agent_ids:
                raise ValueError(
                    f"actions[{index}].agent {action.agent!r} is not one of the agents {agent_ids}"
                )
            if action.end > self.duration + 1e-6:
                raise ValueError(
                    f"actions[{index}].end {action.end} is after the recording's duration "
                    f"{self.duration}"
                )
        for index, video in enumerate(self.videos):
            if video.agent is not None and video.agent not in agent_ids:
                raise ValueError(f"videos[{index}].agent {video.agent!r} is not one of {agent_ids}")
        for name, snapshot in self.initial_state.items():
            for relation in snapshot.relations:
                if relation.subject != name:
                    raise ValueError(
                        f"initial_state[{name!r}] relation {relation} has subject "
                        f"{relation.subject!r}; expected {name!r}"
                    )
        action_ids = [a.id for a in self.actions]
        if len(set(action_ids)) != len(action_ids):
            raise ValueError("action ids repeat within the recording")
        return self

    def agent(self, agent_id: str) -> Agent:
        return next(a for a in self.agents if a.id == agent_id)

    def actions_of(self, agent_id: str) -> list[ActionSegment]:
        return [a for a in self.actions if a.agent == agent_id]
