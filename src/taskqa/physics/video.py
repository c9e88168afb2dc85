"""CLEVRER-style MP4 videos of CLEVRER annotations, through CLEVR's perspective camera.

Each annotation frame becomes one video frame: every object is placed at its annotated location
and orientation (``motion_trajectory``), drawn as CLEVRER's cube, sphere or cylinder in its
colour, with metal told from rubber by a brighter tint and a white glint. The look (camera pose,
lens, colours, materials) is data: ``physics/looks/clevrer.yaml``. Drawing goes through the
shared render layer (``taskqa.render``), so the same annotation always gives the same bytes.

An object of a taskqa scene that has not been thrown in yet does not exist in the world; its
annotation still lists it, still and outside the view, at its waiting spot. The perspective
camera sees more than the square the annotation calls the view, so such an object is hidden
until it first moves or enters the view (``first_present_frames``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from taskqa.model.physics import ObjectMotion, PhysicalObject
from taskqa.physics.camera import look_data, scene_camera
from taskqa.physics.clevrer_format import FPS, ClevrerAnnotation
from taskqa.physics.scene import HALF_SIZE
from taskqa.render.engine import RGBA, Camera, Picture, Vec3, open_scene
from taskqa.render.video import write_mp4

HIDDEN: Vec3 = (0.0, 0.0, -50.0)  # below the floor: out of every picture


@dataclass(frozen=True)
class MaterialLook:
    scale: float  # colour multiplier
    lift: float  # added to every channel after scaling (towards white)
    glint_radius: float  # 0 for none


@dataclass(frozen=True)
class Look:
    camera: Camera
    floor: RGBA
    background: RGBA
    floor_half_width: float
    appearance: str  # the GL back-end's look (render.gl.LOOKS)
    colors: dict[str, RGBA]
    materials: dict[str, MaterialLook]
    glint: RGBA

    def color(self, obj: PhysicalObject) -> RGBA:
        base = self.colors[obj.color]
        material = self.materials[obj.material]
        r, g, b = (min(1.0, c * material.scale + material.lift) for c in base[:3])
        return (r, g, b, 1.0)


def _rgba(values: Any, scale: float = 1.0) -> RGBA:
    r, g, b = (float(v) / scale for v in values)
    return (r, g, b, 1.0)


@cache
def load_look() -> Look:
    """The built-in CLEVRER look (``physics/looks/clevrer.yaml``)."""
    raw = look_data()
    cam = raw["camera"]
    frame = scene_camera()
    eye, forward = frame.eye, frame.forward
    camera = Camera(
        eye=eye,
        target=(eye[0] + forward[0], eye[1] + forward[1], eye[2] + forward[2]),
        up=frame.up,
        fov=frame.vertical_fov,  # Blender fits the sensor to the wider side; GL takes the vertical
        width=frame.width,
        height=frame.height,
        near=float(cam["near"]),
        far=float(cam["far"]),
    )
    return Look(
        camera=camera,
        floor=_rgba(raw["floor"]),
        background=_rgba(raw["background"]),
        floor_half_width=float(raw["floor_half_width"]),
        appearance=str(raw.get("appearance", "shaded")),
        colors={name: _rgba(rgb, 255.0) for name, rgb in raw["colors"].items()},
        materials={name: MaterialLook(**values) for name, values in raw["materials"].items()},
        glint=_rgba(raw["glint"]),
    )


def first_present_frames(annotation: ClevrerAnnotation) -> list[int]:
    """Per object, the first frame it is drawn in (the frame count when it never appears)."""
    first: list[int] = []
    start = annotation.motion_trajectory[0].objects if annotation.motion_trajectory else []
    for index in range(len(annotation.object_property)):
        found = len(annotation.motion_trajectory)
        for frame in annotation.motion_trajectory:
            motion = frame.objects[index]
            if (
                motion.inside_camera_view
                or _moving(motion)
                or motion.location != start[index].location
            ):
                found = frame.frame_id
                break
        first.append(found)
    return first


def _moving(motion: ObjectMotion) -> bool:
    return any(v != 0.0 for v in (*motion.velocity, *motion.angular_velocity))


class SceneVideo:
    """The bodies of one annotation in a render scene; ``pictures`` draws it frame by frame."""

    def __init__(
        self, annotation: ClevrerAnnotation, look: Look | None = None, backend: str = "tiny"
    ) -> None:
        self.annotation = annotation
        self.look = look or load_look()
        self.first_present = first_present_frames(annotation)
        self.scene = open_scene(self.look.background, backend, appearance=self.look.appearance)
        half = self.look.floor_half_width
        self.floor = self.scene.add_box((half, half, 0.01), self.look.floor, (0.0, 0.0, -0.01))
        self.bodies: dict[int, int] = {}  # object id -> body id
        self.glints: dict[int, int] = {}
        for obj in annotation.object_property:
            self.bodies[obj.object_id] = self._add(obj)
            radius = self.look.materials[obj.material].glint_radius
            if radius > 0:
                self.glints[obj.object_id] = self.scene.add_sphere(radius, self.look.glint, HIDDEN)

    def _add(self, obj: PhysicalObject) -> int:
        color = self.look.color(obj)
        if obj.shape == "sphere":
            return self.scene.add_sphere(HALF_SIZE, color, HIDDEN)
        if obj.shape == "cube":
            return self.scene.add_box((HALF_SIZE,) * 3, color, HIDDEN)
        return self.scene.add_cylinder(HALF_SIZE, 2 * HALF_SIZE, color, HIDDEN)

    def __enter__(self) -> SceneVideo:
        return self

    def __exit__(self, *_: object) -> None:
        self.scene.close()

    def pictures(self, camera: Camera | None = None) -> Iterator[Picture]:
        """Every frame with its instance mask.

        The mask is always asked for: it costs almost nothing, and pybullet's picture drawn
        without it differed in a few pixels between processes (docs/physics.md).
        """
        camera = camera or self.look.camera
        for frame in self.annotation.motion_trajectory:
            for obj in self.annotation.object_property:
                motion = frame.objects[obj.object_id]
                present = frame.frame_id >= self.first_present[obj.object_id]
                self._place(obj, motion if present else None, camera)
            yield self.scene.capture(camera, masks=True)

    def _place(self, obj: PhysicalObject, motion: ObjectMotion | None, camera: Camera) -> None:
        body = self.bodies[obj.object_id]
        glint = self.glints.get(obj.object_id)
        if motion is None:
            self.scene.move(body, HIDDEN)
            if glint is not None:
                self.scene.move(glint, HIDDEN)
            return
        self.scene.move_euler(body, motion.location, motion.orientation)
        if glint is not None:
            self.scene.move(glint, _glint_spot(obj.shape, motion.location, camera.eye))


def _glint_spot(shape: str, centre: Vec3, eye: Vec3) -> Vec3:
    """Where a highlight shows: the top of the object, nudged towards the camera.

    It is placed in the world frame, not the object's, the way a real highlight stays put
    while a ball rolls under it.
    """
    dx, dy = eye[0] - centre[0], eye[1] - centre[1]
    length = math.hypot(dx, dy) or 1.0
    toward = (dx / length, dy / length)
    if shape == "sphere":  # on the surface, 35 degrees from the top towards the camera
        tilt = math.radians(35)
        out = HALF_SIZE * 0.92
        return (
            centre[0] + out * math.sin(tilt) * toward[0],
            centre[1] + out * math.sin(tilt) * toward[1],
            centre[2] + out * math.cos(tilt),
        )
    nudge = HALF_SIZE * 0.4
    return (centre[0] + nudge * toward[0], centre[1] + nudge * toward[1], centre[2] + HALF_SIZE)


def render_mp4(
    annotation: ClevrerAnnotation, path: Path, fps: float = FPS, backend: str = "tiny"
) -> int:
    """Write the annotation's video as H.264 MP4; return the number of frames written.

    The frame rate is the annotation's own (25 frames per simulated second), so speeds in the
    video are the annotation's speeds.
    """
    with SceneVideo(annotation, backend=backend) as video:
        # All frames are drawn before encoding starts: libx264 fed between pybullet draws gave
        # bytes that depended on the process's history, though the frames were the same.
        frames = [picture.rgb for picture in video.pictures()]
    return write_mp4(path, frames, fps)


def project(camera: Camera, point: Vec3) -> tuple[float, float]:
    """The pixel (column, row) where a world point appears in ``camera``'s picture."""
    view = np.asarray(camera.view_matrix(), dtype=np.float64).reshape(4, 4).T
    projection = np.asarray(camera.projection_matrix(), dtype=np.float64).reshape(4, 4).T
    clip: npt.NDArray[np.float64] = projection @ view @ np.array([*point, 1.0])
    x, y = clip[0] / clip[3], clip[1] / clip[3]
    return (x + 1) / 2 * camera.width, (1 - y) / 2 * camera.height
