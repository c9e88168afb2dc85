"""``taskqa_meta.json``: what a taskqa recording holds that the LEMMA files have no place for.

EgoTaskQA's code never opens this file. Without it a folder still reads, as a plain EgoTaskQA
annotation set; with it, reading restores the recordings exactly as they were written.
Per-action fields that the LEMMA files already carry losslessly are left out; an action entry
names them only when the LEMMA form would lose something (an off-grid time, a verb whose string
does not parse back, a task label with a comma, relations listed in a mixed order).
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from taskqa.model import (
    ActionSlots,
    AgentRole,
    Outcome,
    PhysicalScene,
    Procedure,
    RelationKind,
    Snapshot,
    Source,
    VideoRef,
)

META_FORMAT: Final = "taskqa-egotaskqa-meta"
META_VERSION: Final = 1

Moment = Literal["before", "after"]


class PersonMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="The taskqa agent id.")
    pid: Literal["P1", "P2"]
    role: AgentRole = AgentRole.ACTOR
    listed: bool = Field(
        default=True, description="False for an agent that acts but is not in the agent list."
    )


class ActionMeta(BaseModel):
    """One action, at the position of its block in ``all_segments``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    step: str | None = None
    start: float | None = Field(default=None, description="Seconds, when off the frame grid.")
    end: float | None = Field(default=None, description="Seconds, when off the frame grid.")
    verb: str | None = Field(default=None, description="When the action string loses it.")
    slots: ActionSlots | None = Field(
        default=None, description="When the action string loses them."
    )
    tasks: list[str] | None = Field(default=None, description="When the task field loses them.")
    outcome: Outcome = Field(
        default=Outcome.DONE, description="A failed or partial action; LEMMA has no field for it."
    )
    relation_order: dict[str, dict[Moment, list[RelationKind]]] = Field(
        default_factory=dict,
        description="entity -> moment -> the kinds of its relations in their original order.",
    )


class RecordingMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: Source
    duration: float = Field(ge=0)
    fps: float = Field(gt=0)
    environment: str | None = None
    people: list[PersonMeta] = Field(
        default_factory=list, description="In the order of the recording's agent list."
    )
    videos: list[VideoRef] = Field(default_factory=list)
    tasks: list[str] = Field(default_factory=list)
    metadata: dict[str, str | int | float | bool] = Field(default_factory=dict)
    procedures: list[Procedure] = Field(default_factory=list)
    physics: PhysicalScene | None = None
    initial_state: dict[str, Snapshot] = Field(default_factory=dict)
    actions: list[ActionMeta] = Field(default_factory=list)
    action_order: list[int] | None = Field(
        default=None, description="Block indices in the recording's action order, if not sorted."
    )


class MetaFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["taskqa-egotaskqa-meta"] = META_FORMAT
    format_version: Literal[1] = META_VERSION
    recordings: dict[str, RecordingMeta] = Field(default_factory=dict)
