"""Physical scenes for the CLEVRER family: objects, trajectories, collisions, events."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

Vector3 = tuple[float, float, float]


class PhysicalObject(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    object_id: int = Field(ge=0)
    color: str
    material: str
    shape: str


class ObjectMotion(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    object_id: int = Field(ge=0)
    location: Vector3
    orientation: Vector3
    velocity: Vector3
    angular_velocity: Vector3
    inside_camera_view: bool


class TrajectoryFrame(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    frame_id: int = Field(ge=0)
    objects: list[ObjectMotion]


class Collision(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    object_ids: tuple[int, int]
    frame_id: int = Field(ge=0)
    location: Vector3 | None = None


class EventKind(StrEnum):
    ENTER = "enter"
    EXIT = "exit"
    COLLISION = "collision"
    START_MOVING = "start-moving"
    STOP_MOVING = "stop-moving"
    SPEED_UP = "speed-up"
    SLOW_DOWN = "slow-down"
    TURN = "turn"
    SPIN = "spin"
    MOVE_TOGETHER = "move-together"


class PhysicalEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str
    kind: EventKind
    frame: int = Field(ge=0)
    objects: list[int]
    description: str | None = None


class PhysicalScene(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    scene_index: int = Field(ge=0)
    video_filename: str | None = None
    objects: list[PhysicalObject]
    trajectory: list[TrajectoryFrame] = Field(default_factory=list)
    collisions: list[Collision] = Field(default_factory=list)
    events: list[PhysicalEvent] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ids_resolve(self) -> PhysicalScene:
        known = {o.object_id for o in self.objects}
        for index, collision in enumerate(self.collisions):
            unknown = [i for i in collision.object_ids if i not in known]
            if unknown:
                raise ValueError(f"collisions[{index}] names unknown object ids {unknown}")
        for index, event in enumerate(self.events):
            unknown = [i for i in event.objects if i not in known]
            if unknown:
                raise ValueError(f"events[{index}] names unknown object ids {unknown}")
        return self
