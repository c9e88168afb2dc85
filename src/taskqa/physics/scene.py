"""Scene layouts: which objects a CLEVRER-like video holds, where they start, how they are thrown.

A layout is drawn from ``random.Random`` seeded with the run seed and the scene index, so one
scene can be redrawn without drawing the scenes before it. Some objects rest on the table when
the video starts, all of each in the picture; the others wait just outside the picture and are
launched at a chosen frame through its left, right or bottom edge, mostly aimed at a resting
object so that collisions happen. The picture is the scene camera's (``physics.camera``), so an
object said to come in from the left comes in through the video's left edge.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from taskqa.physics.camera import FrameCamera, scene_camera
from taskqa.physics.clevrer_format import COLORS, MATERIALS, SHAPES

Side = Literal["left", "right", "top", "bottom"]  # an edge of the picture
# Objects come in through the picture's left, right and bottom edges, where the table is near;
# through the top edge they would start far away and be small for their first second or more.
SIDES: tuple[Side, ...] = ("left", "right", "bottom")

HALF_SIZE = 0.2  # sphere radius, cube half edge, cylinder radius and half height (metres)
VIEW_HALF_WIDTH = 3.0  # the top-down debug GIF shows the square |x|, |y| <= 3 of the table
REST_HALF_WIDTH = 2.2  # resting objects lie inside |x|, |y| <= 2.2 ...
REST_MARGIN = 0.35  # ... and this far (metres) inside the picture's edges
LAUNCH_MARGIN = 0.5  # a waiting object's centre is this far outside the picture's edge
# Where along an edge objects come in: (from, to) in the picture's [-1, 1] coordinate along it;
# the side edges' upper parts meet the table far away, so only their lower parts are used.
EDGE_SPAN: dict[str, tuple[float, float]] = {
    "left": (-0.9, 0.3),
    "right": (-0.9, 0.3),
    "bottom": (-0.85, 0.85),
}
MIN_REST_GAP = 1.0  # resting objects start at least this far apart (centre to centre)
LAST_LAUNCH_FRAME = 45  # later launches would rarely reach anything before the video ends


@dataclass(frozen=True)
class ObjectSpec:
    object_id: int
    color: str
    material: str
    shape: str
    start: tuple[float, float]
    velocity: tuple[float, float]  # (0, 0) for an object resting at the start
    launch_frame: int  # the frame it appears in the world; 0 for resting objects
    side: Side | None  # the picture edge an entering object comes in through


@dataclass(frozen=True)
class SceneSpec:
    scene_index: int
    objects: tuple[ObjectSpec, ...]


@dataclass(frozen=True)
class LayoutConfig:
    min_objects: int = 3
    max_objects: int = 6
    max_resting: int = 3
    aim_at_resting: float = 0.8  # chance that an entering object is aimed at a resting one
    min_speed: float = 2.0
    max_speed: float = 3.2
    aim_noise_degrees: float = 6.0


def sample_scene(seed: int, scene_index: int, config: LayoutConfig | None = None) -> SceneSpec:
    config = config or LayoutConfig()
    rng = random.Random(f"clevrer-scene:{seed}:{scene_index}")
    camera = scene_camera()
    count = rng.randint(config.min_objects, config.max_objects)
    resting = rng.randint(1, min(config.max_resting, count - 1))
    colors = rng.sample(COLORS, count)  # distinct colours keep "the red cube" unambiguous
    rest_points = _rest_points(rng, resting, camera)
    objects = []
    for object_id in range(count):
        color = colors[object_id]
        material = rng.choice(MATERIALS)
        shape = rng.choice(SHAPES)
        if object_id < resting:
            start, velocity, frame, side = rest_points[object_id], (0.0, 0.0), 0, None
        else:
            start, velocity, frame, side = _launch(rng, rest_points, config, camera)
        objects.append(ObjectSpec(object_id, color, material, shape, start, velocity, frame, side))
    return SceneSpec(scene_index, tuple(objects))


def _rest_points(rng: random.Random, count: int, camera: FrameCamera) -> list[tuple[float, float]]:
    points: list[tuple[float, float]] = []
    while len(points) < count:
        point = (
            round(rng.uniform(-REST_HALF_WIDTH, REST_HALF_WIDTH), 3),
            round(rng.uniform(-REST_HALF_WIDTH, REST_HALF_WIDTH), 3),
        )
        if not camera.sees((*point, HALF_SIZE), margin=REST_MARGIN):
            continue
        if all(math.dist(point, other) >= MIN_REST_GAP for other in points):
            points.append(point)
    return points


def _launch(
    rng: random.Random,
    rest_points: list[tuple[float, float]],
    config: LayoutConfig,
    camera: FrameCamera,
) -> tuple[tuple[float, float], tuple[float, float], int, Side]:
    """Start, velocity, launch frame and edge of an object thrown into the picture.

    A point is drawn on an edge's trace on the table; the object starts on the line from its
    target through that point, just outside the picture, and is thrown along the line."""
    side = rng.choice(SIDES)
    low, high = EDGE_SPAN[side]
    along = rng.uniform(low, high)
    u, v = {"left": (-1.0, along), "right": (1.0, along), "bottom": (along, -1.0)}[side]
    crossing = camera.floor_point(u, v, HALF_SIZE)
    if crossing is None:  # a camera that looks up: nothing to aim through
        raise ValueError(f"the scene camera does not see the table at its {side} edge")
    if rest_points and rng.random() < config.aim_at_resting:
        target = rng.choice(rest_points)
    else:
        target = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5))
    out = (crossing[0] - target[0], crossing[1] - target[1])
    length = math.hypot(*out) or 1.0
    out = (out[0] / length, out[1] / length)
    distance = 0.0
    while camera.sees(
        (crossing[0] + out[0] * distance, crossing[1] + out[1] * distance, HALF_SIZE),
        margin=-LAUNCH_MARGIN,
    ):
        distance += 0.05
    start = (crossing[0] + out[0] * distance, crossing[1] + out[1] * distance)
    heading = math.atan2(-out[1], -out[0])
    heading += math.radians(rng.uniform(-config.aim_noise_degrees, config.aim_noise_degrees))
    speed = rng.uniform(config.min_speed, config.max_speed)
    velocity = (round(speed * math.cos(heading), 4), round(speed * math.sin(heading), 4))
    frame = rng.randint(0, LAST_LAUNCH_FRAME)
    return (round(start[0], 3), round(start[1], 3)), velocity, frame, side
