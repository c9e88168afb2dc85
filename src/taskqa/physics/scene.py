"""Scene layouts: which objects a CLEVRER-like video holds, where they start, how they are thrown.

A layout is drawn from ``random.Random`` seeded with the run seed and the scene index, so one
scene can be redrawn without drawing the scenes before it. Some objects rest on the table when
the video starts; the others wait just outside the camera view and are launched across it at a
chosen frame, mostly aimed at a resting object so that collisions happen.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from taskqa.physics.clevrer_format import COLORS, MATERIALS, SHAPES

Side = Literal["left", "right", "top", "bottom"]
SIDES: tuple[Side, ...] = ("left", "right", "top", "bottom")

HALF_SIZE = 0.2  # sphere radius, cube half edge, cylinder radius and half height (metres)
VIEW_HALF_WIDTH = 3.0  # the camera sees the square |x|, |y| <= 3 of the table
LAUNCH_DISTANCE = 3.4  # entering objects start this far from the centre, outside the view
REST_HALF_WIDTH = 2.2  # resting objects lie inside |x|, |y| <= 2.2
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
    side: Side | None  # where an entering object comes from


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
    count = rng.randint(config.min_objects, config.max_objects)
    resting = rng.randint(1, min(config.max_resting, count - 1))
    colors = rng.sample(COLORS, count)  # distinct colours keep "the red cube" unambiguous
    rest_points = _rest_points(rng, resting)
    objects = []
    for object_id in range(count):
        color = colors[object_id]
        material = rng.choice(MATERIALS)
        shape = rng.choice(SHAPES)
        if object_id < resting:
            start, velocity, frame, side = rest_points[object_id], (0.0, 0.0), 0, None
        else:
            start, velocity, frame, side = _launch(rng, rest_points, config)
        objects.append(ObjectSpec(object_id, color, material, shape, start, velocity, frame, side))
    return SceneSpec(scene_index, tuple(objects))


def _rest_points(rng: random.Random, count: int) -> list[tuple[float, float]]:
    points: list[tuple[float, float]] = []
    while len(points) < count:
        point = (
            round(rng.uniform(-REST_HALF_WIDTH, REST_HALF_WIDTH), 3),
            round(rng.uniform(-REST_HALF_WIDTH, REST_HALF_WIDTH), 3),
        )
        if all(math.dist(point, other) >= MIN_REST_GAP for other in points):
            points.append(point)
    return points


def _launch(
    rng: random.Random, rest_points: list[tuple[float, float]], config: LayoutConfig
) -> tuple[tuple[float, float], tuple[float, float], int, Side]:
    side = rng.choice(SIDES)
    along = rng.uniform(-REST_HALF_WIDTH, REST_HALF_WIDTH)
    start = {
        "left": (-LAUNCH_DISTANCE, along),
        "right": (LAUNCH_DISTANCE, along),
        "bottom": (along, -LAUNCH_DISTANCE),
        "top": (along, LAUNCH_DISTANCE),
    }[side]
    if rest_points and rng.random() < config.aim_at_resting:
        target = rng.choice(rest_points)
    else:
        target = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5))
    heading = math.atan2(target[1] - start[1], target[0] - start[0])
    heading += math.radians(rng.uniform(-config.aim_noise_degrees, config.aim_noise_degrees))
    speed = rng.uniform(config.min_speed, config.max_speed)
    velocity = (round(speed * math.cos(heading), 4), round(speed * math.sin(heading), 4))
    frame = rng.randint(0, LAST_LAUNCH_FRAME)
    return (round(start[0], 3), round(start[1], 3)), velocity, frame, side
